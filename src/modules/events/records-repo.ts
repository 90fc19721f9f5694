import type { Executor } from '../../db/database.js';
import { externalColumns, recurrenceColumn, toColumns, toEvent } from './event-row.js';
import type { Event, EventValues, ExternalRef } from './schemas.js';

/** An event's own row: written, found by its id or its provider id, changed, deleted. */
export function createEventRecordsRepo(db: Executor) {
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

export type EventRecordsRepo = ReturnType<typeof createEventRecordsRepo>;
