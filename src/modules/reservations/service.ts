import type { Actor } from '../../lib/actor.js';
import type { OrganisationSchedule } from '../availability/service.js';
import { createAttendance } from './attendance.js';
import type { AttendanceCounts } from './attendance-repo.js';
import { createBooking } from './book.js';
import type { BookingChannel } from './bookable.js';
import { createCancel } from './cancel.js';
import { createReservationsContext, type ReservationsServiceDeps } from './context.js';
import { dryRunOf } from './dry-run.js';
import type { DryRunAnswer, SeriesDryRun, WouldBeReservation } from './dry-run-schemas.js';
import { createExpiry } from './expiry.js';
import { createHolds } from './hold.js';
import { createLaneDaysPrune } from './lane-days-prune.js';
import { createReads } from './reads.js';
import { createReminders, type SentReminder } from './reminders.js';
import { reservationOfStoredRow } from './repo.js';
import { createReschedule, type MoveInput } from './reschedule.js';
import type {
  AttendanceInput,
  CancelReservationInput,
  CreateHoldInput,
  CreateReservationInput,
  ListReservationsQuery,
  RescheduleInput,
  Reservation,
  ReservationInput,
  ReservationSeries,
  SeriesBooking,
} from './schemas.js';
import { createSeries } from './series.js';
import type { ReservationSource } from './tables.js';

export type { BookingChannel } from './bookable.js';
export type { ReservationsServiceDeps } from './context.js';
export { EXPIRY_EVERY_MINUTES, RESERVATION_EXPIRY_JOB } from './expiry.js';
export { LANE_DAYS_PRUNE_EVERY_MINUTES, RESERVATION_LANE_DAYS_PRUNE_JOB } from './lane-days-prune.js';
export { REMINDERS_EVERY_MINUTES, RESERVATION_REMINDERS_JOB, type SentReminder } from './reminders.js';

/** Reservations: bookings, holds, series, their changes and the reads around them. */
export interface ReservationsService {
  /**
   * Books exactly the requested time: the booking mode decides whether a concrete
   * resource is required, a lane is allocated from the pool, or either. Price,
   * currency and status come from the resource type only.
   */
  book(
    org: OrganisationSchedule,
    input: ReservationInput,
    channel: BookingChannel,
    hold?: { seconds: number },
  ): Promise<Reservation>;
  /** A dry run: every check and read of the booking, no write; answers the record it would write. */
  book(
    org: OrganisationSchedule,
    input: ReservationInput,
    channel: BookingChannel,
    hold: { seconds: number } | undefined,
    options: { dryRun: true; alternatives?: false },
  ): Promise<WouldBeReservation>;
  /** `alternatives: false`: a refusal carries none (a waitlist offer only asks whether the time fits). */
  book(
    org: OrganisationSchedule,
    input: ReservationInput,
    channel: BookingChannel,
    hold: { seconds: number } | undefined,
    options: { dryRun?: false; alternatives: false },
  ): Promise<Reservation>;

