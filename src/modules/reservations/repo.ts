import { type Generated, type RawBuilder, type Selectable, type SqlBool, sql } from 'kysely';
import {
  committedWithOthers,
  compiledOnce,
  type Dialect,
  type Executor,
  inTransaction,
} from '../../db/database.js';
import { isUniqueViolation } from '../../db/errors.js';
import { afterNullableKey, decodeNullableKey, encodeNullableKey } from '../../db/keyset.js';
import { EXPIRING_STATUSES, keepsTimeAt, lapsedAt } from '../../db/reservation-time.js';
import type {
  PaymentStatus,
  ReservationSource,
  ReservationStatus,
  ReservationsTable,
} from '../../db/tables/resources.js';
import { customerRecordOf, storedCustomerInfo } from './answers.js';
import { newReference } from './reference.js';
import type { Customer, ListReservationsQuery, Reservation, ReservationPayment } from './schemas.js';

/** Whether a row's hold (or unpaid booking) has passed its expiry at `nowMs`, marked or not. */
const lapsed = (row: Pick<Selectable<ReservationsTable>, 'expiresAt'>, nowMs: number) =>
  row.expiresAt !== null && Date.parse(row.expiresAt) <= nowMs;

/**
 * A row as callers see it at `nowMs`: a hold past its expiry is `expired` at once, as it
 * no longer keeps its time, whether or not the expiry job has marked it yet.
 */
export function toReservation(row: Selectable<ReservationsTable>, nowMs = Date.now()): Reservation {
  const expired = lapsed(row, nowMs);
  return {
    id: row.id,
    reference: row.reference,
    resourceTypeId: row.resourceTypeId,
    resourceId: row.resourceId,
    status: expired ? 'expired' : row.status,
    startTime: row.startTime,
    endTime: row.endTime,
    customer: customerRecordOf(row),
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
    payment: paymentOf(row, expired ? 'expired' : row.status),
  };
}

/**
 * The record of a reservation event (outbox module): the row its trigger stored (JSON,
 * snake_case; PostgreSQL leaves out null columns, outbox migration 0040, and writes
 * timestamps with an offset) as callers saw it when the event occurred, by the one mapper
 * every answer goes through. Each column by name into a row of one shape: every consumer
 * maps every event it reads, and a row built key by key from the JSON cost a drain more
 * than the rest of its reading.
 */
export function reservationOfStoredRow(stored: unknown, occurredAt: string): Reservation {
  const columns = stored as Record<string, unknown>;
  const value = (name: string) => columns[name] ?? null;
  const instant = (name: string) => {
    const found = columns[name];
    // An instant as `toISOString` writes it (SQLite's stored rows) is kept as it is.
    return typeof found === 'string' && !CANONICAL_INSTANT.test(found)
      ? new Date(found).toISOString()
      : (found ?? null);
  };
  const row = {
    id: value('id'),
    organisationId: value('organisation_id'),
    resourceTypeId: value('resource_type_id'),
    resourceId: value('resource_id'),
    status: value('status'),
    startTime: instant('start_time'),
    endTime: instant('end_time'),
    blockedUntil: instant('blocked_until'),
    customerName: value('customer_name'),
    customerEmail: value('customer_email'),
    customerPhone: value('customer_phone'),
    customerInfo: value('customer_info'),
    notes: value('notes'),
    priceAmount: value('price_amount'),
    priceCurrency: value('price_currency'),
    source: value('source'),
    createdByUserId: value('created_by_user_id'),
    rulesOverriddenByUserId: value('rules_overridden_by_user_id'),
    cancelledAt: instant('cancelled_at'),
    expiresAt: instant('expires_at'),
    seriesId: value('series_id'),
    paymentStatus: value('payment_status'),
    paymentAmount: value('payment_amount'),
    paymentCurrency: value('payment_currency'),
    paymentAccountId: value('payment_account_id'),
    paymentCheckoutId: value('payment_checkout_id'),
    paymentCheckoutUrl: value('payment_checkout_url'),
    paymentExpiresAt: instant('payment_expires_at'),
    paymentId: value('payment_id'),
    paymentRefundId: value('payment_refund_id'),
    manageTokenHash: value('manage_token_hash'),
    // Never stored in an event (migration 0057): read as null.
    manageTokenSealed: value('manage_token_sealed'),
    publicClientHash: value('public_client_hash'),
    // Events stored before migration 0056 have none.
    reference: value('reference'),
    createdAt: instant('created_at'),
    updatedAt: instant('updated_at'),
    // Every column, so a new one is a compile error here until it is mapped.
  } satisfies Record<keyof ReservationsTable, unknown>;
  return toReservation(row as Selectable<ReservationsTable>, Date.parse(occurredAt));
}

