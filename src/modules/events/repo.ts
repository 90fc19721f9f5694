import type { Selectable } from 'kysely';
import type { Executor } from '../../db/database.js';
import { chunks } from '../../lib/chunks.js';
import type { BusyEventRow } from './busy.js';
import type {
  Event,
  EventValues,
  ExternalColumns,
  ExternalRef,
  Reminder,
  SyncedEventRow,
} from './schemas.js';
import type { EventsTable } from './tables.js';

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
    async insert(
      values: EventValues,
      external: ExternalRef | null | undefined,
      now: string,
      bookingReservationId: number | null = null,
    ): Promise<Event> {
      const row = await db
        .insertInto('events')
        .values({
          ...values,
          bookingReservationId,
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

    /** Every event of the calendar that has an occurrence ending after `since` (a feed), in start order. */
    async listSince(calendarId: number, since: string): Promise<Event[]> {
      const rows = await db
        .selectFrom('events')
        .selectAll()
        .where('calendarId', '=', calendarId)
        .where((eb) => eb.or([eb('occursUntil', 'is', null), eb('occursUntil', '>', since)]))
        .orderBy('startTime')
        .orderBy('id')
        .execute();
      return rows.map(toEvent);
    },

    /** The events mirroring these reservations in booking calendars (one at most each). */
    /** Whether any event mirrors a reservation. */
    async anyMirror(): Promise<boolean> {
      const row = await db
        .selectFrom('events')
        .select('id')
        .where('bookingReservationId', 'is not', null)
        .limit(1)
        .executeTakeFirst();
      return row !== undefined;
    },

    async mirrorsOf(reservationIds: readonly number[]): Promise<Array<Event & { reservationId: number }>> {
      if (reservationIds.length === 0) return [];
      const rows = await db
        .selectFrom('events')
        .selectAll()
        .where('bookingReservationId', 'in', [...reservationIds])
        .execute();
      return rows.map((row) => ({ ...toEvent(row), reservationId: row.bookingReservationId! }));
    },

    /** The opaque events of these calendars that may overlap [from, to): the busy read of free/busy. */
    async listBusy(
      calendarIds: readonly number[],
      from: string,
      to: string,
    ): Promise<Array<BusyEventRow & { calendarId: number }>> {
      if (calendarIds.length === 0) return [];
      return db
        .selectFrom('events')
        .select(['calendarId', 'startTime', 'endTime', 'allDay', 'timezone', 'recurrence', 'occursUntil'])
        .where('calendarId', 'in', [...calendarIds])
        .where('transparency', '=', 'opaque')
        .where('startTime', '<', to)
        .where((eb) => eb.or([eb('occursUntil', 'is', null), eb('occursUntil', '>', from)]))
        .execute();
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

/** SQLite binds at most 32766 parameters; events have 17 columns. */
const INSERT_CHUNK = 500;
const IN_CHUNK = 500;

/**
 * The events calendar sync mirrors from a provider, found by the provider's ids and
 * written in bulk, in whatever transaction the sync holds (`db`).
 */
export function createSyncedEventRepo(db: Executor) {
  return {
    findById: (id: number) => createEventRepo(db).findById(id),

    /** The calendar's events with these provider ids: one query per 500 ids. */
    async findByExternalIds(
      calendarId: number,
      provider: string,
      externalIds: readonly string[],
    ): Promise<SyncedEventRow[]> {
      const out: SyncedEventRow[] = [];
      for (const part of chunks(externalIds, IN_CHUNK)) {
        const rows = await db
          .selectFrom('events')
          .select([
            'id',
            'externalId',
            'externalEtag',
            'title',
            'description',
            'location',
            'startTime',
            'endTime',
            'allDay',
            'timezone',
            'recurrence',
            'reminders',
            'transparency',
          ])
          .where('calendarId', '=', calendarId)
          .where('externalProvider', '=', provider)
          .where('externalId', 'in', part)
          .execute();
        for (const row of rows)
          out.push({ ...row, externalId: row.externalId!, allDay: Boolean(row.allDay) });
      }
      return out;
    },

    /** Every event of the calendar from this provider (the sweep after a full listing). */
    async listFromProvider(
      calendarId: number,
      provider: string,
    ): Promise<Array<{ id: number; externalId: string; startTime: string }>> {
      const rows = await db
        .selectFrom('events')
        .select(['id', 'externalId', 'startTime'])
        .where('calendarId', '=', calendarId)
        .where('externalProvider', '=', provider)
        .execute();
      return rows.map((row) => ({ id: row.id, externalId: row.externalId!, startTime: row.startTime }));
    },

    /** Multi-row inserts of up to 500 events; answers the new ids in input order. */
    async insertMany(
      rows: Array<{ values: EventValues; external: ExternalColumns }>,
      now: string,
    ): Promise<number[]> {
      const ids: number[] = [];
      for (const part of chunks(rows, INSERT_CHUNK)) {
        const inserted = await db
          .insertInto('events')
          .values(
            part.map(({ values, external }) => ({
              ...values,
              recurrence: recurrenceColumn(values.recurrence),
              reminders: JSON.stringify(values.reminders),
              ...external,
              createdAt: now,
              updatedAt: now,
            })),
          )
          .returning('id')
          .execute();
        ids.push(...inserted.map((row) => row.id));
      }
      return ids;
    },

    /** Writes a mirrored event; `values` without reminders leaves the local reminders alone. */
    async update(
      id: number,
      values: Omit<EventValues, 'reminders' | 'calendarId'> & { reminders?: EventValues['reminders'] },
      external: ExternalColumns,
      now: string,
    ): Promise<void> {
      await db
        .updateTable('events')
        .set({ ...toColumns(values), ...external, updatedAt: now })
        .where('id', '=', id)
        .execute();
    },

    /** Only the provider bookkeeping (an unchanged event with a new etag, or a push-back answer). */
    async setExternal(id: number, external: ExternalColumns): Promise<void> {
      await db.updateTable('events').set(external).where('id', '=', id).execute();
    },

    async setRecurrence(
      id: number,
      recurrence: string[] | null,
      occursUntil: string | null,
      now: string,
    ): Promise<void> {
      await db
        .updateTable('events')
        .set({ ...toColumns({ recurrence }), occursUntil, updatedAt: now })
        .where('id', '=', id)
        .execute();
    },

    async deleteMany(ids: readonly number[]): Promise<void> {
      for (const part of chunks(ids, IN_CHUNK))
        await db.deleteFrom('events').where('id', 'in', part).execute();
    },
  };
}
