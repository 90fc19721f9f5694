import { type Executor, inTransaction } from '../../db/database.js';
import { conflict, DomainError, invalidField } from '../../lib/errors.js';
import { nowIso } from '../../lib/time.js';
import type { StoredResourceType } from '../resource-types/service.js';
import { bookableResourcesAmong } from '../resources/ports.js';
import { picksInTurn, typesInTurn } from './assignment.js';
import {
  accountCharged,
  type Booked,
  type Booking,
  customerScope,
  expiryOf,
  judgedByRules,
  valuesOf,
} from './book.js';
import { checkBookable } from './bookable.js';
import type { LaneOffer, LaneRead, ReservationsContext } from './context.js';
import { wouldBeBooked } from './dry-run.js';
import type { NewReservation } from './repo.js';
import type { Reservation } from './schemas.js';

/** One resource of a collective booking, with its type. */
export interface Host {
  resourceId: number;
  resourceTypeId: number;
}

/** A host's lanes where the booking's time fits, as read in the booking's transaction. */
export interface HostOffers {
  host: Host;
  read: LaneRead;
  offers: LaneOffer[];
}

/** The refusal of a collective booking; `offeredTogether` adds which resource and why. */
export const hostUnavailable = () =>
  conflict(
    'HOST_UNAVAILABLE',
    'Not every resource of this collective booking is free for the requested time',
  );

/**
 * The resources a collective booking names, each a bookable resource of the organisation
 * (400 naming resourceIds otherwise), in the order given.
 */
export async function hostsOf(
  ctx: Pick<ReservationsContext, 'db'>,
  organisationId: number,
  resourceIds: readonly number[],
): Promise<Host[]> {
  const found = await bookableResourcesAmong(ctx.db.kysely, organisationId, resourceIds).execute();
  const typeOf = new Map(found.map((row) => [row.id, row.resourceTypeId]));
  return resourceIds.map((resourceId) => {
    const resourceTypeId = typeOf.get(resourceId);
    if (resourceTypeId === undefined)
      throw invalidField(
        'resourceIds',
        `lists ${resourceId}, which is no bookable resource of this organisation (capacity lanes are booked through their parent)`,
      );
    return { resourceId, resourceTypeId };
  });
}

/**
 * A collective booking (DECISIONS.md "Teams"): one reservation taking every host for the
 * same time, all or nothing, in one transaction on both databases. The first host's type
 * decides what a booking of one resource would (the customer's fields, price, payment,
 * booking rules); every host's own hours, notice, buffers and bookings must fit. Rows are
 * written in resource order, so two collective bookings of overlapping sets wait for each
 * other on PostgreSQL rather than deadlock; the reservation is the first row written, the
 * others its parts.
 */
export async function bookHosts(
  ctx: ReservationsContext,
  booking: Booking,
  hosts: Host[],
): Promise<{ booked: Booked; chargeTo: string | undefined }> {
  return inTransaction(ctx.db.kysely, async (executor) => {
    const reads = await readHostsInTurn(ctx, executor, booking, hosts);
    const type = checkBookable(
      reads.get(hosts[0]!.resourceId)!.type,
      { ...booking.input, resourceId: hosts[0]!.resourceId },
      booking.channel,
    );
    const chargeTo = await accountCharged(ctx, executor, booking, type);
    const booked = await customerScope(
      ctx,
      executor,
      type,
      booking.input.customer.email,
    )(async (inner) => {
      const rulesOverriddenBy = await judgedByRules(ctx, inner, booking, type);
      const offered = await offersOf(ctx, inner, booking, hosts, reads);
      const values = {
        ...valuesOf(ctx, booking, type, rulesOverriddenBy),
        resourceIds: hosts.map((h) => h.resourceId),
      };
      return writeHosts(ctx, inner, booking, type, values, offered);
    });
    return { booked, chargeTo };
  });
}

/** Each host's type and lanes, read once, checked: a type that books by its pool cannot be named, an inactive one is not free. */
export async function readHosts(
  ctx: ReservationsContext,
  executor: Executor,
  { org, request }: Booking,
  hosts: Host[],
): Promise<Map<number, LaneRead>> {
  const reads = new Map<number, LaneRead>();
  for (const host of byResource(hosts)) {
    const read = await ctx.availability.readLanes(executor, org, host.resourceTypeId, request);
    if (!read || read.type.bookingMode === 'POOL')
      throw invalidField(
        'resourceIds',
        `lists ${host.resourceId}, whose resource type books from its pool (POOL): it cannot be named`,
      );
    if (!read.type.isActive) throw hostUnavailable();
    reads.set(host.resourceId, read);
  }
  return reads;
}

