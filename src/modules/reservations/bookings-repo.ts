import { compiledOnce, type Dialect, type Executor } from '../../db/database.js';
import { isUniqueViolation } from '../../db/errors.js';
import type { AssignmentStrategy } from '../resource-types/tables.js';
import { laneAsRead } from '../resources/ports.js';
import { storedCustomerInfo } from './answers.js';
import type { Customer } from './customer-schemas.js';
import { LANE_REFUSED } from './lanes-repo.js';
import { newReference } from './reference.js';
import { toReservation } from './reservation-row.js';
import type { Reservation } from './schemas.js';
import type { ReservationSource, ReservationStatus } from './tables.js';

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
  /** How a pool booking's resource was picked; none when the booking named its resource. */
  assignment?: { strategy: AssignmentStrategy; reason: string } | null;
  /** A collective reservation's resources, in the order booked; none for one resource. */
  resourceIds?: number[] | null;
  /** A part's collective reservation (migration 0067); none for a reservation. */
  partOf?: number | null;
}

/** Times a booking draws a reference when the one drawn is already given in the organisation. */
const REFERENCE_DRAWS = 3;

/** The exclusion constraint of migration 0019: no two live reservations keep one lane's time. */
const NO_OVERLAP = 'reservations_no_overlap';

/**
 * The lane's row as a booking read it (same updatedAt), with the booking's values: what
 * `insertOnLaneStatement` inserts from.
 */
function laneWithValues(db: Executor) {
  return laneAsRead(db, 0, '').select((eb) => [
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
    eb.val<AssignmentStrategy | null>(null).as('assignmentStrategy'),
    eb.val<string | null>(null).as('assignmentReason'),
    eb.val<string | null>(null).as('resourceIds'),
    eb.val<number | null>(null).as('partOf'),
    eb.val('').as('reference'),
    eb.val('').as('createdAt'),
    eb.val('').as('updatedAt'),
  ]);
}

/**
 * Every booking's write, built and compiled once. It inserts only while the lane's row
 * is as the booking read it (same updatedAt): a lane deleted, deactivated, moved or
 * given lanes since then inserts nothing. On PostgreSQL the lane row is share-locked for
 * this one statement, so a catalogue change in flight finishes first and is seen.
 */
function insertOnLaneStatement(db: Executor, dialect: Dialect) {
  return compiledOnce(() => {
    const lane = laneWithValues(db);
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
        'assignmentStrategy',
        'assignmentReason',
        'resourceIds',
        'partOf',
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
}

/** A booking's write: a new reservation on its lane, with a reference of its own. */
export function createBookingRepo(db: Executor, dialect: Dialect) {
  const insertOnLane = insertOnLaneStatement(db, dialect);
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
      // A reference already given in the organisation (a chance of n in 32^8, about 10^12, with n
      // given) is drawn again where a refused statement leaves the rest standing: not inside a
      // PostgreSQL transaction (a series), which it would abort.
      const mayDrawAgain = dialect === 'sqlite' || !executor.isTransaction;
      for (let draw = 1; ; draw++) {
        try {
          // A part is never shown to a customer: it takes no reference.
          return await insertWithReference(values.partOf ? '' : newReference());
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
          ...Object.values(bookedColumns(values)),
          values.assignment?.strategy ?? null,
          values.assignment?.reason ?? null,
          values.resourceIds ? JSON.stringify(values.resourceIds) : null,
          values.partOf ?? null,
          reference,
          now,
          now,
          values.resourceId,
          laneUpdatedAt,
        );
        return rows[0] && toReservation(rows[0]);
      }
    },
  };
}

export type BookingRepo = ReturnType<typeof createBookingRepo>;

/**
 * A booking's values from the customer's name to its series, by column, in the column order of
 * the compiled insert (`insertOnLane`); round robin's pick function takes them by name.
 */
export function bookedColumns(values: Omit<NewReservation, 'resourceId' | 'blockedUntil'>) {
  const { name, email, phone } = values.customer;
  return {
    customer_name: name,
    customer_email: email,
    customer_phone: phone ?? null,
    customer_info: storedCustomerInfo(values.customer),
    notes: values.notes,
    price_amount: values.priceAmount,
    price_currency: values.priceCurrency,
    source: values.source,
    created_by_user_id: values.createdByUserId,
    rules_overridden_by_user_id: values.rulesOverriddenByUserId,
    expires_at: values.expiresAt,
    manage_token_hash: values.manageTokenHash ?? null,
    manage_token_sealed: values.manageTokenSealed ?? null,
    public_client_hash: values.publicClientHash ?? null,
    series_id: values.seriesId ?? null,
  };
}
