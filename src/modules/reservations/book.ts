import type { Executor } from '../../db/database.js';
import { conflict } from '../../lib/errors.js';
import { nowIso } from '../../lib/time.js';
import type { OrganisationSchedule } from '../availability/service.js';
import type { StoredResourceType } from '../resource-types/service.js';
import { oneAtATime, picksInTurn, type RankedOffer, rankOffers } from './assignment.js';
import { type BookingChannel, bookingDetails, checkBookable, noSuchType, typeIdOf } from './bookable.js';
import { bookHosts, hostsOf } from './collective.js';
import { offeredTogether } from './collective-alternatives.js';
import type { LaneOffer, LaneRead, ReservationsContext } from './context.js';
import { dryRunOf, wouldBeBooked } from './dry-run.js';
import type { WouldBeReservation } from './dry-run-schemas.js';
import { storedManageLink } from './manage-link.js';
import { memberBooking } from './member-access.js';
import type { NewReservation } from './repo.js';
import { picksInInsert } from './round-robin-insert.js';
import { assertBookingRules } from './rules.js';
import type { Reservation, ReservationInput } from './schemas.js';
import type { ReservationsService } from './service.js';
import type { ReservationSource } from './tables.js';
import { requestedTimes } from './times.js';

/**
 * Reads a booking makes at most: each after every lane it found free was refused (taken
 * or changed by a concurrent request). A second read rarely finds a lane the first
 * missed; a third means the type's lanes are changing under it.
 */
const BOOKING_READS = 3;

/** Where customers book for themselves: the organisation's page and a resource's public link. */
const PUBLIC_SOURCES: readonly ReservationSource[] = ['public_slug', 'public_token'];

/** One booking as its steps below share it. */
export interface Booking {
  org: OrganisationSchedule;
  input: ReservationInput;
  channel: BookingChannel;
  hold: { seconds: number } | undefined;
  dryRun: boolean;
  /** The requested time, in epoch milliseconds. */
  request: { start: number; end: number };
}

/** A booking past its type's checks and rules: what it writes but the lane, the lane's buffer and the expiry. */
interface CheckedBooking extends Booking {
  type: StoredResourceType;
  values: Omit<NewReservation, 'resourceId' | 'blockedUntil' | 'expiresAt'>;
}

/** What a booking answers: the reservation, or a dry run's record. */
export type Booked = Reservation | WouldBeReservation;

/** `book` as ReservationsService documents it; its overloads narrow the answer by `options`. */
async function book(
  ctx: ReservationsContext,
  org: OrganisationSchedule,
  input: ReservationInput,
  channel: BookingChannel,
  hold?: { seconds: number },
  options: { dryRun?: boolean; alternatives?: false } = {},
): Promise<Booked> {
  const { start, end } = requestedTimes(input);
  const booking: Booking = {
    org,
    input,
    channel,
    hold,
    dryRun: options.dryRun === true,
    request: { start, end },
  };
  if (input.resourceIds) return bookTogether(ctx, booking, input.resourceIds, options);
  const typeId = await typeIdOf(ctx, org, input);
  const { booked, chargeTo } = await ctx
    .bookingScope((executor) => bookOfType(ctx, executor, booking, typeId))
    .catch(async (error: unknown) => {
      if (options.alternatives === false) throw error;
      throw await ctx.alternatives.offeredWith(error, {
        org,
        resourceTypeId: typeId,
        resourceId: input.resourceId,
        start,
        end,
        customerEmail: input.customer.email,
      });
    });
  return paidFor(ctx, booked, chargeTo);
}

/** A booking as it answers once committed: with its checkout when it is paid for (never made inside SQLite's transaction). */
function paidFor(
  ctx: ReservationsContext,
  booked: Booked,
  chargeTo: string | undefined,
): Promise<Booked> | Booked {
  if (booked.id === null || chargeTo === undefined) return booked; // a dry run: nothing to pay for
  return ctx.payment.startForBooking(booked, chargeTo);
}

