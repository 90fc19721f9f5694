import type { Selectable } from 'kysely';
import type { Event, EventValues, ExternalRef, Reminder } from './schemas.js';
import type { EventsTable } from './tables.js';

/** An event as the API shows it, from its stored row. */
export function toEvent(row: Selectable<EventsTable>): Event {
  return {
    id: row.id,
    calendarId: row.calendarId,
    title: row.title,
    description: row.description,
    location: row.location,
    startTime: row.startTime,
    endTime: row.endTime,
    allDay: Boolean(row.allDay),
    timezone: row.timezone,
    recurrence: row.recurrence ? (JSON.parse(row.recurrence) as string[]) : [],
    reminders: JSON.parse(row.reminders) as Reminder[],
    transparency: row.transparency,
    external:
      row.externalProvider && row.externalId
        ? {
            provider: row.externalProvider,
            externalId: row.externalId,
            etag: row.externalEtag,
            lastSyncedAt: row.externalLastSyncedAt,
          }
        : null,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}

/** The stored recurrence: its lines as JSON, or null for none. */
export const recurrenceColumn = (lines: string[] | null) =>
  lines && lines.length > 0 ? JSON.stringify(lines) : null;

/** The columns of these (partial) values: recurrence and reminders as JSON. */
export function toColumns(values: Partial<EventValues>) {
  const { recurrence, reminders, ...rest } = values;
  return {
    ...rest,
    ...(recurrence !== undefined ? { recurrence: recurrenceColumn(recurrence) } : {}),
    ...(reminders !== undefined ? { reminders: JSON.stringify(reminders) } : {}),
  };
}

/** The provider bookkeeping columns of `external`: none when undefined, cleared when null. */
export function externalColumns(external: ExternalRef | null | undefined) {
  if (external === undefined) return {};
  return {
    externalProvider: external?.provider ?? null,
    externalId: external?.externalId ?? null,
    externalEtag: external?.etag ?? null,
    externalLastSyncedAt: external?.lastSyncedAt ?? null,
  };
}
