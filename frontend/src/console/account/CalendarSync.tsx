// The signed-in person's calendar sync: each provider's connection (connect, reconnect when the
// provider refused our token, disconnect), which of its calendars sync into which local
// calendar, and a sync now. Connecting asks the API for the provider's consent URL from this
// page (its binding cookie lands in this browser) and goes there; the provider comes back to
// the /calendar-sync landing page, which links back here.
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useCalendarSyncStatus } from '../../api/account-hooks.js';
import { unwrap } from '../../api/client.js';
import { errorText, fieldErrors } from '../../api/errors.js';
import { queryKeys } from '../../api/queryKeys.js';
import { authed } from '../../api/session.js';
import type { SyncProvider } from '../../api/types.js';
import { ConfirmBox } from '../../components/ConfirmBox.js';
import { CONNECTION_STATE_WORDS, PROVIDER_NAMES } from '../../lib/calendar-providers.js';
import { Status } from '../account-ui.js';
import { submitted } from '../form-state.js';
import { Check, Field, FormError, LoadError, Loading } from '../ui.js';

export default function CalendarSync() {
  const status = useCalendarSyncStatus();
  const force = useMutation({ mutationFn: () => unwrap(authed.POST('/api/calendar-sync/force')) });
  const anyMapped = status.data?.providers.some((p) => p.syncedCalendars.length > 0) ?? false;
  return (
    <main className="page">
      <h1>Calendar sync</h1>
      <p className="hint">
        Your own calendars at a provider, kept in step with calendars here. This is yours, not the
        organisation's.
      </p>
      {status.isPending ? <Loading /> : null}
      {status.isError ? <LoadError error={status.error} /> : null}
      {status.data?.providers.length === 0 ? <p className="empty">No calendar provider is set up.</p> : null}
      {status.data ? (
        <ul className="providers">
          {status.data.providers.map((p) => (
            <ProviderCard key={p.provider} item={p} />
          ))}
        </ul>
      ) : null}
      {anyMapped ? (
        <div className="actions">
          <button
            type="button"
            className="secondary"
            disabled={force.isPending}
            onClick={() => force.mutate()}
          >
            Sync now
          </button>
        </div>
      ) : null}
      {force.isError ? (
        <p role="alert" className="error">
          {errorText(force.error)}
        </p>
      ) : null}
      <Status>{force.isSuccess ? force.data.message : ''}</Status>
    </main>
  );
}

function ProviderCard(props: { item: SyncProvider }) {
  const { item } = props;
  const name = PROVIDER_NAMES[item.provider];
  const queryClient = useQueryClient();
  const connect = useMutation({
    mutationFn: () =>
      unwrap(
        authed.GET('/api/calendar-sync/auth/{provider}', { params: { path: { provider: item.provider } } }),
      ),
    onSuccess: (answer) => window.location.assign(answer.authUrl),
  });
  const [confirming, setConfirming] = useState(false);
  const disconnect = useMutation({
    mutationFn: () =>
      unwrap(
        authed.POST('/api/calendar-sync/disconnect/{provider}', {
          params: { path: { provider: item.provider } },
        }),
      ),
    onSuccess: () => {
      setConfirming(false);
      return queryClient.invalidateQueries({ queryKey: queryKeys.calendarSync() });
    },
  });
  const failed = connect.error ?? disconnect.error;
  const headingId = `provider-${item.provider}`;
  return (
    <li className="provider">
      <h2 id={headingId}>
        {name}{' '}
        <span className={`badge sync-${item.connectionState}`}>
          {CONNECTION_STATE_WORDS[item.connectionState]}
        </span>
      </h2>
      {item.connectionState === 'needs_reconnect' ? (
        <p role="alert" className="error">
          {name} no longer accepts this service's access: reconnect to go on syncing.
        </p>
      ) : null}
      {item.lastError ? (
        <p className="hint">
          Last problem ({new Date(item.lastError.at).toLocaleString()}): {item.lastError.message}
        </p>
      ) : null}
      {failed ? (
        <p role="alert" className="error">
          {errorText(failed)}
        </p>
      ) : null}
      <Status>{connect.isPending || connect.isSuccess ? `Taking you to ${name}…` : ''}</Status>
      <div className="actions">
        {!item.isConnected ? (
          <button
            type="button"
            className="primary"
            disabled={connect.isPending}
            onClick={() => connect.mutate()}
          >
            {item.connectionState === 'needs_reconnect' ? `Reconnect ${name}` : `Connect ${name}`}
          </button>
        ) : null}
        {item.connectionState !== 'not_connected' && !confirming ? (
          <button type="button" className="danger secondary" onClick={() => setConfirming(true)}>
            Disconnect {name}
          </button>
        ) : null}
      </div>
      {confirming ? (
        <ConfirmBox
          title={`Disconnect ${name}?`}
          level={3}
          confirm="Yes, disconnect"
          keep="Keep it"
          pending={disconnect.isPending}
          onConfirm={() => disconnect.mutate()}
          onKeep={() => setConfirming(false)}
        >
          <p>The local calendars and their events stay; they stop syncing.</p>
        </ConfirmBox>
      ) : null}
      {item.syncedCalendars.length > 0 ? (
        <>
          <h3>Syncing</h3>
          <ul className="record-list synced">
            {item.syncedCalendars.map((c) => (
              <li key={c.externalId}>
                <span>
                  <strong>{c.localName}</strong>{' '}
                  <span className="hint">
                    {c.bidirectionalSync ? 'two-way' : 'from the provider only'}, last synced{' '}
                    {c.lastSyncedAt ? new Date(c.lastSyncedAt).toLocaleString() : 'not yet'}
                  </span>
                </span>
              </li>
            ))}
          </ul>
        </>
      ) : null}
      {item.isConnected ? <Mapping item={item} /> : null}
    </li>
  );
}