/** A collective booking (collective.ts), refused with which resource is not free and the times all are. */
async function bookTogether(
  ctx: ReservationsContext,
  booking: Booking,
  resourceIds: number[],
  options: { alternatives?: false },
): Promise<Booked> {
  const hosts = await hostsOf(ctx, booking.org.organisationId, resourceIds);
  const { booked, chargeTo } = await bookHosts(ctx, booking, hosts).catch(async (error: unknown) => {
    if (options.alternatives === false) throw error;
    throw await offeredTogether(ctx, error, booking, hosts);
  });
  return paidFor(ctx, booked, chargeTo);
}

/**
 * The booking in its scope: the type and what is taken on its lanes in one read, the type
 * checked, the payment it needs, then the booking. Answers it with the connected account a
 * paid booking's checkout charges, once the type asks for payment.
 */
async function bookOfType(
  ctx: ReservationsContext,
  executor: Executor,
  booking: Booking,
  typeId: number,
): Promise<{ booked: Booked; chargeTo: string | undefined }> {
  const { org, input, channel } = booking;
  const first = await ctx.availability.readLanes(executor, org, typeId, booking.request);
  if (!first) throw noSuchType();
  const type = checkBookable(first.type, { ...input, resourceTypeId: typeId }, channel);
  const chargeTo = await accountCharged(ctx, executor, booking, type);
  const scope = customerScope(ctx, executor, type, input.customer.email);
  // Round robin and daily caps count what the bookings before committed: one at a time
  // (on PostgreSQL, round robin's turn is its insert's own: `picksInInsert`).
  const pooled = input.resourceId === undefined;
  const booked = await scope((executor) => {
    if (!booking.dryRun && picksInInsert(ctx.db.dialect, executor, first, pooled))
      return bookWithinRules(ctx, executor, booking, type, first, true);
    return picksInTurn(first, pooled)
      ? oneAtATime(executor, ctx.db.dialect, type.id, (inner) =>
          bookWithinRules(ctx, inner, booking, type, first),
        )
      : bookWithinRules(ctx, executor, booking, type, first);
  });
  return { booked, chargeTo };
}

/**
 * The connected account a booking of `type` charges (none when the type takes no payment or
 * the booking is a hold, which is charged when confirmed). An organisation that cannot take
 * payment books nothing that would wait for it, and a customer holds none of its time: they
 * could not pay for it (a member's hold may wait).
 */
export async function accountCharged(
  ctx: ReservationsContext,
  executor: Executor,
  { org, channel, hold }: Booking,
  type: StoredResourceType,
): Promise<string | undefined> {
  if (type.paymentRequired && !hold) return ctx.payment.chargeableAccount(org.organisationId, executor);
  if (type.paymentRequired && PUBLIC_SOURCES.includes(channel.source))
    await ctx.payment.chargeableAccount(org.organisationId, executor);
  return undefined;
}

/** Where a booking of `type` runs: a type with a daily limit per customer counts and inserts one customer's bookings at a time. */
export function customerScope(
  ctx: ReservationsContext,
  executor: Executor,
  type: StoredResourceType,
  customerEmail: string,
): <T>(work: (executor: Executor) => Promise<T>) => Promise<T> {
  const serialised = type.bookingRules?.maxPerCustomerPerDay !== undefined;
  return (work) =>
    serialised ? ctx.repo.oneCustomerAtATime(executor, type.id, customerEmail, work) : work(executor);
}

/** When a booking made at `now` stops keeping its time: a hold's end, a paid type's window to pay, or never. */
export function expiryOf(now: string, hold: Booking['hold'], type: StoredResourceType): string | null {
  if (hold) return new Date(Date.parse(now) + hold.seconds * 1000).toISOString();
  if (type.paymentRequired)
    return new Date(Date.parse(now) + type.paymentWindowMinutes * 60_000).toISOString();
  return null;
}

/**
 * The type's booking rules judged, then the booking on the first lane that takes it (in the
 * order of the pool's assignment), reading at most BOOKING_READS times. `pickInInsert`: the
 * first try picks a round-robin lane in its insert (`picksInInsert`), the others in turn.
 */
