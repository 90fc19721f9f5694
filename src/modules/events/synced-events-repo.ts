import type { Executor } from '../../db/database.js';
import { chunks } from '../../lib/chunks.js';
import { recurrenceColumn, toColumns } from './event-row.js';
import { createEventRecordsRepo } from './records-repo.js';
import type { EventValues, ExternalColumns, SyncedEventRow } from './schemas.js';

/** SQLite binds at most 32766 parameters; events have 17 columns. */
const INSERT_CHUNK = 500;
const IN_CHUNK = 500;

/**
 * The events calendar sync mirrors from a provider, found by the provider's ids and
 * written in bulk, in whatever transaction the sync holds (`db`).
 */
export function createSyncedEventRepo(db: Executor) {
  return {
    findById: (id: number) => createEventRecordsRepo(db).findById(id),

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

export type SyncedEventRepo = ReturnType<typeof createSyncedEventRepo>;
