import { sql } from 'kysely';
import type { Dialect, Executor } from '../../db/database.js';
import { calendarNames } from '../calendars/ports.js';
import { type BusyEventRow, busySpans } from '../events/busy.js';
import { eventsTakingTime } from '../events/ports.js';
import { reservationsKeepingTimeAt } from '../reservations/ports.js';
import type { Interval } from './engine.js';
import { disjointSpans, NO_SPANS, type Spans } from './spans.js';
import { aggregatedTimes, spansFrom, spansOf } from './stored-times.js';

/** What takes the lanes' time in availability's answers: the reservations on them. */
export function createBusyRepo(db: Executor) {
  return {
    /**
     * Reservations keeping their time at `nowMs` on these lanes overlapping `range`, as
     * intervals by lane, read as one aggregated row per lane: building a row object per
     * reservation was half the cost of an answer. No reservation is longer than
     * `lookbackMs`, so none starting earlier than that before the range can reach into it:
     * the index range scan stops there. `keptUntil` is the earliest expiry of a hold among
     * them (Infinity for none): what was read is true only until then.
     */
    async busyByLane(
      laneIds: number[],
      range: Interval,
      lookbackMs: number,
      dialect: Dialect,
      nowMs: number,
    ): Promise<{ byLane: Map<number, Spans>; keptUntil: number }> {
      const byLane = new Map<number, Spans>(laneIds.map((id) => [id, NO_SPANS]));
      let keptUntil = Number.POSITIVE_INFINITY;
      if (laneIds.length === 0) return { byLane, keptUntil };
      const rows = await db
        .selectFrom(reservationsKeepingTimeAt(db, new Date(nowMs).toISOString()).as('kept'))
        .select((eb) => [
          'kept.resourceId',
          aggregatedTimes(dialect, 'kept').as('times'),
          eb.fn.min('kept.expiresAt').as('firstExpiry'),
        ])
        .where('kept.resourceId', 'in', laneIds)
        .where('kept.startTime', '>', new Date(range.start - lookbackMs).toISOString())
        .where('kept.startTime', '<', new Date(range.end).toISOString())
        .where('kept.endTime', '>', new Date(range.start).toISOString())
        .groupBy('kept.resourceId')
        .execute();
      for (const row of rows) {
        byLane.set(row.resourceId!, spansOf(row.times!));
        if (row.firstExpiry) keptUntil = Math.min(keptUntil, Date.parse(row.firstExpiry));
      }
      return { byLane, keptUntil };
    },
  };
}

export type BusyRepo = ReturnType<typeof createBusyRepo>;

/**
 * Busy time of managers (issue 26): the opaque events of every calendar these people own
 * that may overlap `range`, as spans by person (by start, disjoint), read through
 * `executor` (a booking's own). Mirrors of reservations (events with a booking
 * reservation) are left out: the reservation already takes its time. Only times are read
 * and answered, never what the events are. Single events, nearly all of them, come
 * aggregated into one text per person, unordered (sorted in memory), as a lane's reservations do
 * (a row object per event was the larger part of an answer's cost); recurring ones as rows,
 * expanded in memory. Each half reads its own partial index of opaque, unmirrored events:
 * single ones by calendar and end (migration 0043: the events ending after the range's
 * start, not a calendar's whole history), recurring ones by calendar and start (0037).
 */
export async function managerBusy(
  executor: Executor,
  dialect: Dialect,
  ownerIds: readonly number[],
  range: Interval,
): Promise<Map<number, Spans>> {
  const byOwner = new Map<number, Spans>();
  if (ownerIds.length === 0) return byOwner;
  const rows = await busyEventRows(executor, dialect, ownerIds, range);
  const single = new Map<number, Spans>();
  const recurring = new Map<number, BusyEventRow[]>();
  for (const row of rows) {
    if (row.times !== null) single.set(row.ownerId, spansOf(row.times));
    else if (row.recurrence !== null) {
      const event = row as BusyEventRow;
      const list = recurring.get(row.ownerId);
      if (list) list.push(event);
      else recurring.set(row.ownerId, [event]);
    }
  }
  for (const ownerId of new Set([...single.keys(), ...recurring.keys()])) {
    const series = recurring.get(ownerId);
    // Merged once per person here, not once per lane of each of their resources by the engine.
    const spans = disjointSpans(
      single.get(ownerId) ?? NO_SPANS,
      series ? spansFrom(busySpans(series, range.start, range.end)) : NO_SPANS,
    );
    if (spans.length > 0) byOwner.set(ownerId, spans);
  }
  return byOwner;
}

/**
 * The opaque, unmirrored events of the calendars `ownerIds` own that may overlap `range`
 * (see `managerBusy`): single ones aggregated into one row per owner, recurring ones a row each.
 */
function busyEventRows(executor: Executor, dialect: Dialect, ownerIds: readonly number[], range: Interval) {
  const from = new Date(range.start).toISOString();
  const busyEvents = () =>
    executor
      .selectFrom(eventsTakingTime(executor).as('busy'))
      .innerJoin(calendarNames(executor).as('calendar'), 'calendar.id', 'busy.calendarId')
      .where('calendar.ownerId', 'in', [...new Set(ownerIds)])
      .where('busy.startTime', '<', new Date(range.end).toISOString());
  return busyEvents()
    .select([
      'calendar.ownerId',
      aggregatedTimes(dialect, 'busy').as('times'),
      sql<string | null>`null`.as('startTime'),
      sql<string | null>`null`.as('endTime'),
      sql<boolean | number | null>`null`.as('allDay'),
      sql<string | null>`null`.as('timezone'),
      sql<string | null>`null`.as('recurrence'),
      sql<string | null>`null`.as('occursUntil'),
    ])
    .where('busy.recurrence', 'is', null)
    .where('busy.endTime', '>', from)
    .groupBy('calendar.ownerId')
    .unionAll(
      busyEvents()
        .select([
          'calendar.ownerId',
          sql<string | null>`null`.as('times'),
          'busy.startTime',
          'busy.endTime',
          'busy.allDay',
          'busy.timezone',
          'busy.recurrence',
          'busy.occursUntil',
        ])
        .where('busy.recurrence', 'is not', null)
        .where((eb) => eb.or([eb('busy.occursUntil', 'is', null), eb('busy.occursUntil', '>', from)])),
    )
    .execute();
}