/** An instant already as `toISOString` writes it. */
const CANONICAL_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** Payment statuses of a payment that can still be made (its checkout open). */
const PAYABLE = ['requires_payment', 'failed'] as const satisfies readonly PaymentStatus[];

/**
 * A row's payment as callers see it: null until its checkout exists. A payment still
 * payable on a reservation no longer waiting for it (expired by the clock or the job, or
 * cancelled) is `expired`: its checkout closes with the reservation.
 */
function paymentOf(row: Selectable<ReservationsTable>, status: ReservationStatus): ReservationPayment {
  if (row.paymentStatus === null || row.paymentAmount === null || row.paymentCurrency === null) return null;
  const payable = (PAYABLE as readonly PaymentStatus[]).includes(row.paymentStatus);
  return {
    status: payable && status !== 'pending_payment' ? 'expired' : row.paymentStatus,
    amount: row.paymentAmount,
    currency: row.paymentCurrency,
    checkoutUrl: row.paymentCheckoutUrl,
    expiresAt: row.paymentExpiresAt,
  };
}

/** The checkout a paid booking waits on, as payment.ts stores it. */
export interface CheckoutColumns {
  /** Minor units. */
  paymentAmount: number;
  paymentCurrency: string;
  paymentAccountId: string;
  paymentCheckoutId: string;
  paymentCheckoutUrl: string;
  paymentExpiresAt: string;
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
  /** The customer's manage token, hashed, and sealed for its mails (manage-link.ts); the token itself is never stored. */
  manageTokenHash?: string | null;
  manageTokenSealed?: string | null;
  /** A public hold's client address, as a keyed hash; none otherwise. */
  publicClientHash?: string | null;
  /** The recurring series it is an occurrence of; none for a booking standing alone. */
  seriesId?: number | null;
}

/**
 * PostgreSQL's answers when the exclusion constraint refuses overlapping time on a lane:
 * a violation (a move; a booking's insert answers no row instead), or (should two writers
 * in longer transactions ever wait on each other's uncommitted rows) a deadlock that
 * aborts one of them, whose lane the other then holds.
 */
const LANE_REFUSED = new Set(['23P01', '40P01']);

/** Times a booking draws a reference when the one drawn is already given in the organisation. */
const REFERENCE_DRAWS = 3;

/** The exclusion constraint of migration 0019: no two live reservations keep one lane's time. */
const NO_OVERLAP = 'reservations_no_overlap';

/**
 * The first key of the per-lane advisory locks (the second is the lane id): "lane". Only
 * writers that change a row's time or status on a lane take it (a move, late money), so
 * two of them queue rather than deadlock; a booking's insert needs none (`insertOnLane`).
 */