  /** Books for the actor; an agent's booking is recorded as made by its owner. */
  create(
    actor: Actor,
    input: CreateReservationInput & { recurrence?: undefined },
    source?: ReservationSource,
  ): Promise<Reservation>;
  /** A booking with `recurrence`: a series, every occurrence or none (book-series.ts). */
  createSeries(
    actor: Actor,
    input: CreateReservationInput & { recurrence: string[] },
    source?: ReservationSource,
  ): Promise<SeriesBooking>;
  /** `create` or `createSeries`, as the input asks. */
  createAny(
    actor: Actor,
    input: CreateReservationInput,
    source?: ReservationSource,
  ): Promise<Reservation | SeriesBooking>;
  /** A recurring series of the active organisation with its occurrences. */
  getSeries(actor: Actor, id: number): Promise<ReservationSeries>;
  /**
   * Cancels every occurrence of a series not yet started (its creator, or a role with
   * `cancelAnyReservation`); staff may override the cancel notice.
   */
  cancelSeries(actor: Actor, id: number, input?: CancelReservationInput): Promise<ReservationSeries>;
  /** One page of the active organisation's reservations, filtered, in (startTime, id) order. */
  list(
    actor: Actor,
    query: ListReservationsQuery,
  ): Promise<{ items: Reservation[]; nextCursor: string | null }>;
  /** A reservation of the active organisation. */
  get(actor: Actor, id: number): Promise<Reservation>;
  /**
   * Its creator, or a role with `cancelAnyReservation`. A booking within the type's cancel
   * notice is refused unless staff override it.
   */
  cancel(actor: Actor, id: number, input?: CancelReservationInput): Promise<Reservation>;
  /**
   * Holds a time for `holdSeconds`: a `held` reservation that keeps it until `expiresAt`,
   * then frees it by itself unless confirmed or released first.
   */
  hold(actor: Actor, input: CreateHoldInput, source?: ReservationSource): Promise<Reservation>;
  /** Makes a hold (not yet expired) `confirmed`; a paid type's hold goes to payment instead. */
  confirm(actor: Actor, id: number): Promise<Reservation>;
  /** Lets a hold (not yet expired) go: `cancelled`, its time free at once. */
  release(actor: Actor, id: number): Promise<Reservation>;
  /** A booking's dry run: answers what `create` would (`wouldSucceed`, the record or the refusal), writing nothing. */
  dryRunCreate(
    actor: Actor,
    input: CreateReservationInput,
    source?: ReservationSource,
  ): Promise<DryRunAnswer<WouldBeReservation> | SeriesDryRun>;
  /** A hold's dry run: answers what `hold` would, writing nothing. */
  dryRunHold(
    actor: Actor,
    input: CreateHoldInput,
    source?: ReservationSource,
  ): Promise<DryRunAnswer<WouldBeReservation>>;
  /**
   * Moves a held, pending_payment or confirmed reservation to another time (its creator,
   * or a role with `cancelAnyReservation`); staff may override the type's booking rules.
   */
  reschedule(actor: Actor, id: number, input: RescheduleInput): Promise<Reservation>;
  /** A reschedule's dry run: answers what `reschedule` would, writing nothing. */
  dryRunReschedule(
    actor: Actor,
    id: number,
    input: RescheduleInput,
  ): Promise<DryRunAnswer<WouldBeReservation>>;
  /** Runs a dry run (`book` or `rescheduleFound` with dryRun) and answers its verdict (dry-run.ts). */
  dryRunOf<T>(work: () => Promise<T>): Promise<DryRunAnswer<T>>;

  // The same changes for a caller already entitled to `found` (a customer's manage link).
  /** A reservation of the organisation, undefined when there is none. */
  findIn(organisationId: number, id: number): Promise<Reservation | undefined>;
  /**
   * Moves `found` for a caller entitled to it (a member through `reschedule`, a customer's
   * manage link): to `input`'s time, on its resource or pool (or `input.resourceId` where
   * the booking mode takes one), in one statement that keeps its id, status, expiresAt,
   * payment and series. 409 SLOT_UNAVAILABLE (it keeps its time) or BOOKING_RULE_VIOLATED,
   * both with alternatives, unless `overriding` names the staff member overriding the rules;
   * 409 INVALID_TRANSITION unless it is held, pending_payment or confirmed. A dry run
   * (`options.dryRun`) answers the record the move would leave (id null), writing nothing.
   */
  rescheduleFound(
    org: OrganisationSchedule,
    found: Reservation,
    input: MoveInput,
    overriding: number | null,
    options?: { dryRun?: false },
  ): Promise<Reservation>;
  rescheduleFound(
    org: OrganisationSchedule,
    found: Reservation,
    input: MoveInput,
    overriding: number | null,
    options: { dryRun: true },
  ): Promise<WouldBeReservation>;
  /**
   * Cancels `found` for a caller entitled to it. A cancelled reservation frees its time at
   * once. A booking (not a hold, which can always be let go) within the type's cancel
   * notice is refused unless `overriding` names the staff member overriding the rules.
   */
  cancelFound(organisationId: number, found: Reservation, overriding: number | null): Promise<Reservation>;
  /** Makes the hold `found` (not yet expired) `confirmed`; a paid type's hold goes to payment instead. */
  confirmHeld(organisationId: number, found: Reservation): Promise<Reservation>;
  /** Lets the hold `found` (not yet expired) go: `cancelled`, its time free at once. */
  releaseHeld(organisationId: number, found: Reservation): Promise<Reservation>;
  /** Books every occurrence or none: 201 {seriesId, reservations}, or 409 naming each misfit. */
  bookSeries(
    org: OrganisationSchedule,
    input: ReservationInput,
    recurrence: string[],
    channel: BookingChannel,
  ): Promise<SeriesBooking>;
  /** A series' dry run: every check and read, no write. */
  dryRunSeries(
    org: OrganisationSchedule,
    input: ReservationInput,
    recurrence: string[],
    channel: BookingChannel,
  ): Promise<SeriesDryRun>;
  /** A series of the organisation with its occurrences (cancelled ones too); 404 when there is none. */
  seriesFound(organisationId: number, id: number): Promise<ReservationSeries>;
  /** `cancelSeries` for a caller already entitled to the series (a customer's manage link of one occurrence). */
  cancelSeriesFound(
    organisationId: number,
    id: number,
    overriding: number | null,
  ): Promise<ReservationSeries>;