/**
 * `readHosts`, and when a host has a daily cap, again once the types of its capped hosts are
 * this transaction's turn (`typesInTurn`): the cap then counts every booking committed before.
 */
export async function readHostsInTurn(
  ctx: ReservationsContext,
  executor: Executor,
  booking: Booking,
  hosts: Host[],
): Promise<Map<number, LaneRead>> {
  const reads = await readHosts(ctx, executor, booking, hosts);
  const capped = [...reads.values()].filter((read) => picksInTurn(read, false)).map((read) => read.type.id);
  if (capped.length === 0 || ctx.db.dialect !== 'postgres') return reads;
  await typesInTurn(executor, ctx.db.dialect, capped);
  return readHosts(ctx, executor, booking, hosts);
}

/** The hosts in the order their rows are written: by resource id. */
const byResource = (hosts: Host[]) => [...hosts].sort((a, b) => a.resourceId - b.resourceId);

/** Every host's lanes where the time fits; HOST_UNAVAILABLE when one has none. */
export async function offersOf(
  ctx: ReservationsContext,
  executor: Executor,
  { org, request }: Booking,
  hosts: Host[],
  reads: Map<number, LaneRead>,
): Promise<HostOffers[]> {
  const offered: HostOffers[] = [];
  for (const host of byResource(hosts)) {
    const read = reads.get(host.resourceId)!;
    const offers = await ctx.availability.offerLanes(
      executor,
      org,
      read,
      { resourceId: host.resourceId },
      request,
    );
    if (offers.length === 0) throw hostUnavailable();
    offered.push({ host, read, offers });
  }
  return offered;
}

/**
 * The reservation on the first host's lane that takes it, then a part on each other host's;
 * HOST_UNAVAILABLE (the transaction rolled back) when a host's every lane was taken since
 * the read. A dry run answers the record it would write.
 */
export async function writeHosts(
  ctx: ReservationsContext,
  executor: Executor,
  { hold, dryRun, request }: Booking,
  type: StoredResourceType,
  values: Omit<NewReservation, 'resourceId' | 'blockedUntil' | 'expiresAt'>,
  offered: HostOffers[],
): Promise<Booked> {
  const now = nowIso();
  const expiresAt = expiryOf(now, hold, type);
  const [first, ...rest] = offered;
  if (dryRun) {
    const { laneId, blockedUntil } = first!.offers[0]!;
    return wouldBeBooked({ ...values, resourceId: laneId, blockedUntil: iso(blockedUntil), expiresAt }, now);
  }
  const minutes = Math.ceil((request.end - request.start) / 60_000);
  for (const { read } of offered)
    if (minutes > read.type.longestReservationMinutes)
      await ctx.resourceTypes.recordReservationLength(executor, read.type.id, minutes);
  const reservation = await onAnyLane(ctx, executor, first!, { ...values, expiresAt }, now);
  for (const host of rest) {
    const part: PartValues = {
      ...values,
      ...NO_CUSTOMER,
      resourceTypeId: host.read.type.id,
      resourceIds: null,
      // A part belongs to no series: the series' reads list reservations only.
      seriesId: null,
      partOf: reservation.id,
      expiresAt,
    };
    await onAnyLane(ctx, executor, host, part, now);
  }
  return reservation;
}

type PartValues = Omit<NewReservation, 'resourceId' | 'blockedUntil'>;

/** What a part carries instead of the reservation's customer, notes, price and links: nothing. */
export const NO_CUSTOMER = {
  customer: { name: '', email: '' },
  notes: null,
  priceAmount: null,
  priceCurrency: null,
  manageTokenHash: null,
  manageTokenSealed: null,
  publicClientHash: null,
} satisfies Partial<NewReservation>;

/** `values` inserted on the first of the host's lanes that takes it; HOST_UNAVAILABLE when none does. */
async function onAnyLane(
  ctx: ReservationsContext,
  executor: Executor,
  { offers }: HostOffers,
  values: PartValues,
  now: string,
): Promise<Reservation> {
  for (const offer of offers) {
    if (offer.hasLapsedHolds) await ctx.expireLapsed(executor, now, { laneId: offer.laneId });
    const row = await ctx.repo.insertOnLane(
      executor,
      { ...values, resourceId: offer.laneId, blockedUntil: iso(offer.blockedUntil) },
      offer.laneUpdatedAt,
      now,
    );
    if (row) return row;
  }
  throw hostUnavailable();
}

const iso = (ms: number) => new Date(ms).toISOString();

/** Whether `error` is a collective booking's refusal that `offeredTogether` explains. */
export const isHostRefusal = (error: unknown): error is DomainError =>
  error instanceof DomainError && error.code === 'HOST_UNAVAILABLE' && error.alternatives === undefined;
