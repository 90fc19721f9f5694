import type { Selectable } from 'kysely';
import type { Executor } from '../../db/database.js';
import type { EventsTable } from '../../db/tables/calendars.js';
import type { Event, ExternalRef, Reminder } from './schemas.js';

export interface EventValues {
  calendarId: number;
  title: string;
  description: string | null;
  location: string | null;
  startTime: string;
  endTime: string;
  allDay: boolean;
  timezone: string;
  recurrence: string[] | null;
  reminders: Reminder[];
  occursUntil: string | null;
}

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

const recurrenceColumn = (lines: string[] | null) =>
  lines && lines.length > 0 ? JSON.stringify(lines) : null;

function toColumns(values: Partial<EventValues>) {
  const { recurrence, reminders, ...rest } = values;
  return {
    ...rest,
    ...(recurrence !== undefined ? { recurrence: recurrenceColumn(recurrence) } : {}),
    ...(reminders !== undefined ? { reminders: JSON.stringify(reminders) } : {}),
  };
}

function externalColumns(external: ExternalRef | null | undefined) {
  if (external === undefined) return {};
  return {
    externalProvider: external?.provider ?? null,
    externalId: external?.externalId ?? null,
    externalEtag: external?.etag ?? null,
    externalLastSyncedAt: external?.lastSyncedAt ?? null,
  };
}

export function createEventRepo(db: Executor) {
  return {
    async insert(values: EventValues, external: ExternalRef | null | undefined, now: string): Promise<Event> {
      const row = await db
        .insertInto('events')
        .values({
          ...values,
          recurrence: recurrenceColumn(values.recurrence),
          reminders: JSON.stringify(values.reminders),
          ...externalColumns(external),
          createdAt: now,
          updatedAt: now,
        })
        .returningAll()
        .executeTakeFirstOrThrow();
      return toEvent(row);
    },

    async findById(id: number): Promise<Event | undefined> {
      const row = await db.selectFrom('events').selectAll().where('id', '=', id).executeTakeFirst();
      return row && toEvent(row);
    },

    async findByExternalId(
      calendarId: number,
      provider: string,
      externalId: string,
    ): Promise<Event | undefined> {
      const row = await db
        .selectFrom('events')
        .selectAll()
        .where('calendarId', '=', calendarId)
        .where('externalProvider', '=', provider)
        .where('externalId', '=', externalId)
        .executeTakeFirst();
      return row && toEvent(row);
    },

    /** Every event of the calendar with an occurrence that may overlap [from, to): one indexed query. */
    async listOverlapping(calendarId: number, from: string, to: string): Promise<Event[]> {
      const rows = await db
        .selectFrom('events')
        .selectAll()
        .where('calendarId', '=', calendarId)
        .where('startTime', '<', to)
        .where((eb) => eb.or([eb('occursUntil', 'is', null), eb('occursUntil', '>', from)]))
        .orderBy('startTime')
        .orderBy('id')
        .execute();
      return rows.map(toEvent);
    },

    async update(
      id: number,
      values: Partial<EventValues>,
      external: ExternalRef | null | undefined,
      now: string,
    ): Promise<Event> {
      const row = await db
        .updateTable('events')
        .set({ ...toColumns(values), ...externalColumns(external), updatedAt: now })
        .where('id', '=', id)
        .returningAll()
        .executeTakeFirstOrThrow();
      return toEvent(row);
    },

    async delete(id: number): Promise<void> {
      await db.deleteFrom('events').where('id', '=', id).execute();
    },
  };
}