async function bookWithinRules(
  ctx: ReservationsContext,
  executor: Executor,
  booking: Booking,
  type: StoredResourceType,
  first: LaneRead,
  pickInInsert = false,
): Promise<Booked> {
  const { org, input, request } = booking;
  const rulesOverriddenByUserId = await judgedByRules(ctx, executor, booking, type);
  const target = input.resourceId !== undefined ? { resourceId: input.resourceId } : {};
  const checked: CheckedBooking = {
    ...booking,
    type,
    values: valuesOf(ctx, booking, type, rulesOverriddenByUserId),
  };
  let read = first;
  for (let attempt = 1; attempt <= BOOKING_READS; attempt++) {
    // A later attempt reads again: a concurrent booking took a lane, changed a lane's
    // row, or raised the type's longest reservation.
    if (attempt > 1) read = (await ctx.availability.readLanes(executor, org, type.id, request)) ?? read;
    const offers = await ctx.availability.offerLanes(executor, org, read, target, request);
    if (offers.length === 0) break;
    if (pickInInsert && picksInInsert(ctx.db.dialect, executor, read, input.resourceId === undefined)) {
      const booked = await pickedInInsert(ctx, executor, checked, read, offers);
      // Taken or changed since the read (which offering used up): read again and try in turn,
      // as any counting booking.
      return (
        booked ??
        oneAtATime(executor, ctx.db.dialect, type.id, async (inner) => {
          const again = (await ctx.availability.readLanes(inner, org, type.id, request)) ?? read;
          return bookWithinRules(ctx, inner, booking, type, again);
        })
      );
    }
    const ranked = await rankOffers(executor, ctx.repo, read, offers, {
      pooled: input.resourceId === undefined,
      start: request.start,
      timezone: org.timezone,
      now: nowIso(),
    });
    const booked = await onFirstFreeLane(ctx, executor, checked, read, ranked);
    if (booked) return booked;
  }
  throw conflict('SLOT_UNAVAILABLE', 'The requested time does not fit the availability of this resource');
}

/** The type's booking rules judged for `booking`: who overrode them (null when none was broken), or BOOKING_RULE_VIOLATED. */
export function judgedByRules(
  ctx: ReservationsContext,
  executor: Executor,
  { org, input, channel, request }: Booking,
  type: StoredResourceType,
): Promise<number | null> {
  return assertBookingRules(
    { action: 'book', start: request.start, end: request.end, customerEmail: input.customer.email },
    type.bookingRules,
    { customerDays: ctx.customerDaysOf(executor, org, type.id), overrideBy: channel.overrideRulesBy ?? null },
  );
}

/** What the booking writes on whichever lane it gets; its price, currency and status come from the type only. */
export function valuesOf(
  ctx: ReservationsContext,
  { org, input, channel, hold, dryRun, request }: Booking,
  type: StoredResourceType,
  rulesOverriddenByUserId: number | null,
): CheckedBooking['values'] {
  return {
    organisationId: org.organisationId,
    resourceTypeId: type.id,
    status: hold ? 'held' : type.paymentRequired ? 'pending_payment' : 'confirmed',
    startTime: new Date(request.start).toISOString(),
    endTime: new Date(request.end).toISOString(),
    ...bookingDetails(input, type, channel, rulesOverriddenByUserId),
    ...storedManageLink(dryRun ? null : (channel.manageLink ?? ctx.mintManageLink())),
    publicClientHash: channel.publicClientHash ?? null,
  };
}

/**
 * The booking on the first of `offers` whose insert takes it (a dry run: the record it
 * would write there), with the assignment that ranked it there; undefined when every one
 * was refused, taken or changed since `read`.
 */
