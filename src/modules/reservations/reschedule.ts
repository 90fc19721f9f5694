import type { Executor } from '../../db/database.js';
import type { Actor } from '../../lib/actor.js';
import { conflict, invalidField } from '../../lib/errors.js';
import { nowIso } from '../../lib/time.js';
import type { OrganisationSchedule } from '../availability/service.js';
import type { ResourceType } from '../resource-types/schemas.js';
import { oneAtATime, picksInTurn, type RankedOffer, rankOffers } from './assignment.js';
import { moveTogether } from './collective-move.js';
import type { LaneRead, ReservationsContext } from './context.js';
import { dryRunOf } from './dry-run.js';
import type { WouldBeReservation } from './dry-run-schemas.js';
import { changeable } from './member-access.js';
import { KEEPING_STATUSES } from './reservation-time.js';
import { assertBookingRules, overrideBy } from './rules.js';
import type { RescheduleInput, Reservation } from './schemas.js';
import type { ReservationsService } from './service.js';
import { requestedTimes } from './times.js';

/** Reads a move makes at most, as a booking (see BOOKING_READS in book.ts). */
const MOVE_READS = 3;

const iso = (ms: number) => new Date(ms).toISOString();
/** A move whose reservation's type was deleted meanwhile. */
const typeGone = () => conflict('INVALID_TRANSITION', 'The resource type of this reservation is gone');
const keepsTime = (status: Reservation['status']) => (KEEPING_STATUSES as readonly string[]).includes(status);

/** A move as its caller asks it: the new time and, where the booking mode allows, the resource. */
export type MoveInput = Omit<RescheduleInput, 'overrideRules'>;

/** What a move answers: the moved reservation, or a dry run's record. */
type Moved = Reservation | WouldBeReservation;

/** One move as its steps below share it. */
interface Move {
  org: OrganisationSchedule;
  found: Reservation;
  typeId: number;
  overriding: number | null;
  dryRun: boolean;
  /** The requested time, in epoch milliseconds. */
  request: { start: number; end: number };
  /** Where it is now, as the move's statement checks it still is. */
  from: { resourceId: number; startTime: string; endTime: string };
  /** Its own time, which blocks nothing while it moves. */
  ignore: { laneId: number; start: number; end: number };
  target: { resourceId?: number };
}

/**
 * Where the reservation may go: `resourceId` when the booking mode takes one; else the
 * pool of a POOL type (unless a public token fixed its resource), else the resource it is on.
 */
async function targetOf(
  { resources }: ReservationsContext,
  org: OrganisationSchedule,
  found: Reservation,
  type: ResourceType,
  resourceId: number | undefined,
): Promise<{ resourceId?: number }> {
  if (resourceId !== undefined) {
    if (type.bookingMode === 'POOL')
      throw invalidField('resourceId', 'is not accepted: this resource type books from its pool (POOL)');
    const resource = await resources.findInOrganisation(org.organisationId, resourceId);
    if (!resource || resource.isCapacityChild || resource.resourceTypeId !== type.id) {
      throw invalidField(
        'resourceId',
        "no such bookable resource of the reservation's resource type (capacity lanes are booked through their parent)",
      );
    }
    return { resourceId };
  }
  if (type.bookingMode === 'POOL' && found.source !== 'public_token') return {};
  const lane =
    found.resourceId === null
      ? undefined
      : await resources.findInOrganisation(org.organisationId, found.resourceId);
  if (!lane) throw invalidField('resourceId', 'is required: the resource this reservation was on is gone');
  return { resourceId: lane.parentResourceId ?? lane.id };
}