interface Row {
  chosen: boolean;
  localName: string;
  bidirectionalSync: boolean;
  importReminders: boolean;
}

/** Which of the provider's calendars sync, each into a local calendar of its own. */
function Mapping(props: { item: SyncProvider }) {
  const { item } = props;
  const queryClient = useQueryClient();
  const [rows, setRows] = useState<Row[]>(() =>
    item.calendars.map((c) => {
      const mapped = item.syncedCalendars.find((s) => s.externalId === c.externalId);
      return {
        chosen: !!mapped,
        localName: mapped?.localName ?? c.name,
        bidirectionalSync: mapped?.bidirectionalSync ?? true,
        importReminders: mapped?.importReminders ?? false,
      };
    }),
  );
  const [sentIndex, setSentIndex] = useState<number[]>([]);
  const save = useMutation({
    mutationFn: () => {
      const chosen = rows.flatMap((r, k) => (r.chosen ? [k] : []));
      setSentIndex(chosen);
      return unwrap(
        authed.POST('/api/calendar-sync/sync', {
          body: {
            provider: item.provider,
            calendars: chosen.map((k) => ({
              externalId: item.calendars[k]!.externalId,
              localName: rows[k]!.localName,
              bidirectionalSync: rows[k]!.bidirectionalSync,
              importReminders: rows[k]!.importReminders,
            })),
          },
        }),
      );
    },
    onSuccess: () => queryClient.invalidateQueries({ queryKey: queryKeys.calendarSync() }),
  });
  const refused = fieldErrors(save.error);
  const fieldOf = (k: number, key: string) => `${item.provider}.${k}.${key}`;
  const errors: Record<string, string> = {};
  const shown: string[] = [];
  sentIndex.forEach((k, i) => {
    for (const key of ['localName', 'externalId']) {
      shown.push(`calendars.${i}.${key}`);
      const message = refused[`calendars.${i}.${key}`];
      if (message) errors[fieldOf(k, 'localName')] ??= message;
    }
  });
  const set = (k: number, change: Partial<Row>) =>
    setRows((list) => list.map((r, j) => (j === k ? { ...r, ...change } : r)));
  const name = PROVIDER_NAMES[item.provider];
  if (item.calendars.length === 0) return <p className="empty">{name} shows no calendars of yours.</p>;
  return (
    <form noValidate aria-label={`Calendars of ${name} to sync`} onSubmit={submitted(save.mutate)}>
      <h3>Calendars at {name}</h3>
      <ul className="record-list calendars">
        {item.calendars.map((c, k) => {
          const row = rows[k]!;
          return (
            <li key={c.externalId}>
              <div className="calendar-choice">
                <Check
                  name={fieldOf(k, 'chosen')}
                  label={`Sync ${c.name}${c.primary ? ' (main calendar)' : ''}`}
                  checked={row.chosen}
                  onChange={(chosen) => set(k, { chosen })}
                />
                {row.chosen ? (
                  <>
                    <Field
                      name={fieldOf(k, 'localName')}
                      label={`Local calendar for ${c.name}`}
                      value={row.localName}
                      error={errors[fieldOf(k, 'localName')]}
                      onChange={(localName) => set(k, { localName })}
                    />
                    <Check
                      name={fieldOf(k, 'bidirectionalSync')}
                      label={`Send changes made here back to ${c.name}`}
                      checked={row.bidirectionalSync}
                      onChange={(bidirectionalSync) => set(k, { bidirectionalSync })}
                    />
                    <Check
                      name={fieldOf(k, 'importReminders')}
                      label={`Take reminders from ${c.name}`}
                      checked={row.importReminders}
                      onChange={(importReminders) => set(k, { importReminders })}
                    />
                  </>
                ) : null}
              </div>
            </li>
          );
        })}
      </ul>
      <p className="hint">
        A calendar synced once keeps syncing until the provider is disconnected; unticking it here does not
        stop it.
      </p>
      {save.isError ? <FormError error={save.error} shown={shown} /> : null}
      <Status>{save.isSuccess && !save.isPending ? save.data.message : ''}</Status>
      <div className="actions">
        <button type="submit" className="primary" disabled={save.isPending || !rows.some((r) => r.chosen)}>
          Save calendars
        </button>
      </div>
    </form>
  );
}
