import { type Selectable, sql } from 'kysely';
import { compiledOnce, type Dialect, type Executor } from '../../db/database.js';
import { afterNullableKey, decodeNullableKey, encodeNullableKey } from '../../db/keyset.js';
import type { ReservationSource, ReservationStatus, ReservationsTable } from '../../db/tables/resources.js';
import type { Customer, ListReservationsQuery, Reservation } from './schemas.js';

export function toReservation(row: Selectable<ReservationsTable>): Reservation {
  const info = JSON.parse(row.customerInfo) as Record<string, string>;
  return {
    id: row.id,
    resourceTypeId: row.resourceTypeId,
    resourceId: row.resourceId,
    status: row.status,
    startTime: row.startTime,
    endTime: row.endTime,
    customer: {
      name: row.customerName,
      email: row.customerEmail,
      ...(row.customerPhone ? { phone: row.customerPhone } : {}),
      ...info,
    },
    notes: row.notes,
    priceAmount: row.priceAmount,
    priceCurrency: row.priceCurrency,
    source: row.source,
    createdByUserId: row.createdByUserId,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
    cancelledAt: row.cancelledAt,
  };
}

export interface NewReservation {
  organisationId: number;
  resourceTypeId: number;
  resourceId: number;
  status: ReservationStatus;
  startTime: string;
  endTime: string;
  /** The end plus the buffer the reservation keeps after it on its lane. */
  blockedUntil: string;
  customer: Customer;
  notes: string | null;
  priceAmount: number | null;
  priceCurrency: string | null;
  source: ReservationSource;
  createdByUserId: number | null;
}

/**
 * PostgreSQL's answers when the exclusion constraint refuses overlapping time on a lane:
 * a violation, or (should two inserts ever wait on each other's uncommitted row) a
 * deadlock that aborts one of them, whose lane the other then holds.
 */
const LANE_REFUSED = new Set(['23P01', '40P01']);

/** The first key of the per-lane advisory locks (the second is the lane id): "lane". */
const LANE_LOCKS = 0x6c616e65;

export function createReservationRepo(db: Executor, dialect: Dialect) {
  // Every booking's write, built and compiled once. It inserts only while the lane's row
  // is as the booking read it (same updatedAt): a lane deleted, deactivated, moved or
  // given lanes since then inserts nothing. On PostgreSQL the lane row is share-locked for
  // this one statement, so a catalogue change in flight finishes first and is seen.
  const lane = db
    .selectFrom('resources')
    .select((eb) => [
      eb.val(0).as('organisationId'),
      eb.val(0).as('resourceTypeId'),
      eb.val(0).as('resourceId'),
      eb.val<ReservationStatus>('confirmed').as('status'),
      eb.val('').as('startTime'),
      eb.val('').as('endTime'),
      eb.val('').as('blockedUntil'),
      eb.val('').as('customerName'),
      eb.val('').as('customerEmail'),
      eb.val<string | null>(null).as('customerPhone'),
      eb.val('').as('customerInfo'),
      eb.val<string | null>(null).as('notes'),
      eb.val<number | null>(null).as('priceAmount'),
      eb.val<string | null>(null).as('priceCurrency'),
      eb.val<ReservationSource>('api').as('source'),
      eb.val<number | null>(null).as('createdByUserId'),
      eb.val('').as('createdAt'),
      eb.val('').as('updatedAt'),
    ])
    .where('id', '=', 0)
    .where('updatedAt', '=', '');
  const insertOnLane = compiledOnce(
    db
      .insertInto('reservations')
      .columns([
        'organisationId',
        'resourceTypeId',
        'resourceId',
        'status',
        'startTime',
        'endTime',
        'blockedUntil',
        'customerName',
        'customerEmail',
        'customerPhone',
        'customerInfo',
        'notes',
        'priceAmount',
        'priceCurrency',
        'source',
        'createdByUserId',
        'createdAt',
        'updatedAt',
      ])
      .expression(
        dialect === 'postgres'
          ? // Two inserts racing for one lane would each find the other's uncommitted row in
            // the exclusion constraint and wait on it: a deadlock, found only after
            // deadlock_timeout (a second). A per-lane lock held to the statement's commit
            // makes the later one wait for the earlier and then be refused at once.
            lane
              .forShare()
              .where(
                sql<boolean>`exists (select from pg_advisory_xact_lock(${sql.lit(LANE_LOCKS)}, resources.id))`,
              )
          : lane,
      )
      .returningAll(),
  );

  return {
    /**
     * Books `values` on its lane, through `executor`, unless the lane's row changed since
     * it read `laneUpdatedAt`, or (PostgreSQL) the lane's time is taken: then undefined.
     */
    async insertOnLane(
      executor: Executor,
      values: NewReservation,
      laneUpdatedAt: string,
      now: string,
    ): Promise<Reservation | undefined> {
      const { name, email, phone, ...info } = values.customer;
      try {
        const { rows } = await insertOnLane(
          executor,
          values.organisationId,
          values.resourceTypeId,
          values.resourceId,
          values.status,
          values.startTime,
          values.endTime,
          values.blockedUntil,
          name,
          email,
          phone ?? null,
          JSON.stringify(info),
          values.notes,
          values.priceAmount,
          values.priceCurrency,
          values.source,
          values.createdByUserId,
          now,
          now,
          values.resourceId,
          laneUpdatedAt,
        );
        return rows[0] && toReservation(rows[0]);
      } catch (error) {
        if (LANE_REFUSED.has((error as { code?: string }).code ?? '')) return undefined;
        throw error;
      }
    },

    async find(organisationId: number, id: number): Promise<Reservation | undefined> {
      const row = await db
        .selectFrom('reservations')
        .selectAll()
        .where('organisationId', '=', organisationId)
        .where('id', '=', id)
        .executeTakeFirst();
      return row && toReservation(row);
    },

    /** One page in (startTime, id) order. */
    async list(organisationId: number, query: ListReservationsQuery) {
      let q = db.selectFrom('reservations').selectAll().where('organisationId', '=', organisationId);
      if (query.resourceId !== undefined) {
        const resourceId = query.resourceId;
        q = q.where('resourceId', 'in', (eb) =>
          eb
            .selectFrom('resources')
            .select('id')
            .where((w) => w.or([w('id', '=', resourceId), w('parentResourceId', '=', resourceId)])),
        );
      }
      if (query.resourceTypeId !== undefined) q = q.where('resourceTypeId', '=', query.resourceTypeId);
      if (query.status !== undefined) q = q.where('status', '=', query.status);
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

    async cancel(id: number, now: string): Promise<Reservation | undefined> {
      const row = await db
        .updateTable('reservations')
        .set({ status: 'cancelled', cancelledAt: now, updatedAt: now })
        .where('id', '=', id)
        .where('status', '!=', 'cancelled')
        .returningAll()
        .executeTakeFirst();
      return row && toReservation(row);
    },
  };
}