/** `rescheduleFound` as ReservationsService documents it; its overloads narrow the answer by `options`. */
async function rescheduleFound(
  ctx: ReservationsContext,
  org: OrganisationSchedule,
  found: Reservation,
  input: MoveInput,
  overriding: number | null,
  options: { dryRun?: boolean } = {},
): Promise<Moved> {
  const { start, end } = requestedTimes(input);
  if (!keepsTime(found.status) || found.resourceTypeId === null || found.resourceId === null) {
    throw conflict(
      'INVALID_TRANSITION',
      `A ${found.status} reservation cannot be rescheduled: only a held, pending_payment or confirmed one can`,
    );
  }
  if (found.resourceIds.length > 1) return moveTogether(ctx, org, found, input, overriding, options);
  if (input.resourceIds)
    throw invalidField(
      'resourceIds',
      'is not accepted: this reservation takes one resource; move it with resourceId',
    );
  const typeId = found.resourceTypeId;
  const from = { resourceId: found.resourceId, startTime: found.startTime, endTime: found.endTime };
  const ignore = {
    laneId: from.resourceId,
    start: Date.parse(from.startTime),
    end: Date.parse(from.endTime),
  };
  const known = await ctx.resourceTypes.findStored(ctx.db.kysely, org.organisationId, typeId);
  if (!known) throw typeGone();
  const target = await targetOf(ctx, org, found, known, input.resourceId);
  const dryRun = options.dryRun === true;
  const move: Move = {
    org,
    found,
    typeId,
    overriding,
    dryRun,
    request: { start, end },
    from,
    ignore,
    target,
  };
  try {
    return await ctx.bookingScope((executor) => moveOfType(ctx, executor, move));
  } catch (error) {
    throw await ctx.alternatives.offeredWith(error, {
      org,
      resourceTypeId: typeId,
      resourceId: target.resourceId,
      start,
      end,
      customerEmail: found.customer.email ?? '',
      moving: { id: found.id, time: ignore },
    });
  }
}

/** The move in its scope: the type and what is taken on its lanes in one read, then the move. */
async function moveOfType(ctx: ReservationsContext, executor: Executor, move: Move): Promise<Moved> {
  const first = await ctx.availability.readLanes(executor, move.org, move.typeId, move.request);
  if (!first) throw typeGone();
  const type = first.type;
  if (!type.isActive) throw conflict('SLOT_UNAVAILABLE', 'This resource type is not bookable');
  const email = move.found.customer.email ?? '';
  // As a booking: a type with a daily limit per customer moves one customer's bookings at a time.
  const serialised = type.bookingRules?.maxPerCustomerPerDay !== undefined;
  const scope = <T>(work: (executor: Executor) => Promise<T>) =>
    serialised ? ctx.repo.oneCustomerAtATime(executor, type.id, email, work) : work(executor);
  // As a booking: round robin and daily caps count what the moves and bookings before committed.
  const inTurn = picksInTurn(first, move.target.resourceId === undefined);
  return scope((executor) =>
    inTurn
      ? oneAtATime(executor, ctx.db.dialect, type.id, (inner) =>
          moveWithinRules(ctx, inner, move, first, email),
        )
      : moveWithinRules(ctx, executor, move, first, email),
  );
}

/** The type's booking rules judged, then the move onto the first lane that takes it, reading at most MOVE_READS times. */
async function moveWithinRules(
  ctx: ReservationsContext,
  executor: Executor,
  move: Move,
  first: LaneRead,
  email: string,
): Promise<Moved> {
  const { org, found, request } = move;
  const type = first.type;
  const rulesOverriddenByUserId = await assertBookingRules(
    {
      action: 'reschedule',
      reservationId: found.id,
      currentStart: move.ignore.start,
      start: request.start,
      end: request.end,
      customerEmail: email,
    },
    type.bookingRules,
    { customerDays: ctx.customerDaysOf(executor, org, type.id), overrideBy: move.overriding },
  );
  let read = first;
  for (let attempt = 1; attempt <= MOVE_READS; attempt++) {
    if (attempt > 1) read = (await ctx.availability.readLanes(executor, org, type.id, request)) ?? read;
    const offers = await ctx.availability.offerLanes(executor, org, read, move.target, request, move.ignore);
    if (offers.length === 0) break;
    const ranked = await rankOffers(executor, ctx.repo, read, offers, {
      pooled: move.target.resourceId === undefined,
      start: request.start,
      timezone: org.timezone,
      now: nowIso(),
    });
    // Its own lane first (keeping its assignment): a move that fits where it is keeps its place.
    const own = (r: RankedOffer) => Number(r.offer.laneId === move.from.resourceId);
    ranked.sort((a, b) => own(b) - own(a));
    const moved = await onFirstFreeLane(ctx, executor, move, {
      read,
      offers: ranked,
      rulesOverriddenByUserId,
    });
    if (moved) return moved;
  }
  throw conflict(
    'SLOT_UNAVAILABLE',
    'The requested time does not fit the availability of this resource; the reservation keeps its time',
  );
}

/**
 * The move onto the first of `offers` whose statement takes it (a dry run: the record it
 * would leave there); undefined when each refused it and the reservation is still as it was.
 */
