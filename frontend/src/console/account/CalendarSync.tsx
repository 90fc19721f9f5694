// The signed-in person's calendar sync: each provider's connection (connect, reconnect when the
// provider refused our token, disconnect), which of its calendars sync into which local
// calendar, and a sync now. Connecting asks the API for the provider's consent URL from this
// page (its binding cookie lands in this browser) and goes there; the provider comes back to
// the /calendar-sync landing page, which links back here.
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useCalendarSyncStatus } from '../../api/account-hooks.js';
import { unwrap } from '../../api/client.js';
import { errorText } from '../../api/errors.js';
import { queryKeys } from '../../api/queryKeys.js';
import { authed } from '../../api/session.js';
import type { SyncProvider } from '../../api/types.js';
import { ConfirmBox } from '../../components/ConfirmBox.js';
import { CONNECTION_STATE_WORDS, PROVIDER_NAMES } from '../../lib/calendar-providers.js';
import { Status } from '../account-ui.js';
import { LoadError, Loading } from '../ui.js';
import { CalendarMapping } from './calendar-mapping.js';

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

/** Connecting (to the provider's consent page) and disconnecting, behind a confirmation. */
function useProviderConnection(provider: SyncProvider['provider']) {
  const queryClient = useQueryClient();
  const path = { provider };
  const connect = useMutation({
    mutationFn: () => unwrap(authed.GET('/api/calendar-sync/auth/{provider}', { params: { path } })),
    onSuccess: (answer) => window.location.assign(answer.authUrl),
  });
  const [confirming, setConfirming] = useState(false);
  const disconnect = useMutation({
    mutationFn: () => unwrap(authed.POST('/api/calendar-sync/disconnect/{provider}', { params: { path } })),
    onSuccess: () => {
      setConfirming(false);
      return queryClient.invalidateQueries({ queryKey: queryKeys.calendarSync() });
    },
  });
  return { connect, disconnect, confirming, setConfirming };
}

type ProviderConnection = ReturnType<typeof useProviderConnection>;

function ProviderCard(props: { item: SyncProvider }) {
  const { item } = props;
  const name = PROVIDER_NAMES[item.provider];
  const connection = useProviderConnection(item.provider);
  const { connect, disconnect } = connection;
  const failed = connect.error ?? disconnect.error;
  return (
    <li className="provider">
      <ProviderState item={item} name={name} />
      {failed ? (
        <p role="alert" className="error">
          {errorText(failed)}
        </p>
      ) : null}
      <Status>{connect.isPending || connect.isSuccess ? `Taking you to ${name}…` : ''}</Status>
      <ConnectionActions item={item} name={name} connection={connection} />
      {item.syncedCalendars.length > 0 ? <SyncedCalendars calendars={item.syncedCalendars} /> : null}
      {item.isConnected ? <CalendarMapping item={item} /> : null}
    </li>
  );
}

/** The provider's name and connection state, and what last went wrong with it. */
function ProviderState(props: { item: SyncProvider; name: string }) {
  const { item, name } = props;
  return (
    <>
      <h2 id={`provider-${item.provider}`}>
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
    </>
  );
}

/** Connect (or reconnect) and disconnect, the latter once confirmed. */
function ConnectionActions(props: { item: SyncProvider; name: string; connection: ProviderConnection }) {
  const { item, name } = props;
  const { connect, disconnect, confirming, setConfirming } = props.connection;
  return (
    <>
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
    </>
  );
}

/** The provider's calendars that sync now, each with its direction and last sync. */
function SyncedCalendars(props: { calendars: SyncProvider['syncedCalendars'] }) {
  return (
    <>
      <h3>Syncing</h3>
      <ul className="record-list synced">
        {props.calendars.map((c) => (
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
  );
}
