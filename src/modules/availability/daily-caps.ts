import type { Executor } from '../../db/database.js';
import { reservationsKeepingTimeAt } from '../reservations/ports.js';
import type { Bookable } from './bookables.js';
import type { IgnoredTime } from './busy-time.js';
import type { Interval } from './engine.js';
import { atLocalMinutes, localDays } from './local-days.js';
import type { CatalogueRow } from './repo.js';
import { disjointSpans, NO_SPANS, type Spans } from './spans.js';

/** What `withDailyCaps` needs of the organisation and the clock, now. */
export const dayOf = (org: { timezone: string }) => ({ timezone: org.timezone, nowMs: Date.now() });

/**
 * Resources' daily caps (`maxBookingsPerDay`, DECISIONS.md "Teams"): a lane that already
 * keeps its cap of bookings starting on an organisation-local day touched by `range` is
 * busy that whole day, so availability stops offering it and a booking finds no room.
 * Each lane counts its own bookings (a capacity resource's lanes carry its cap). The
 * reservation being moved (`ignore`) does not count against its own move. Reads only when
 * one of `bookables` has a cap, through `executor` (a booking's own).
 */
export async function withDailyCaps(
  executor: Executor,
  rows: readonly CatalogueRow[],
  bookables: readonly Bookable[],
  busy: Map<number, Spans>,
  range: Interval & { timezone: string; nowMs: number },
  ignore?: IgnoredTime,
): Promise<Map<number, Spans>> {
  const capOf = new Map<number, number>();
  const byId = new Map(rows.map((row) => [row.id, row]));
  for (const bookable of bookables) {
    const cap = byId.get(bookable.resourceId)?.maxBookingsPerDay;
    if (cap != null) for (const laneId of bookable.laneIds) capOf.set(laneId, cap);
  }
  if (capOf.size === 0) return busy;
  const days = localDays(range, range.timezone).map((day) => [day.toMillis(), atLocalMinutes(day, 1440)]);
  const kept = await reservationsKeepingTimeAt(executor, new Date(range.nowMs).toISOString())
    .where('reservations.resourceId', 'in', [...capOf.keys()])
    .where('reservations.startTime', '>=', new Date(days[0]![0]!).toISOString())
    .where('reservations.startTime', '<', new Date(days.at(-1)![1]!).toISOString())
    .execute();
  const counts = new Map<string, number>();
  for (const row of kept) {
    const start = Date.parse(row.startTime);
    if (ignore && row.resourceId === ignore.laneId && start === ignore.start) continue;
    const day = days.findIndex(([from, to]) => start >= from! && start < to!);
    const key = `${row.resourceId}|${day}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  for (const [key, count] of counts) {
    const [laneId, day] = key.split('|').map(Number) as [number, number];
    if (count < capOf.get(laneId)!) continue;
    busy.set(laneId, disjointSpans(busy.get(laneId) ?? NO_SPANS, new Float64Array(days[day]!)));
  }
  return busy;
}
