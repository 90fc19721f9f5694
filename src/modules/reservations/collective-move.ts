import { type Executor, inTransaction } from '../../db/database.js';
import { conflict, invalidField } from '../../lib/errors.js';
import { nowIso } from '../../lib/time.js';
import type { OrganisationSchedule } from '../availability/service.js';
import type { Booking } from './book.js';
import { checkBookable } from './bookable.js';
import { type Host, hostsOf, hostUnavailable, NO_CUSTOMER } from './collective.js';
import { offeredTogether } from './collective-alternatives.js';
import type { LaneOffer, ReservationsContext } from './context.js';
import type { WouldBeReservation } from './dry-run-schemas.js';
import type { Part } from './parts-repo.js';
import type { MoveInput } from './reschedule.js';
import { assertBookingRules } from './rules.js';
import type { Reservation } from './schemas.js';
import { requestedTimes } from './times.js';

/** A move as its steps share it: the collective booking it would be, and the rows it moves. */
interface CollectiveMove {
  booking: Booking;
  found: Reservation;
  hosts: Host[];
  overriding: number | null;
}

/** A dry run's end: the writes rolled back, the record they made answered. */
class RolledBack {
  constructor(readonly record: WouldBeReservation) {}
}

const iso = (ms: number) => new Date(ms).toISOString();

/**
 * A collective reservation moved (DECISIONS.md "Teams"): to a new time and, with
 * `resourceIds`, to another set of resources, all or nothing in one transaction. Its parts
 * are dropped and written again where the time is taken, so its own time blocks nothing; the
 * reservation keeps its id, status, expiry and payment. A dry run makes the writes and rolls
 * them back.
 */
export async function moveTogether(
  ctx: ReservationsContext,
  org: OrganisationSchedule,
  found: Reservation,
  input: MoveInput,
  overriding: number | null,
  options: { dryRun?: boolean } = {},
): Promise<Reservation | WouldBeReservation> {
  if (input.resourceId !== undefined)
    throw invalidField('resourceId', 'is not accepted: a collective reservation moves with resourceIds');
  const hosts = await hostsOf(ctx, org.organisationId, input.resourceIds ?? found.resourceIds);
  const { start, end } = requestedTimes(input);
  const booking: Booking = {
    org,
    input: { ...input, customer: found.customer, resourceIds: hosts.map((host) => host.resourceId) },
    channel: { source: found.source, createdByUserId: found.createdByUserId, overrideRulesBy: overriding },
    hold: undefined,
    dryRun: options.dryRun === true,
    request: { start, end },
  };
  const move: CollectiveMove = { booking, found, hosts, overriding };
  try {
    return await inTransaction(ctx.db.kysely, (executor) => moveHosts(ctx, executor, move));
  } catch (error) {
    if (error instanceof RolledBack) return error.record;
    throw await offeredTogether(ctx, error, booking, hosts);
  }
}

async function moveHosts(
  ctx: ReservationsContext,
  executor: Executor,
  move: CollectiveMove,
): Promise<Reservation> {
  const { booking, found, hosts } = move;
  const rows = await ctx.repo.rowsOf(executor, found.id);
  const own = rows.find((row) => row.partOf === null);
  if (!own?.resourceId || own.startTime !== found.startTime)
    throw conflict('CONFLICT', 'This reservation was moved meanwhile; read it again before moving it');
  await ctx.repo.dropParts(executor, found.id);
  const ignore = { laneId: own.resourceId, start: Date.parse(own.startTime), end: Date.parse(own.endTime) };
  const offered = new Map<number, { offers: LaneOffer[]; resourceTypeId: number }>();
  for (const host of [...hosts].sort((a, b) => a.resourceId - b.resourceId)) {
    const read = await ctx.availability.readLanes(
      executor,
      booking.org,
      host.resourceTypeId,
      booking.request,
    );
    if (!read?.type.isActive) throw hostUnavailable();
    if (host === hosts[0]) await judgeFirstType(ctx, executor, move, read.type);
    const offers = await ctx.availability.offerLanes(
      executor,
      booking.org,
      read,
      { resourceId: host.resourceId },
      booking.request,
      ignore,
    );
    if (offers.length === 0) throw hostUnavailable();
    offered.set(host.resourceId, { offers, resourceTypeId: read.type.id });
  }
  const moved = await moveOwnRow(ctx, executor, move, own, offered);
  for (const [, { offers, resourceTypeId }] of offered)
    if (!offers.some((offer) => offer.laneId === moved.laneId))
      await writePart(
        ctx,
        executor,
        { found, organisationId: booking.org.organisationId },
        offers,
        resourceTypeId,
        booking.request,
      );
  const record = (await ctx.repo.findThrough(executor, booking.org.organisationId, found.id))!;
  if (booking.dryRun) throw new RolledBack({ ...record, id: null });
  return record;
}

