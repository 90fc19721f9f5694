import { type RawBuilder, type SqlBool, sql } from 'kysely';
import type { ReservationStatus } from './tables.js';

/**
 * Which reservations keep their time, in one place for every reader of the reservations
 * table (availability, booking, capacity and archive checks) and for migration 0019's
 * exclusion constraint, which spells the same statuses.
 */

/** Statuses that keep a reservation's time: a hold and an unpaid booking only until `expires_at`. */
export const KEEPING_STATUSES = [
  'held',
  'pending_payment',
  'confirmed',
] as const satisfies readonly ReservationStatus[];
/** Statuses that end by themselves at `expires_at`. */
export const EXPIRING_STATUSES = ['held', 'pending_payment'] as const satisfies readonly ReservationStatus[];

const listed = (statuses: readonly string[]) => sql.raw(statuses.map((s) => `'${s}'`).join(', '));

/**
 * True where the reservation (of `table`, e.g. `reservations` or an alias) keeps its time
 * at `now` (ISO text): a keeping status, and no `expires_at` at or before `now`. The
 * statuses are literals, so `now` is the one parameter (compiled-once queries count them).
 */
export function keepsTimeAt(now: string, table = 'reservations'): RawBuilder<SqlBool> {
  const expiresAt = sql.ref(`${table}.expiresAt`);
  return sql<SqlBool>`(${sql.ref(`${table}.status`)} in (${listed(KEEPING_STATUSES)}) and (${expiresAt} is null or ${expiresAt} > ${now}))`;
}

/** True where a hold or unpaid booking has passed its `expires_at` at `now` but is not yet marked `expired`. */
export function lapsedAt(now: string, table = 'reservations'): RawBuilder<SqlBool> {
  return sql<SqlBool>`(${sql.ref(`${table}.status`)} in (${listed(EXPIRING_STATUSES)}) and ${sql.ref(`${table}.expiresAt`)} <= ${now})`;
}