async function onFirstFreeLane(
  ctx: ReservationsContext,
  executor: Executor,
  { hold, dryRun, request, type, values }: CheckedBooking,
  read: LaneRead,
  offers: RankedOffer[],
): Promise<Booked | undefined> {
  const now = nowIso();
  const expiresAt = expiryOf(now, hold, type);
  const { offer: first, assignment } = offers[0]!;
  if (dryRun) {
    const blockedUntil = new Date(first.blockedUntil).toISOString();
    return wouldBeBooked({ ...values, resourceId: first.laneId, blockedUntil, expiresAt, assignment }, now);
  }
  // Raised before the reservation is visible (its own statement on PostgreSQL), so
  // any read that can see the reservation looks back far enough to find it.
  const minutes = Math.ceil((request.end - request.start) / 60_000);
  if (minutes > read.type.longestReservationMinutes) {
    await ctx.resourceTypes.recordReservationLength(executor, type.id, minutes);
  }
  for (const { offer, assignment } of offers) {
    // The read took a lapsed hold's time for free, but its row may still say it holds
    // (PostgreSQL's exclusion constraint cannot see the clock): it is marked first, in
    // the booking's transaction on SQLite. Only lanes the read found one on pay for it.
    if (offer.hasLapsedHolds) await ctx.expireLapsed(executor, now, { laneId: offer.laneId });
    const booked = await ctx.repo.insertOnLane(
      executor,
      {
        ...values,
        resourceId: offer.laneId,
        blockedUntil: new Date(offer.blockedUntil).toISOString(),
        expiresAt,
        assignment,
      },
      offer.laneUpdatedAt,
      now,
    );
    if (booked) return booked;
  }
  return undefined;
}

/** A round-robin pool booking whose insert picks its lane in turn (round-robin-insert.ts); undefined when refused. */
async function pickedInInsert(
  ctx: ReservationsContext,
  executor: Executor,
  { hold, request, type, values }: CheckedBooking,
  read: LaneRead,
  offers: LaneOffer[],
): Promise<Booked | undefined> {
  const now = nowIso();
  const minutes = Math.ceil((request.end - request.start) / 60_000);
  if (minutes > read.type.longestReservationMinutes)
    await ctx.resourceTypes.recordReservationLength(executor, type.id, minutes);
  for (const offer of offers)
    if (offer.hasLapsedHolds) await ctx.expireLapsed(executor, now, { laneId: offer.laneId });
  return ctx.repo.insertPickedInTurn(
    executor,
    read,
    offers,
    { ...values, expiresAt: expiryOf(now, hold, type) },
    now,
  );
}

type BookingUseCases = Pick<
  ReservationsService,
  'book' | 'create' | 'createSeries' | 'createAny' | 'dryRunCreate'
>;

/** Booking: the booking every write path makes (`book`), and a member's bookings and series through it. */
export function createBooking(
  ctx: ReservationsContext,
  series: Pick<ReservationsService, 'bookSeries' | 'dryRunSeries'>,
): BookingUseCases {
  // Its overloads (ReservationsService.book) narrow the answer by `options`; the one implementation answers either.
  const bookIn = book.bind(undefined, ctx) as ReservationsService['book'];
  const create: BookingUseCases['create'] = async (actor, input, source = 'api') => {
    const { tenant, booking, channel } = await memberBooking(ctx, actor, input, source);
    return bookIn(tenant, booking, channel);
  };
  const createSeries: BookingUseCases['createSeries'] = async (actor, input, source = 'api') => {
    const { tenant, booking, channel } = await memberBooking(ctx, actor, input, source);
    return series.bookSeries(tenant, booking, input.recurrence, channel);
  };
  return {
    book: bookIn,
    create,
    createSeries,
    createAny(actor, input, source = 'api') {
      const { recurrence } = input;
      return recurrence
        ? createSeries(actor, { ...input, recurrence }, source)
        : create(actor, { ...input, recurrence: undefined }, source);
    },
    async dryRunCreate(actor, input, source = 'api') {
      const { tenant, booking, channel, recurrence } = await memberBooking(ctx, actor, input, source);
      if (recurrence) return series.dryRunSeries(tenant, booking, recurrence, channel);
      return dryRunOf(() => bookIn(tenant, booking, channel, undefined, { dryRun: true }));
    },
  };
}
