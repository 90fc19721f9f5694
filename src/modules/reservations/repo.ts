import { type Selectable, sql } from 'kysely';
import { compiledOnce, type Dialect, type Executor } from '../../db/database.js';
import { afterNullableKey, decodeNullableKey, encodeNullableKey } from '../../db/keyset.js';
import { EXPIRING_STATUSES, keepsTimeAt, lapsedAt } from '../../db/reservation-time.js';
import type { ReservationSource, ReservationStatus, ReservationsTable } from '../../db/tables/resources.js';
import type { Customer, ListReservationsQuery, Reservation } from './schemas.js';

/** Whether a row's hold (or unpaid booking) has passed its expiry at `nowMs`, marked or not. */
const lapsed = (row: Pick<Selectable<ReservationsTable>, 'expiresAt'>, nowMs: number) =>
  row.expiresAt !== null && Date.parse(row.expiresAt) <= nowMs;

/**
 * A row as callers see it at `nowMs`: a hold past its expiry is `expired` at once, as it
 * no longer keeps its time, whether or not the expiry job has marked it yet.
 */
export function toReservation(row: Selectable<ReservationsTable>, nowMs = Date.now()): Reservation {
  const info = JSON.parse(row.customerInfo) as Record<string, string>;
  const expired = lapsed(row, nowMs);
  return {
    id: row.id,
    resourceTypeId: row.resourceTypeId,
    resourceId: row.resourceId,
    status: expired ? 'expired' : row.status,
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
    rulesOverriddenByUserId: row.rulesOverriddenByUserId,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
    cancelledAt: row.cancelledAt,
    expiresAt: expired ? null : row.expiresAt,
    seriesId: row.seriesId,
    payment: null,
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
  /** The staff member who booked it past the type's booking rules; null when none was broken. */
  rulesOverriddenByUserId: number | null;
  /** Set for a hold or an unpaid booking: when it stops keeping its time. */
  expiresAt: string | null;
}

/**
 * PostgreSQL's answers when the exclusion constraint refuses overlapping time on a lane:
 * a violation, or (should two inserts ever wait on each other's uncommitted row) a
 * deadlock that aborts one of them, whose lane the other then holds.
 */
const LANE_REFUSED = new Set(['23P01', '40P01']);

/** The first key of the per-lane advisory locks (the second is the lane id): "lane". */
const LANE_LOCKS = 0x6c616e65;
/** The first key of the per-(type, customer) advisory locks of the daily limit: "cust". */
const CUSTOMER_LOCKS = 0x63757374;

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
      eb.val<number | null>(null).as('rulesOverriddenByUserId'),
      eb.val<string | null>(null).as('expiresAt'),
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
        'rulesOverriddenByUserId',
        'expiresAt',
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
  // A booking's sweep of the lane it takes (see `expireLapsedOnLane`), compiled once too.
  const expireOnLane = compiledOnce(
    db
      .updateTable('reservations')
      // Literals, so the parameters are only now, the lane and now.
      .set({ status: sql.lit('expired'), expiresAt: sql.lit(null), updatedAt: '' })
      .where('resourceId', '=', 0)
      .where(lapsedAt(''))
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
          values.rulesOverriddenByUserId,
          values.expiresAt,
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

    /**
     * Marks `expired` the lane's holds and unpaid bookings whose expiry passed at `now`: a
     * booking does this before (SQLite) or after a refused (PostgreSQL) insert, since
     * PostgreSQL's exclusion constraint cannot see the clock and refuses time a lapsed hold
     * still has. Answers what it marked.
     */
    async expireLapsedOnLane(executor: Executor, laneId: number, now: string): Promise<Reservation[]> {
      const { rows } = await expireOnLane(executor, now, laneId, now);
      return rows.map((row) => toReservation(row));
    },

    /**
     * Marks `expired` up to `limit` holds and unpaid bookings whose expiry passed at `now`,
     * oldest first, and answers them. Idempotent and safe to run on several instances at
     * once: the update re-checks each row, and on PostgreSQL rows another run is marking
     * are skipped rather than waited for, so no row is answered twice.
     */
    async expireLapsed(executor: Executor, now: string, limit: number): Promise<Reservation[]> {
      const rows = await executor
        .updateTable('reservations')
        .set({ status: 'expired', expiresAt: null, updatedAt: now })
        .where('id', 'in', (eb) => {
          const due = eb
            .selectFrom('reservations')
            .select('id')
            .where(lapsedAt(now))
            .orderBy('expiresAt')
            .limit(limit);
          return dialect === 'postgres' ? due.forUpdate().skipLocked() : due;
        })
        .where(lapsedAt(now))
        .returningAll()
        .execute();
      return rows.map((row) => toReservation(row));
    },

    /**
     * Moves a reservation still keeping its time at `now` from one of `from` to `to`: its
     * expiry ends (null), and a cancellation records when. Undefined when it is in another
     * status or has lapsed.
     */
    async transition(
      id: number,
      from: readonly ReservationStatus[],
      to: 'confirmed' | 'cancelled',
      now: string,
      /** The staff member who made this change past the type's booking rules, recorded when given. */
      rulesOverriddenByUserId: number | null = null,
    ): Promise<Reservation | undefined> {
      const row = await db
        .updateTable('reservations')
        .set({
          status: to,
          expiresAt: null,
          updatedAt: now,
          ...(to === 'cancelled' ? { cancelledAt: now } : {}),
          ...(rulesOverriddenByUserId !== null ? { rulesOverriddenByUserId } : {}),
        })
        .where('id', '=', id)
        .where('status', 'in', from)
        .where(keepsTimeAt(now))
        .returningAll()
        .executeTakeFirst();
      return row && toReservation(row, Date.parse(now));
    },

    /**
     * How many reservations of a type keeping their time at `now` start within `day` for
     * `customerEmail`, leaving out `excludeId`: what the daily limit per customer counts.
     * Read through the lanes' (resource, start) index, so it reads one day of the type.
     */
    async countCustomerDay(
      executor: Executor,
      query: {
        organisationId: number;
        resourceTypeId: number;
        customerEmail: string;
        day: { from: string; to: string };
        now: string;
        excludeId?: number | undefined;
      },
    ): Promise<number> {
      let q = executor
        .selectFrom('reservations')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('resourceId', 'in', (eb) =>
          eb
            .selectFrom('resources')
            .select('id')
            .where('organisationId', '=', query.organisationId)
            .where('resourceTypeId', '=', query.resourceTypeId),
        )
        .where('startTime', '>=', query.day.from)
        .where('startTime', '<', query.day.to)
        .where('resourceTypeId', '=', query.resourceTypeId)
        .where('customerEmail', '=', query.customerEmail)
        .where(keepsTimeAt(query.now));
      if (query.excludeId !== undefined) q = q.where('id', '!=', query.excludeId);
      const { n } = await q.executeTakeFirstOrThrow();
      return Number(n);
    },

    /**
     * Runs `work` so that writes of one customer on one type count and insert one after
     * the other (the daily limit). PostgreSQL: on one connection holding a session
     * advisory lock on the pair, each statement still committing by itself, so the lane's
     * exclusion constraint works as in every booking. SQLite already books in one
     * transaction on its only connection: `work` runs on `executor`.
     */
    async oneCustomerAtATime<T>(
      executor: Executor,
      resourceTypeId: number,
      customerEmail: string,
      work: (executor: Executor) => Promise<T>,
    ): Promise<T> {
      if (dialect !== 'postgres' || executor.isTransaction) return work(executor);
      const key = sql`${sql.lit(CUSTOMER_LOCKS)}, hashtext(${`${resourceTypeId}:${customerEmail}`})`;
      return executor.connection().execute(async (pinned) => {
        await sql`select pg_advisory_lock(${key})`.execute(pinned);
        try {
          return await work(pinned);
        } finally {
          await sql`select pg_advisory_unlock(${key})`.execute(pinned);
        }
      });
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
      if (query.status !== undefined) {
        // Statuses as callers see them now: a lapsed hold is `expired`, no longer `held`.
        const now = new Date().toISOString();
        const status = query.status;
        if (status === 'expired') q = q.where((eb) => eb.or([eb('status', '=', 'expired'), lapsedAt(now)]));
        else if ((EXPIRING_STATUSES as readonly string[]).includes(status))
          q = q.where('status', '=', status).where(keepsTimeAt(now));
        else q = q.where('status', '=', status);
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
  };
}
