import { type RawBuilder, type SqlBool, sql } from 'kysely';
import type { Dialect, Executor } from '../../db/database.js';
import { afterNullableKey, decodeNullableKey, encodeNullableKey } from '../../db/keyset.js';
import { resourceAndLanes } from '../resources/ports.js';
import { toReservation } from './reservation-row.js';
import { EXPIRING_STATUSES, keepsTimeAt, lapsedAt } from './reservation-time.js';
import type { ListReservationsQuery, Reservation } from './schemas.js';

/**
 * `column` contains `text`: letters A-Z in any case, every other character as written, the
 * same answer on both dialects (PostgreSQL's lower() under the "C" collation folds only A-Z,
 * as SQLite's lower() does, whatever the database's locale).
 */
function containsFoldingAscii(dialect: Dialect, column: string, text: string): RawBuilder<SqlBool> {
  const pattern = `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
  const folded = (value: RawBuilder<unknown>) =>
    dialect === 'postgres' ? sql`lower(cast(${value} as text) collate "C")` : sql`lower(${value})`;
  return sql<SqlBool>`${folded(sql.ref(column))} like ${folded(sql.val(pattern))} escape '\\'`;
}

/** Reading reservations: one by id or manage link, and pages of them. */
export function createReservationReadsRepo(db: Executor, dialect: Dialect) {
  return {
    /** One reservation, read through `executor` (inside a booking's transaction on SQLite). */
    async findThrough(
      executor: Executor,
      organisationId: number,
      id: number,
    ): Promise<Reservation | undefined> {
      const row = await executor
        .selectFrom('reservations')
        .selectAll()
        .where('organisationId', '=', organisationId)
        .where('id', '=', id)
        .where('partOf', 'is', null)
        .executeTakeFirst();
      return row && toReservation(row);
    },

    async find(organisationId: number, id: number): Promise<Reservation | undefined> {
      const row = await db
        .selectFrom('reservations')
        .selectAll()
        .where('organisationId', '=', organisationId)
        .where('id', '=', id)
        .where('partOf', 'is', null)
        .executeTakeFirst();
      return row && toReservation(row);
    },

    /** One page in (startTime, id) order. */
    async list(organisationId: number, query: ListReservationsQuery) {
      let q = db
        .selectFrom('reservations')
        .selectAll()
        .where('organisationId', '=', organisationId)
        .where('partOf', 'is', null);
      if (query.resourceId !== undefined) {
        // The rows on the resource's lanes, each as the reservation it keeps time for: a collective
        // reservation is the resource's too when one of its parts is on it. One `id in` keeps the
        // read to those rows (an `or` of two would scan the organisation's reservations).
        const onLanes = db
          .selectFrom('reservations as onLane')
          .select((eb) => eb.fn.coalesce('onLane.partOf', 'onLane.id').as('id'))
          .where('onLane.resourceId', 'in', resourceAndLanes(db, query.resourceId));
        q = q.where('id', 'in', onLanes);
      }
      if (query.resourceTypeId !== undefined) q = q.where('resourceTypeId', '=', query.resourceTypeId);
      if (query.attendance !== undefined) q = q.where('attendance', '=', query.attendance);
      if (query.status?.length) {
        // Statuses as callers see them now: a lapsed hold is `expired`, no longer `held`.
        const now = new Date().toISOString();
        const statuses = query.status;
        q = q.where((eb) =>
          eb.or(
            statuses.map((status) => {
              if (status === 'expired') return eb.or([eb('status', '=', 'expired'), lapsedAt(now)]);
              if ((EXPIRING_STATUSES as readonly string[]).includes(status))
                return eb.and([eb('status', '=', status), keepsTimeAt(now)]);
              return eb('status', '=', status);
            }),
          ),
        );
      }
      if (query.q !== undefined) {
        const text = query.q;
        q = q.where((eb) =>
          eb.or(
            (['customerName', 'customerEmail', 'reference'] as const).map((column) =>
              containsFoldingAscii(dialect, column, text),
            ),
          ),
        );
      }
      if (query.from !== undefined) q = q.where('endTime', '>', new Date(query.from).toISOString());
      if (query.to !== undefined) q = q.where('startTime', '<', new Date(query.to).toISOString());
      if (query.cursor !== undefined)
        q = q.where(afterNullableKey('startTime', decodeNullableKey(query.cursor)));
      const rows = await q
        .orderBy('startTime')
        .orderBy('id')
        .limit(query.limit + 1)
        .execute();
      const items = rows.slice(0, query.limit).map(toReservation);
      const last = items[items.length - 1];
      return {
        items,
        nextCursor: rows.length > query.limit && last ? encodeNullableKey(last.startTime, last.id) : null,
      };
    },

    /** The reservation a customer's manage link names, by its token's hash, with its organisation and stored hash. */
    async findByManageTokenHash(
      tokenHash: string,
    ): Promise<{ organisationId: number; manageTokenHash: string; reservation: Reservation } | undefined> {
      const row = await db
        .selectFrom('reservations')
        .selectAll()
        .where('manageTokenHash', '=', tokenHash)
        .executeTakeFirst();
      if (!row?.manageTokenHash) return undefined;
      return {
        organisationId: row.organisationId,
        manageTokenHash: row.manageTokenHash,
        reservation: toReservation(row),
      };
    },

    /** One reservation by id, whatever its organisation: for the payment flow, which found it already. */
    async findById(id: number): Promise<Reservation | undefined> {
      const row = await db
        .selectFrom('reservations')
        .selectAll()
        .where('id', '=', id)
        .where('partOf', 'is', null)
        .executeTakeFirst();
      return row && toReservation(row);
    },
  };
}

export type ReservationReadsRepo = ReturnType<typeof createReservationReadsRepo>;
