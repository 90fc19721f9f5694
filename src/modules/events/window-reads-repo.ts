import type { Executor } from '../../db/database.js';
import type { BusyEventRow } from './busy.js';
import { toEvent } from './event-row.js';
import type { Event } from './schemas.js';

/** The events of calendars in a span of time: a calendar's view, its feed, the busy read of free/busy. */
export function createWindowReadsRepo(db: Executor) {
  return {
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
  };
}

export type WindowReadsRepo = ReturnType<typeof createWindowReadsRepo>;