  /** How many live holds the public routes made in the organisation for a customer email or a client. */
  livePublicHolds(
    organisationId: number,
    by: { customerEmail: string } | { publicClientHash: string },
  ): Promise<number>;
  /**
   * The reservation a customer's manage link names (by the SHA-256 of its token), with its
   * organisation; undefined for any other hash. Found through the index, then compared in
   * constant time, so no database comparison looser than the bytes ever lets a link in.
   */
  findByManageTokenHash(
    tokenHash: string,
  ): Promise<{ organisationId: number; reservation: Reservation } | undefined>;
  /** Marks every lapsed hold and unpaid booking `expired` now (what the expiry job runs); answers them. */
  expireDue(): Promise<Reservation[]>;
  /**
   * Sends every reminder due now (what the reminder job runs: reminders.ts), each once across
   * instances; answers those this call sent.
   */
  sendDueReminders(): Promise<SentReminder[]>;
  /**
   * Deletes round robin's counter rows of days it no longer reads and, on PostgreSQL, folds a
   * past day's rows per writer into one (what the prune job runs: lane-days-prune.ts); answers how many went.
   */
  pruneLaneDays(): Promise<number>;
  /**
   * Marks whether the customer of a confirmed reservation that has started came (OWNER,
   * ADMIN, MANAGER); 409 INVALID_TRANSITION before its start or in another status.
   */
  markAttendance(actor: Actor, id: number, input: AttendanceInput): Promise<Reservation>;
  /** How many of a customer email's reservations in the active organisation were marked each way. */
  attendanceCounts(
    actor: Actor,
    customerEmail: string,
  ): Promise<AttendanceCounts & { customerEmail: string }>;
  /** The record a reservation event carries, from the row its trigger stored (the outbox reads it). */
  recordOfEvent(stored: unknown, occurredAt: string): Reservation;
}

/**
 * Reservations, one use case a file: booking (book.ts), series (series.ts, book-series.ts),
 * holds (hold.ts), cancelling (cancel.ts), rescheduling (reschedule.ts), reads (reads.ts),
 * attendance (attendance.ts), the expiry job (expiry.ts), the reminder job (reminders.ts) and the
 * round-robin counter's prune (lane-days-prune.ts), over what they share (context.ts). This file wires them
 * and is the module's surface.
 */
export function createReservationsService(deps: ReservationsServiceDeps): ReservationsService {
  const ctx = createReservationsContext(deps);
  const expireDue = createExpiry(ctx);
  const cancelling = createCancel(ctx);
  const series = createSeries(ctx, cancelling.cancelFound);
  const booking = createBooking(ctx, series);
  return {
    ...booking,
    ...series,
    ...cancelling,
    ...createHolds(ctx, booking.book),
    ...createReschedule(ctx),
    ...createReads(ctx),
    ...createAttendance(ctx),
    dryRunOf,
    expireDue,
    sendDueReminders: createReminders(ctx),
    pruneLaneDays: createLaneDaysPrune(ctx),
    recordOfEvent: reservationOfStoredRow,
  };
}
