import type { Dialect, Executor } from '../../db/database.js';
import type { StoredResourceType } from '../resource-types/service.js';
import { type Bookable, lookbackOf } from './bookables.js';
import type { AvailabilityContext } from './context.js';
import { withDailyCaps } from './daily-caps.js';
import type { Interval } from './engine.js';
import { type CatalogueRow, managerBusy } from './repo.js';
import { disjointSpans, NO_SPANS, type Spans } from './spans.js';

/**
 * The time of the reservation being moved (lane and epoch ms): it does not block its own
 * move. Kept time never overlaps on a lane, so it is the one busy interval there equal to it.
 */
export interface IgnoredTime {
  laneId: number;
  start: number;
  end: number;
}

/** `busy` without the ignored reservation's interval. */
export function withoutIgnored(busy: Map<number, Spans>, ignore: IgnoredTime | undefined) {
  const lane = ignore && busy.get(ignore.laneId);
  if (!lane) return busy;
  for (let k = 0; k < lane.length; k += 2) {
    if (lane[k] === ignore.start && lane[k + 1] === ignore.end) {
      const rest = new Float64Array(lane.length - 2);
      rest.set(lane.subarray(0, k));
      rest.set(lane.subarray(k + 2), k);
      busy.set(ignore.laneId, rest);
      break;
    }
  }
  return busy;
}

/**
 * Adds the busy time of managers to the lanes of the resources that block on their
 * manager's calendars (issue 26): every lane of such a resource is taken while its
 * manager has an opaque event. Read through `executor` only when one of `bookables` does.
 * The spans join the lane's reservations, so the engine counts them the same way
 * (buffers included) and answers show them as taken, nothing more. `busy` may still be
 * on its way: on PostgreSQL the two reads then run side by side, on two connections.
 */
export async function withManagerBusy(
  executor: Executor,
  dialect: Dialect,
  rows: readonly CatalogueRow[],
  bookables: readonly Bookable[],
  reading: Map<number, Spans> | Promise<Map<number, Spans>>,
  range: Interval,
): Promise<Map<number, Spans>> {
  const byId = new Map(rows.map((row) => [row.id, row]));
  const blocking: Array<{ bookable: Bookable; managerId: number }> = [];
  for (const bookable of bookables) {
    const row = byId.get(bookable.resourceId);
    if (row?.blockOnManagerCalendars && row.managedById !== null)
      blocking.push({ bookable, managerId: row.managedById });
  }
  if (blocking.length === 0) return reading;
  const [busy, byManager] = await Promise.all([
    reading,
    managerBusy(
      executor,
      dialect,
      blocking.map((b) => b.managerId),
      range,
    ),
  ]);
  for (const { bookable, managerId } of blocking) {
    const taken = byManager.get(managerId);
    if (!taken) continue;
    for (const laneId of bookable.laneIds)
      busy.set(laneId, disjointSpans(busy.get(laneId) ?? NO_SPANS, taken));
  }
  return busy;
}

/**
 * What takes the time of `bookables`' lanes in `widened`: their reservations (by lane), their
 * managers' busy time, the days their daily caps are reached (organisation-local, in
 * `timezone`), and `keptUntil`, until when the reservations read hold (see `busyByLane`).
 */
export async function busyOfBookables(
  { db, repo }: AvailabilityContext,
  rows: readonly CatalogueRow[],
  bookables: readonly Bookable[],
  widened: Interval,
  type: StoredResourceType,
  nowMs: number,
  timezone: string,
): Promise<{ busy: Map<number, Spans>; keptUntil: number }> {
  const reading = repo.busyByLane(
    bookables.flatMap((b) => b.laneIds),
    widened,
    lookbackOf(type),
    db.dialect,
    nowMs,
  );
  const busy = await withManagerBusy(
    db.kysely,
    db.dialect,
    rows,
    bookables,
    reading.then((read) => read.byLane),
    widened,
  );
  await withDailyCaps(db.kysely, rows, bookables, busy, { ...widened, timezone, nowMs });
  const { keptUntil } = await reading;
  return { busy, keptUntil };
}