const LANE_LOCKS = 0x6c616e65;
/** The first key of the per-(type, customer) advisory locks of the daily limit: "cust". */
const CUSTOMER_LOCKS = 0x63757374;

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
      eb.val<string | null>(null).as('manageTokenHash'),
      eb.val<string | null>(null).as('manageTokenSealed'),
      eb.val<string | null>(null).as('publicClientHash'),
      eb.val<number | null>(null).as('seriesId'),
      eb.val('').as('reference'),
      eb.val('').as('createdAt'),
      eb.val('').as('updatedAt'),
    ])
    .where('id', '=', 0)
    .where('updatedAt', '=', '');
  const insertOnLane = compiledOnce(() => {
    const insert = db
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
        'manageTokenHash',
        'manageTokenSealed',
        'publicClientHash',
        'seriesId',
        'reference',
        'createdAt',
        'updatedAt',
      ])
      .expression(dialect === 'postgres' ? lane.forShare() : lane);
    // PostgreSQL: the exclusion constraint as the arbiter of a speculative insert. Two plain
    // inserts racing for one lane's time would each find the other's uncommitted row and
    // wait on it: a deadlock, found only after deadlock_timeout (a second). A speculative
    // insert checks before it inserts and waits with nothing inserted, so the later one
    // waits for the earlier and then inserts nothing, at once. Bookings share the lane's row
    // lock; none takes the lane for itself (a lock held to commit would queue every booking
    // of the lane behind the one before it, each commit's flush to disk after the last), so
    // bookings of one lane's different times commit together.
    return (
      dialect === 'postgres' ? insert.onConflict((oc) => oc.constraint(NO_OVERLAP).doNothing()) : insert
    ).returningAll();
  });
  // A booking's sweep of the lane it takes (see `expireLapsedOnLane`), compiled once too.
  const expireOnLane = compiledOnce(() =>
    db
      .updateTable('reservations')
      // Literals, so the parameters are only now, the lane and now.
      .set({ status: sql.lit('expired'), expiresAt: sql.lit(null), updatedAt: '' })
      .where('resourceId', '=', 0)
      .where(lapsedAt(''))
      .returningAll(),
  );

  // A hold's confirm (`confirmUnpaidHold`), compiled once: by anyone, or only by its maker.
  // Literals, so the parameters are only now, the id, the organisation, now (and the maker).
  const confirmHoldBy = (maker: boolean) =>
    compiledOnce(() => {
      const update = db
        .updateTable('reservations')
        .set({ status: sql.lit('confirmed'), expiresAt: sql.lit(null), updatedAt: '' })
        .where('id', '=', 0)
        .where('organisationId', '=', 0)
        .where('status', '=', sql.lit('held'))
        .where(keepsTimeAt(''))
        .where((eb) =>
          eb.not(
            eb.exists(
              eb
                .selectFrom('resourceTypes')
                .select(sql.lit(1).as('one'))
                .whereRef('resourceTypes.id', '=', 'reservations.resourceTypeId')
                .where('resourceTypes.paymentRequired', '=', sql.lit(true)),
            ),
          ),
        );
      return (maker ? update.where('createdByUserId', '=', 0) : update).returningAll();
    });
  const confirmHold = confirmHoldBy(false);
  const confirmOwnHold = confirmHoldBy(true);

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
      const { name, email, phone } = values.customer;
      const info = storedCustomerInfo(values.customer);
      // A reference already given in the organisation (a chance of n in 32^8, about 10^12, with n
      // given) is drawn again where a refused statement leaves the rest standing: not inside a
      // PostgreSQL transaction (a series), which it would abort.
      const mayDrawAgain = dialect === 'sqlite' || !executor.isTransaction;
      for (let draw = 1; ; draw++) {
        try {
          return await insertWithReference(newReference());
        } catch (error) {
          if (LANE_REFUSED.has((error as { code?: string }).code ?? '')) return undefined;
          if (!(mayDrawAgain && draw < REFERENCE_DRAWS && isUniqueViolation(error))) throw error;
        }
      }
      async function insertWithReference(reference: string) {
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
          info,
          values.notes,
          values.priceAmount,
          values.priceCurrency,
          values.source,
          values.createdByUserId,
          values.rulesOverriddenByUserId,
          values.expiresAt,
          values.manageTokenHash ?? null,
          values.manageTokenSealed ?? null,
          values.publicClientHash ?? null,
          values.seriesId ?? null,
          reference,
          now,
          now,
          values.resourceId,
          laneUpdatedAt,
        );
        return rows[0] && toReservation(rows[0]);
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
     * Confirms a hold keeping its time at `now` in one statement, when nothing stands in the
     * way: in the organisation, made by `madeBy` (null: by anyone), of a type that takes no
     * payment. Undefined otherwise, for the caller to read and say why (or take payment).
     */
    async confirmUnpaidHold(
      id: number,
      organisationId: number,
      madeBy: number | null,
      now: string,
    ): Promise<Reservation | undefined> {
      const confirm = (executor: Executor) =>
        madeBy === null
          ? confirmHold(executor, now, id, organisationId, now)
          : confirmOwnHold(executor, now, id, organisationId, now, madeBy);
      const [row] = (await committedWithOthers(db, confirm)).rows;
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

    /**
     * The starts of the customer's reservations of a type keeping their time at `now` that
     * start in [from, to), leaving out `excludeId`: what the daily limit counts, over the
     * range alternatives are offered in (one read).
     */
    async customerStarts(
      executor: Executor,
      query: {
        organisationId: number;
        resourceTypeId: number;
        customerEmail: string;
        from: string;
        to: string;
        now: string;
        excludeId?: number | undefined;
      },
    ): Promise<string[]> {
      let q = executor
        .selectFrom('reservations')
        .select('startTime')
        .where('organisationId', '=', query.organisationId)
        .where('resourceTypeId', '=', query.resourceTypeId)
        .where('customerEmail', '=', query.customerEmail)
        .where('startTime', '>=', query.from)
        .where('startTime', '<', query.to)
        .where(keepsTimeAt(query.now));
      if (query.excludeId !== undefined) q = q.where('id', '!=', query.excludeId);
      return (await q.execute()).map((row) => row.startTime);
    },

    /** How many holds made through the public routes for a customer email or a client are live at `now`. */
    async livePublicHolds(
      organisationId: number,
      by: { customerEmail: string } | { publicClientHash: string },
      now: string,
    ): Promise<number> {
      const row = await db
        .selectFrom('reservations')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('organisationId', '=', organisationId)
        .where((eb) =>
          'customerEmail' in by
            ? eb('customerEmail', '=', by.customerEmail)
            : eb('publicClientHash', '=', by.publicClientHash),
        )
        .where('status', '=', 'held')
        .where('source', 'in', ['public_slug', 'public_token'])
        .where(keepsTimeAt(now))
        .executeTakeFirstOrThrow();
      return Number(row.n);
    },

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
        .executeTakeFirst();
      return row && toReservation(row);
    },

    /**
     * Moves a reservation, through `executor`, from the lane and time it was read at
     * (`from`) to `to`, keeping everything else (status, expiry, payment, series). Only
     * while it still keeps its time at `now` and is where it was read, and only while the
     * new lane's row is as the move read it (`laneUpdatedAt`), as `insertOnLane` guards a
     * booking; on PostgreSQL the lane's row is share-locked as a booking's insert locks it,
     * moves of one lane queue on its advisory lock, and the exclusion constraint refuses the
     * new time when it is taken. Undefined when refused.
     */
    async moveOnLane(
      executor: Executor,
      move: {
        id: number;
        from: { resourceId: number; startTime: string; endTime: string };
        to: { resourceId: number; startTime: string; endTime: string; blockedUntil: string };
        /** The staff member who moved it past the type's booking rules, recorded when given. */
        rulesOverriddenByUserId: number | null;
      },
      laneUpdatedAt: string,
      now: string,
    ): Promise<Reservation | undefined> {
      const lane = executor
        .selectFrom('resources')
        .select(sql.lit(1).as('one'))
        .where('id', '=', move.to.resourceId)
        .where('updatedAt', '=', laneUpdatedAt);
      const guard =
        dialect === 'postgres'
          ? lane
              .forShare()
              .where(
                sql<boolean>`exists (select from pg_advisory_xact_lock(${sql.lit(LANE_LOCKS)}, resources.id))`,
              )
          : lane;
      try {
        const row = await executor
          .updateTable('reservations')
          .set({
            ...move.to,
            updatedAt: now,
            ...(move.rulesOverriddenByUserId !== null
              ? { rulesOverriddenByUserId: move.rulesOverriddenByUserId }
              : {}),
          })
          .where('id', '=', move.id)
          .where('resourceId', '=', move.from.resourceId)
          .where('startTime', '=', move.from.startTime)
          .where('endTime', '=', move.from.endTime)
          .where(keepsTimeAt(now))
          .where((eb) => eb.exists(guard))
          .returningAll()
          .executeTakeFirst();
        return row && toReservation(row, Date.parse(now));
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

    // The payment of paid bookings (payment.ts): each change is conditional on the row's
    // current state, so a repeated or concurrent event finds nothing left to change.

    /** The reservation a checkout was made for, on the connected account `accountId` only. */
    async findByCheckout(
      checkoutId: string,
      accountId: string,
    ): Promise<Selectable<ReservationsTable> | undefined> {
      return db
        .selectFrom('reservations')
        .selectAll()
        .where('paymentCheckoutId', '=', checkoutId)
        .where('paymentAccountId', '=', accountId)
        .executeTakeFirst();
    },

    /** Every reservation a checkout was made for (a paid series' occurrences share one), by id. */
    async findAllByCheckout(checkoutId: string, accountId: string): Promise<Selectable<ReservationsTable>[]> {
      return db
        .selectFrom('reservations')
        .selectAll()
        .where('paymentCheckoutId', '=', checkoutId)
        .where('paymentAccountId', '=', accountId)
        .orderBy('id')
        .execute();
    },

    /** Stores the one checkout of a paid series on each of its occurrences just booked. */
    async attachSeriesCheckout(
      ids: number[],
      checkout: CheckoutColumns,
      now: string,
    ): Promise<Reservation[]> {
      const rows = await db
        .updateTable('reservations')
        .set({ ...checkout, paymentStatus: 'requires_payment', updatedAt: now })
        .where('id', 'in', ids)
        .where('paymentCheckoutId', 'is', null)
        .returningAll()
        .execute();
      return rows
        .map((row) => toReservation(row, Date.parse(now)))
        .sort((a, b) => a.startTime.localeCompare(b.startTime));
    },

    /** Deletes a paid series whose checkout could not be made, as if it was never booked. */
    async discardUnpaidSeries(seriesId: number): Promise<void> {
      await db
        .deleteFrom('reservations')
        .where('seriesId', '=', seriesId)
        .where('status', '=', 'pending_payment')
        .where('paymentCheckoutId', 'is', null)
        .execute();
      await db.deleteFrom('reservationSeries').where('id', '=', seriesId).execute();
    },

    /** One reservation by id, whatever its organisation: for the payment flow, which found it already. */
    async findById(id: number): Promise<Reservation | undefined> {
      const row = await db.selectFrom('reservations').selectAll().where('id', '=', id).executeTakeFirst();
      return row && toReservation(row);
    },

    /** A reservation's stored payment: its status and checkout, or undefined when it has none. */
    async storedPayment(id: number) {
      const row = await db
        .selectFrom('reservations')
        .select(['paymentStatus', 'paymentCheckoutId'])
        .where('id', '=', id)
        .executeTakeFirst();
      return row?.paymentStatus && row.paymentCheckoutId
        ? { status: row.paymentStatus, checkoutId: row.paymentCheckoutId }
        : undefined;
    },

    /** Stores the checkout of a booking just made `pending_payment` (once). */
    async attachCheckout(
      id: number,
      checkout: CheckoutColumns,
      now: string,
    ): Promise<Reservation | undefined> {
      const row = await db
        .updateTable('reservations')
        .set({ ...checkout, paymentStatus: 'requires_payment', updatedAt: now })
        .where('id', '=', id)
        .where('paymentCheckoutId', 'is', null)
        .returningAll()
        .executeTakeFirst();
      return row && toReservation(row, Date.parse(now));
    },

    /** Deletes a booking whose checkout could not be made, as if it was never made: its time is free. */
    async discardUnpaid(id: number): Promise<void> {
      await db
        .deleteFrom('reservations')
        .where('id', '=', id)
        .where('status', '=', 'pending_payment')
        .where('paymentCheckoutId', 'is', null)
        .execute();
    },

    /** A hold still keeping its time at `now` waits for payment on `checkout` until `expiresAt`. */
    async holdToPayment(
      id: number,
      checkout: CheckoutColumns,
      expiresAt: string,
      now: string,
    ): Promise<Reservation | undefined> {
      const row = await db
        .updateTable('reservations')
        .set({
          ...checkout,
          status: 'pending_payment',
          paymentStatus: 'requires_payment',
          expiresAt,
          updatedAt: now,
        })
        .where('id', '=', id)
        .where('status', '=', 'held')
        .where(keepsTimeAt(now))
        .returningAll()
        .executeTakeFirst();
      return row && toReservation(row, Date.parse(now));
    },

    /** Money for a booking still waiting for it at `now`: `confirmed`, paid. */
    async markPaid(id: number, paymentId: string | null, now: string): Promise<Reservation | undefined> {
      const row = await db
        .updateTable('reservations')
        .set({ status: 'confirmed', expiresAt: null, paymentStatus: 'paid', paymentId, updatedAt: now })
        .where('id', '=', id)
        .where('status', '=', 'pending_payment')
        .where('paymentStatus', 'in', PAYABLE)
        .where(keepsTimeAt(now))
        .returningAll()
        .executeTakeFirst();
      return row && toReservation(row, Date.parse(now));
    },

    /** A declined attempt: the booking keeps waiting (and its time) until it expires or is paid. */
    async markFailed(id: number, now: string): Promise<boolean> {
      const row = await db
        .updateTable('reservations')
        .set({ paymentStatus: 'failed', updatedAt: now })
        .where('id', '=', id)
        .where('status', '=', 'pending_payment')
        .where('paymentStatus', '=', 'requires_payment')
        .returning('id')
        .executeTakeFirst();
      return row !== undefined;
    },

    /**
     * The checkout expired unpaid: the payment is `expired`, and a booking still waiting for
     * it becomes `expired` at once, its time free (even before its own expiresAt).
     */
    async expireUnpaid(id: number, now: string): Promise<boolean> {
      const row = await db
        .updateTable('reservations')
        .set({
          status: sql<ReservationStatus>`case when status = 'pending_payment' then 'expired' else status end`,
          expiresAt: null,
          paymentStatus: 'expired',
          updatedAt: now,
        })
        .where('id', '=', id)
        .where('paymentStatus', 'in', PAYABLE)
        .returning('id')
        .executeTakeFirst();
      return row !== undefined;
    },

    /**
     * Late money: a booking that expired unpaid takes its time back, `confirmed` and paid,
     * when nothing else keeps any of it at `now` and it is still ahead; undefined otherwise.
     * PostgreSQL: the lane's advisory lock orders it with moves on the lane, and the
     * exclusion constraint refuses it if its time is taken (a booking's speculative insert
     * waits for it, or backs out of its way). SQLite: one transaction on the only
     * connection, checked here.
     */
    async retakePaid(id: number, paymentId: string | null, now: string): Promise<Reservation | undefined> {
      const retake = (trx: Executor) =>
        inTransaction(trx, async (trx) => {
          const row = await trx
            .selectFrom('reservations')
            .selectAll()
            .where('id', '=', id)
            .executeTakeFirst();
          const late =
            row &&
            (row.status === 'expired' || (row.status === 'pending_payment' && lapsed(row, Date.parse(now))));
          if (!row || !late || row.resourceId === null || Date.parse(row.startTime) <= Date.parse(now))
            return undefined;
          const laneId = row.resourceId;
          if (dialect === 'postgres')
            await sql`select pg_advisory_xact_lock(${sql.lit(LANE_LOCKS)}, ${laneId}::int)`.execute(trx);
          // Lapsed holds on the lane keep no time, though their rows may still say so.
          await expireOnLane(trx, now, laneId, now);
          if (dialect !== 'postgres') {
            const taken = await trx
              .selectFrom('reservations')
              .select('id')
              .where('resourceId', '=', laneId)
              .where('id', '!=', id)
              .where(keepsTimeAt(now))
              .where('startTime', '<', row.blockedUntil ?? row.endTime)
              .where(sql<string>`coalesce(blocked_until, end_time)`, '>', row.startTime)
              .limit(1)
              .executeTakeFirst();
            if (taken) return undefined;
          }
          const confirmed = await trx
            .updateTable('reservations')
            .set({ status: 'confirmed', expiresAt: null, paymentStatus: 'paid', paymentId, updatedAt: now })
            .where('id', '=', id)
            .where('status', 'in', ['expired', 'pending_payment'])
            .returningAll()
            .executeTakeFirst();
          return confirmed && toReservation(confirmed, Date.parse(now));
        });
      try {
        return await retake(db);
      } catch (error) {
        if (LANE_REFUSED.has((error as { code?: string }).code ?? '')) return undefined;
        throw error;
      }
    },

    /** The payment was refunded in full: recorded once, whatever the reservation's status. */
    async recordRefund(
      id: number,
      refund: { refundId: string; paymentId: string | null },
      now: string,
    ): Promise<Reservation | undefined> {
      const row = await db
        .updateTable('reservations')
        .set({
          paymentStatus: 'refunded',
          paymentRefundId: refund.refundId,
          paymentId: sql<string | null>`coalesce(payment_id, ${refund.paymentId})`,
          updatedAt: now,
        })
        .where('id', '=', id)
        .where('paymentStatus', '!=', 'refunded')
        .returningAll()
        .executeTakeFirst();
      return row && toReservation(row, Date.parse(now));
    },
  };
}

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
