// Daily caps (issue 52, DECISIONS.md "Teams": a resource's `maxBookingsPerDay`; availability stops
// offering it at its cap), written for the reference apart from the service's code: not part of
// the frozen pre-issue-14 copy beside it, which knew no caps. Plain and slow on purpose: every
// reservation of the capped lanes read, grouped by the organisation-local day it starts on.
import { DateTime } from 'luxon';
import type { Db } from '../../../../src/db/database.js';
import type { Interval } from './engine.js';

/** Statuses that keep a reservation's time (a hold and an unpaid booking only until `expiresAt`). */
const KEEPING = ['held', 'pending_payment', 'confirmed'];

/**
 * `busy` with, for every lane of a capped resource (`caps`: lane id to its resource's cap), each
 * organisation-local day on which it already keeps its cap of bookings starting that day added
 * as busy from that day's midnight to the next.
 */
export async function withCapDays(
  db: Db,
  busy: Map<number, Interval[]>,
  caps: Map<number, number>,
  zone: string,
): Promise<Map<number, Interval[]>> {
  if (caps.size === 0) return busy;
  const now = Date.now();
  const rows = await db.kysely
    .selectFrom('reservations')
    .select(['resourceId', 'startTime', 'status', 'expiresAt'])
    .where('resourceId', 'in', [...caps.keys()])
    .execute();
  const perDay = new Map<string, number>();
  for (const row of rows) {
    if (!KEEPING.includes(row.status)) continue;
    if (row.expiresAt !== null && Date.parse(row.expiresAt) <= now) continue;
    const day = DateTime.fromMillis(Date.parse(row.startTime), { zone }).startOf('day').toMillis();
    const key = `${row.resourceId} ${day}`;
    perDay.set(key, (perDay.get(key) ?? 0) + 1);
  }
  for (const [key, count] of perDay) {
    const [lane, day] = key.split(' ').map(Number) as [number, number];
    if (count < caps.get(lane)!) continue;
    const end = DateTime.fromMillis(day, { zone }).plus({ days: 1 }).toMillis();
    busy.set(lane, [...(busy.get(lane) ?? []), { start: day, end }]);
  }
  return busy;
}