async function onFirstFreeLane(
  ctx: ReservationsContext,
  executor: Executor,
  move: Move,
  {
    read,
    offers,
    rulesOverriddenByUserId,
  }: { read: LaneRead; offers: RankedOffer[]; rulesOverriddenByUserId: number | null },
): Promise<Moved | undefined> {
  const { found, request, from } = move;
  const to = { startTime: iso(request.start), endTime: iso(request.end) };
  const now = nowIso();
  if (move.dryRun) {
    return {
      ...found,
      ...to,
      id: null,
      resourceId: offers[0]!.offer.laneId,
      assignment: assignmentAfter(found, offers[0]!),
      updatedAt: now,
      rulesOverriddenByUserId: rulesOverriddenByUserId ?? found.rulesOverriddenByUserId,
    };
  }
  // Raised before the move is visible, as a booking raises it (see book.ts).
  const minutes = Math.ceil((request.end - request.start) / 60_000);
  if (minutes > read.type.longestReservationMinutes)
    await ctx.resourceTypes.recordReservationLength(executor, move.typeId, minutes);
  for (const ranked of offers) {
    const { offer } = ranked;
    if (offer.hasLapsedHolds) await ctx.expireLapsed(executor, now, { laneId: offer.laneId });
    const assignment = assignmentAfter(found, ranked);
    const moved = await ctx.repo.moveOnLane(
      executor,
      {
        id: found.id,
        from,
        to: {
          ...to,
          resourceId: offer.laneId,
          blockedUntil: iso(offer.blockedUntil),
          assignmentStrategy: assignment?.strategy ?? null,
          assignmentReason: assignment?.reason ?? null,
        },
        rulesOverriddenByUserId,
      },
      offer.laneUpdatedAt,
      now,
    );
    if (moved) return moved;
  }
  await assertUnmoved(ctx, executor, move);
  return undefined;
}

/** The assignment a move leaves: the one it had where it stays on its lane, else why the pool gave it this one. */
function assignmentAfter(found: Reservation, { offer, assignment }: RankedOffer): Reservation['assignment'] {
  if (offer.laneId === found.resourceId) return found.assignment;
  return assignment && { ...assignment, resourceId: offer.laneId };
}

/** Every lane refused the move: 409 when the reservation changed meanwhile (cancelled, lapsed, moved), else the lanes did. */
async function assertUnmoved({ repo }: ReservationsContext, executor: Executor, { org, found, from }: Move) {
  const fresh = await repo.findThrough(executor, org.organisationId, found.id);
  if (!fresh || !keepsTime(fresh.status))
    throw conflict(
      'INVALID_TRANSITION',
      `A ${fresh?.status ?? 'cancelled'} reservation cannot be rescheduled`,
    );
  if (
    fresh.startTime !== from.startTime ||
    fresh.endTime !== from.endTime ||
    fresh.resourceId !== from.resourceId
  )
    throw conflict('CONFLICT', 'This reservation was moved meanwhile; read it again before moving it');
}

/** The reservation the actor may move, and who overrides the rules for it (see `changeable`). */
async function movable(ctx: ReservationsContext, actor: Actor, id: number, input: RescheduleInput) {
  const { tenant, role, found } = await changeable(ctx, actor, id, 'reschedule');
  const { overrideRules, ...move } = input;
  return { tenant, found, move, overriding: overrideBy(actor.userId, role, overrideRules) };
}

/**
 * Reschedule: a held, pending_payment or confirmed reservation moved to another time
 * (and lane) in one statement that keeps its id, status, expiry, payment and series. Its
 * own time does not block the move; a time that does not fit leaves it as it was.
 */
export function createReschedule(
  ctx: ReservationsContext,
): Pick<ReservationsService, 'reschedule' | 'dryRunReschedule' | 'rescheduleFound'> {
  const moveFound = rescheduleFound.bind(undefined, ctx) as ReservationsService['rescheduleFound'];
  return {
    async reschedule(actor, id, input) {
      const { tenant, found, move, overriding } = await movable(ctx, actor, id, input);
      return moveFound(tenant, found, move, overriding);
    },
    async dryRunReschedule(actor, id, input) {
      const { tenant, found, move, overriding } = await movable(ctx, actor, id, input);
      return dryRunOf(() => moveFound(tenant, found, move, overriding, { dryRun: true }));
    },
    rescheduleFound: moveFound,
  };
}
