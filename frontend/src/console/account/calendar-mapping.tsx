// Which of a provider's calendars sync, each into a local calendar of its own: a row per calendar
// the provider lists, sent as the chosen rows. The API names a refusal by the index the row was
// sent at (`calendars.1.localName`), so the rows sent are kept to put it back on its row.
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { unwrap } from '../../api/client.js';
import { fieldErrors } from '../../api/errors.js';
import { queryKeys } from '../../api/queryKeys.js';
import { authed } from '../../api/session.js';
import type { SyncProvider } from '../../api/types.js';
import { PROVIDER_NAMES } from '../../lib/calendar-providers.js';
import { Status } from '../account-ui.js';
import { submitted } from '../form-state.js';
import { Check, Field, FormError } from '../ui.js';

interface Row {
  chosen: boolean;
  localName: string;
  bidirectionalSync: boolean;
  importReminders: boolean;
}

type ProviderCalendar = SyncProvider['calendars'][number];

/** A row per calendar at the provider: what syncs already as it syncs, the others unchosen. */
const rowsOf = (item: SyncProvider): Row[] =>
  item.calendars.map((c) => {
    const mapped = item.syncedCalendars.find((s) => s.externalId === c.externalId);
    return {
      chosen: !!mapped,
      localName: mapped?.localName ?? c.name,
      bidirectionalSync: mapped?.bidirectionalSync ?? true,
      importReminders: mapped?.importReminders ?? false,
    };
  });

/** The rows, a change to one, and saving the chosen ones (`sentIndex`: the rows last sent). */
function useCalendarRows(item: SyncProvider) {
  const queryClient = useQueryClient();
  const [rows, setRows] = useState<Row[]>(() => rowsOf(item));
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
  const set = (k: number, change: Partial<Row>) =>
    setRows((list) => list.map((r, j) => (j === k ? { ...r, ...change } : r)));
  return { rows, set, save, sentIndex };
}

/**
 * The refusals put back on the rows they were sent from (each on the row's local name), and the
 * paths that shows (the form error lists the rest).
 */
function refusalsOnRows(error: unknown, sentIndex: number[], fieldOf: (k: number, key: string) => string) {
  const refused = fieldErrors(error);
  const errors: Record<string, string> = {};
  const shown: string[] = [];
  sentIndex.forEach((k, i) => {
    for (const key of ['localName', 'externalId']) {
      shown.push(`calendars.${i}.${key}`);
      const message = refused[`calendars.${i}.${key}`];
      if (message) errors[fieldOf(k, 'localName')] ??= message;
    }
  });
  return { errors, shown };
}

/** Which of the provider's calendars sync, each into a local calendar of its own. */
export function CalendarMapping(props: { item: SyncProvider }) {
  const { item } = props;
  const { rows, set, save, sentIndex } = useCalendarRows(item);
  const fieldOf = (k: number, key: string) => `${item.provider}.${k}.${key}`;
  const { errors, shown } = refusalsOnRows(save.error, sentIndex, fieldOf);
  const name = PROVIDER_NAMES[item.provider];
  if (item.calendars.length === 0) return <p className="empty">{name} shows no calendars of yours.</p>;
  return (
    <form noValidate aria-label={`Calendars of ${name} to sync`} onSubmit={submitted(save.mutate)}>
      <h3>Calendars at {name}</h3>
      <ul className="record-list calendars">
        {item.calendars.map((c, k) => (
          <CalendarChoice
            key={c.externalId}
            calendar={c}
            row={rows[k]!}
            fieldOf={(key) => fieldOf(k, key)}
            error={errors[fieldOf(k, 'localName')]}
            onChange={(change) => set(k, change)}
          />
        ))}
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

/** One calendar at the provider: whether it syncs, and if so into which local calendar and how. */
function CalendarChoice(props: {
  calendar: ProviderCalendar;
  row: Row;
  fieldOf: (key: string) => string;
  /** The refusal of the row's local name. */
  error: string | undefined;
  onChange: (change: Partial<Row>) => void;
}) {
  const { calendar: c, row, fieldOf, onChange } = props;
  return (
    <li>
      <div className="calendar-choice">
        <Check
          name={fieldOf('chosen')}
          label={`Sync ${c.name}${c.primary ? ' (main calendar)' : ''}`}
          checked={row.chosen}
          onChange={(chosen) => onChange({ chosen })}
        />
        {row.chosen ? (
          <>
            <Field
              name={fieldOf('localName')}
              label={`Local calendar for ${c.name}`}
              value={row.localName}
              error={props.error}
              onChange={(localName) => onChange({ localName })}
            />
            <Check
              name={fieldOf('bidirectionalSync')}
              label={`Send changes made here back to ${c.name}`}
              checked={row.bidirectionalSync}
              onChange={(bidirectionalSync) => onChange({ bidirectionalSync })}
            />
            <Check
              name={fieldOf('importReminders')}
              label={`Take reminders from ${c.name}`}
              checked={row.importReminders}
              onChange={(importReminders) => onChange({ importReminders })}
            />
          </>
        ) : null}
      </div>
    </li>
  );
}
