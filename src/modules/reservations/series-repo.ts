import type { Generated } from 'kysely';
import type { Executor } from '../../db/database.js';
import { toReservation } from './reservation-row.js';
import type { Reservation } from './schemas.js';

/** A recurring series (migration 0026): its rule and first occurrence; the occurrences are reservations. */
export interface ReservationSeriesTable {
  id: Generated<number>;
  organisationId: number;
  resourceTypeId: number;
  /** The RFC 5545 lines as the request gave them, as JSON text. */
  recurrence: string;
  startTime: string;
  endTime: string;
  createdByUserId: number | null;
  createdAt: string;
}

/** A series as the service reads it. */
export interface StoredSeries {
  id: number;
  organisationId: number;
  resourceTypeId: number;
  recurrence: string[];
  createdByUserId: number | null;
}

/** The queries of recurring series (series.ts). */
export function createSeriesRepo(db: Executor) {
  return {
    /** A new series, through `executor` (the transaction that books its occurrences). */
    async insert(
      executor: Executor,
      values: Omit<StoredSeries, 'id'> & { startTime: string; endTime: string },
      now: string,
    ): Promise<number> {
      const row = await executor
        .insertInto('reservationSeries')
        .values({ ...values, recurrence: JSON.stringify(values.recurrence), createdAt: now })
        .returning('id')
        .executeTakeFirstOrThrow();
      return row.id;
    },

    async find(organisationId: number, id: number): Promise<StoredSeries | undefined> {
      const row = await db
        .selectFrom('reservationSeries')
        .select(['id', 'organisationId', 'resourceTypeId', 'recurrence', 'createdByUserId'])
        .where('organisationId', '=', organisationId)
        .where('id', '=', id)
        .executeTakeFirst();
      return row && { ...row, recurrence: JSON.parse(row.recurrence) as string[] };
    },

    /** A series' occurrences, by start time. */
    async occurrences(organisationId: number, seriesId: number): Promise<Reservation[]> {
      const rows = await db
        .selectFrom('reservations')
        .selectAll()
        .where('seriesId', '=', seriesId)
        .where('organisationId', '=', organisationId)
        .orderBy('startTime')
        .orderBy('id')
        .execute();
      return rows.map((row) => toReservation(row));
    },
  };
}