/** The first resource's type decides the booking rules, as for a booking; checked for the move. */
async function judgeFirstType(
  ctx: ReservationsContext,
  executor: Executor,
  { booking, found, hosts, overriding }: CollectiveMove,
  type: Parameters<typeof checkBookable>[0],
): Promise<void> {
  checkBookable(type, { ...booking.input, resourceId: hosts[0]!.resourceId }, booking.channel);
  await assertBookingRules(
    {
      action: 'reschedule',
      reservationId: found.id,
      currentStart: Date.parse(found.startTime),
      start: booking.request.start,
      end: booking.request.end,
      customerEmail: found.customer.email ?? '',
    },
    type.bookingRules,
    { customerDays: ctx.customerDaysOf(executor, booking.org, type.id), overrideBy: overriding },
  );
}

/**
 * The reservation's own row moved: on its lane when that lane still takes the time, else to
 * the first host (by resource id) that does. Answers the lane it now keeps.
 */
async function moveOwnRow(
  ctx: ReservationsContext,
  executor: Executor,
  { booking, hosts }: CollectiveMove,
  own: Part,
  offered: Map<number, { offers: LaneOffer[]; resourceTypeId: number }>,
): Promise<{ laneId: number }> {
  const candidates = [...offered.values()].flatMap(({ offers, resourceTypeId }) =>
    offers.map((offer) => ({ offer, resourceTypeId })),
  );
  const { offer, resourceTypeId } =
    candidates.find(({ offer }) => offer.laneId === own.resourceId) ?? candidates[0]!;
  const moved = await ctx.repo.moveOnLane(
    executor,
    {
      id: own.id,
      from: { resourceId: own.resourceId!, startTime: own.startTime, endTime: own.endTime },
      to: {
        startTime: iso(booking.request.start),
        endTime: iso(booking.request.end),
        resourceId: offer.laneId,
        blockedUntil: iso(offer.blockedUntil),
        assignmentStrategy: null,
        assignmentReason: null,
        resourceTypeId,
        resourceIds: JSON.stringify(hosts.map((host) => host.resourceId)),
      },
      rulesOverriddenByUserId: null,
    },
    offer.laneUpdatedAt,
    nowIso(),
  );
  if (!moved) throw hostUnavailable();
  return { laneId: offer.laneId };
}

/** A part written again on the first of the host's lanes that takes it. */
async function writePart(
  ctx: ReservationsContext,
  executor: Executor,
  { found, organisationId }: { found: Reservation; organisationId: number },
  offers: LaneOffer[],
  resourceTypeId: number,
  request: { start: number; end: number },
): Promise<void> {
  const now = nowIso();
  for (const offer of offers) {
    if (offer.hasLapsedHolds) await ctx.expireLapsed(executor, now, { laneId: offer.laneId });
    const part = await ctx.repo.insertOnLane(
      executor,
      {
        ...NO_CUSTOMER,
        organisationId,
        resourceTypeId,
        resourceId: offer.laneId,
        status: found.status,
        startTime: iso(request.start),
        endTime: iso(request.end),
        blockedUntil: iso(offer.blockedUntil),
        source: found.source,
        createdByUserId: found.createdByUserId,
        rulesOverriddenByUserId: null,
        expiresAt: found.expiresAt,
        partOf: found.id,
      },
      offer.laneUpdatedAt,
      now,
    );
    if (part) return;
  }
  throw hostUnavailable();
}
