import type { Executor } from '../../db/database.js';
import { reservationsKeepingTimeAt } from '../reservations/ports.js';
import type { Interval } from './engine.js';

/** A reservation taking a lane's time, as an explanation names it: its kind, never its customer. */
export interface TakenTime {
  id: number;
  laneId: number;
  held: boolean;
  start: number;
  end: number;
}

/**
 * The reservations keeping their time at `nowMs` on these lanes that overlap `range`, one
 * row each (an explanation covers a request, not a month: few rows, and their status tells
 * a hold from a booking). As availability's read, none is longer than `lookbackMs`.
 */
export async function takenTimes(
  db: Executor,
  laneIds: readonly number[],
  range: Interval,
  lookbackMs: number,
  nowMs: number,
): Promise<TakenTime[]> {
  if (laneIds.length === 0) return [];
  const rows = await db
    .selectFrom(reservationsKeepingTimeAt(db, new Date(nowMs).toISOString()).as('kept'))
    .select(['kept.id', 'kept.resourceId', 'kept.status', 'kept.startTime', 'kept.endTime'])
    .where('kept.resourceId', 'in', [...laneIds])
    .where('kept.startTime', '>', new Date(range.start - lookbackMs).toISOString())
    .where('kept.startTime', '<', new Date(range.end).toISOString())
    .where('kept.endTime', '>', new Date(range.start).toISOString())
    .orderBy('kept.startTime')
    .execute();
  return rows.map((row) => ({
    id: row.id,
    laneId: row.resourceId!,
    held: row.status === 'held',
    start: Date.parse(row.startTime),
    end: Date.parse(row.endTime),
  }));
}
