import { type Executor, inTransaction } from '../../db/database.js';
import { conflict, DomainError } from '../../lib/errors.js';
import { nowIso } from '../../lib/time.js';
import type { OrganisationSchedule } from '../availability/service.js';
import type { Occurrence } from '../events/recurrence.js';
import type { StoredResourceType } from '../resource-types/service.js';
import { type RankedOffer, rankOffers } from './assignment.js';
import type { Booking } from './book.js';
import { valuesOf } from './book.js';
import { type BookingChannel, bookableType, bookingDetails, typeIdOf } from './bookable.js';
import {
  type Host,
  type HostOffers,
  hostsOf,
  isHostRefusal,
  offersOf,
  readHostsInTurn,
  writeHosts,
} from './collective.js';
import type { ReservationsContext } from './context.js';
import { wouldBeBooked } from './dry-run.js';
import type { SeriesDryRun, WouldBeReservation } from './dry-run-schemas.js';
import { storedManageLink } from './manage-link.js';
import type { createSeriesRepo, NewReservation } from './repo.js';
import { assertBookingRules, type CustomerDays } from './rules.js';
import type { Reservation, ReservationInput, SeriesBooking } from './schemas.js';
import { expandRecurrence } from './series-recurrence.js';
import { refusal, SeriesMisfit } from './series-refusal.js';

/** Whole-series attempts on PostgreSQL, where a concurrent booking can take an occurrence's time after the read. */
const SERIES_ATTEMPTS = 3;

/**
 * A PostgreSQL insert refused mid-series (its time taken since the read): the series is tried
 * again; the last attempt's is refused as the misfit of that occurrence, with its reasons.
 */
class LaneRaced extends SeriesMisfit {}

/** What the series use cases share: the reservations context and the series' own repo. */
export interface SeriesContext extends ReservationsContext {
  seriesRepo: ReturnType<typeof createSeriesRepo>;
}

/** One attempt's series, as each of its occurrences is booked into it. */
interface SeriesPlan {
  org: OrganisationSchedule;
  input: ReservationInput;
  channel: BookingChannel;
  type: StoredResourceType;
  dryRun: boolean;
  now: string;
  seriesId: number | null;
  target: { resourceId?: number };
  /** A collective series' resources: every occurrence takes them all. */
  hosts: Host[] | undefined;
  expiresAt: string | null;
  customerDays: CustomerDays;
}

/** One whole attempt in one transaction; answers the booked occurrences, or the ones that do not fit. */
async function attempt(
  ctx: SeriesContext,
  org: OrganisationSchedule,
  input: ReservationInput,
  recurrence: string[],
  channel: BookingChannel,
  dryRun: boolean,
) {
  // Read before the transaction: on SQLite it holds the only connection.
  const hosts = input.resourceIds ? await hostsOf(ctx, org.organisationId, input.resourceIds) : undefined;
  const resourceTypeId = hosts ? hosts[0]!.resourceTypeId : await typeIdOf(ctx, org, input);
  const named = hosts ? { resourceId: hosts[0]!.resourceId } : {};
  return inTransaction(ctx.db.kysely, async (trx) => {
    const type = await bookableType(ctx, trx, org, { ...input, ...named, resourceTypeId }, channel);
    if (!type.recurringEnabled)
      throw conflict(
        'RECURRENCE_NOT_ENABLED',
        'This resource type does not take recurring reservations (recurringEnabled is false)',
      );
    const start = Date.parse(input.startTime);
    const end = Date.parse(input.endTime);
    const occurrences = expandRecurrence(recurrence, start, end, org.timezone);
    const chargeTo =
      type.paymentRequired && !dryRun
        ? await ctx.payment.chargeableAccount(org.organisationId, trx)
        : undefined;
    const asked = { org, input, channel, type, dryRun, hosts };
    const plan = await planOf(ctx, trx, asked, recurrence, occurrences);
    return { seriesId: plan.seriesId, booked: await bookOccurrences(ctx, trx, plan, occurrences), chargeTo };
  });
}

/**
 * The series the occurrences are booked into: its row written (none in a dry run), the
 * type's longest reservation raised to its length, and what each occurrence shares.
 */
async function planOf(
  ctx: SeriesContext,
  trx: Executor,
  asked: Pick<SeriesPlan, 'org' | 'input' | 'channel' | 'type' | 'dryRun' | 'hosts'>,
  recurrence: string[],
  occurrences: Occurrence[],
): Promise<SeriesPlan> {
  const { org, input, channel, type, dryRun } = asked;
  const now = nowIso();
  const seriesId = dryRun
    ? null
    : await ctx.seriesRepo.insert(
        trx,
        {
          organisationId: org.organisationId,
          resourceTypeId: type.id,
          recurrence,
          startTime: occurrences[0]!.start,
          endTime: occurrences[0]!.end,
          createdByUserId: channel.createdByUserId,
        },
        now,
      );
  const minutes = Math.ceil((Date.parse(input.endTime) - Date.parse(input.startTime)) / 60_000);
  if (!dryRun && minutes > type.longestReservationMinutes)
    await ctx.resourceTypes.recordReservationLength(trx, type.id, minutes);
  return {
    ...asked,
    now,
    seriesId,
    target: input.resourceId !== undefined ? { resourceId: input.resourceId } : {},
    expiresAt: type.paymentRequired
      ? new Date(Date.parse(now) + type.paymentWindowMinutes * 60_000).toISOString()
      : null,
    customerDays: ctx.customerDaysOf(trx, org, type.id),
  };
}

/** Books each occurrence in turn; once one does not fit, reads the rest to throw SeriesMisfit naming them all. */
async function bookOccurrences(
  ctx: SeriesContext,
  trx: Executor,
  plan: SeriesPlan,
  occurrences: Occurrence[],
): Promise<Array<Reservation | WouldBeReservation>> {
  const booked: Array<Reservation | WouldBeReservation> = [];
  const misfits: Occurrence[] = [];
  for (const [n, occurrence] of occurrences.entries()) {
    const at = { start: Date.parse(occurrence.start), end: Date.parse(occurrence.end) };
    const rulesOverriddenByUserId = await occurrenceRules(plan, occurrence, at);
    if (plan.hosts) {
      const together = await collectiveOccurrence(
        ctx,
        trx,
        plan,
        { n, occurrence, at, rulesOverriddenByUserId },
        misfits.length === 0,
      );
      if (together === undefined) misfits.push(occurrence);
      else if (together !== null) booked.push(together);
      continue;
    }
    const read = await ctx.availability.readLanes(trx, plan.org, plan.type.id, at);
    const offers = read ? await ctx.availability.offerLanes(trx, plan.org, read, plan.target, at) : [];
    const [fit] = read ? await rankOffers(trx, ctx.repo, read, offers, pooledAt(plan, at.start)) : [];
    if (!fit) {
      misfits.push(occurrence);
      continue;
    }
    // Once one does not fit nothing is written: the rest are only read, to name them all.
    if (misfits.length > 0) continue;
    booked.push(await bookOccurrence(ctx, trx, plan, { n, occurrence, ...fit, rulesOverriddenByUserId }));
  }
  if (misfits.length > 0) throw new SeriesMisfit(misfits, plan.type.id);
  return booked;
}

/**
 * Occurrence `n` of a collective series booked on every host (collective.ts), when `write`
 * (nothing written once one did not fit: null); undefined when a host has no lane free for
 * it; LaneRaced when a host's lane was taken since the read.
 */
async function collectiveOccurrence(
  ctx: SeriesContext,
  trx: Executor,
  plan: SeriesPlan,
  { n, occurrence, at, rulesOverriddenByUserId }: OccurrenceAt,
  write: boolean,
): Promise<Reservation | WouldBeReservation | null | undefined> {
  const { org, input, channel, type, dryRun, hosts } = plan;
  const booking: Booking = { org, input, channel, hold: undefined, dryRun, request: at };
  let offered: HostOffers[];
  try {
    offered = await offersOf(ctx, trx, booking, hosts!, await readHostsInTurn(ctx, trx, booking, hosts!));
  } catch (error) {
    if (isHostRefusal(error)) return undefined;
    throw error;
  }
  if (!write) return null;
  const values = {
    ...valuesOf(ctx, booking, type, rulesOverriddenByUserId),
    ...storedManageLink(dryRun ? null : (channel.manageLinkOf?.(n) ?? ctx.mintManageLink())),
    resourceIds: hosts!.map((host) => host.resourceId),
    seriesId: plan.seriesId,
    startTime: occurrence.start,
    endTime: occurrence.end,
  };
  const booked = await writeHosts(ctx, trx, booking, type, values, offered).catch((error: unknown) => {
    throw isHostRefusal(error) ? new LaneRaced([occurrence], type.id) : error;
  });
  return dryRun ? { ...(booked as WouldBeReservation), seriesId: null } : booked;
}

/** One occurrence as it is booked: its number, its time and who overrode the rules for it. */
interface OccurrenceAt {
  n: number;
  occurrence: Occurrence;
  at: { start: number; end: number };
  rulesOverriddenByUserId: number | null;
}

/** What the pool's assignment ranks an occurrence's lanes by: a pool series takes the type's strategy. */
const pooledAt = ({ target, org, now }: SeriesPlan, start: number) => ({
  pooled: target.resourceId === undefined,
  start,
  timezone: org.timezone,
  now,
});

/** The type's booking rules judged for one occurrence; a refusal names the occurrence. */
function occurrenceRules(
  { input, type, channel, customerDays }: SeriesPlan,
  occurrence: Occurrence,
  at: { start: number; end: number },
): Promise<number | null> {
  return assertBookingRules(
    { action: 'book', ...at, customerEmail: input.customer.email },
    type.bookingRules,
    { customerDays, overrideBy: channel.overrideRulesBy ?? null },
  ).catch((error: unknown) => {
    if (error instanceof DomainError)
      throw new DomainError(
        error.code,
        `The occurrence starting ${occurrence.start}: ${error.message}`,
        error.details,
      );
    throw error;
  });
}

/** Occurrence `n` booked on the lane `offer` (a dry run: the record it would write there); LaneRaced when refused. */
async function bookOccurrence(
  ctx: SeriesContext,
  trx: Executor,
  plan: SeriesPlan,
  fit: RankedOffer & { n: number; occurrence: Occurrence; rulesOverriddenByUserId: number | null },
): Promise<Reservation | WouldBeReservation> {
  const { org, input, channel, type, dryRun, now } = plan;
  const { n, occurrence, offer } = fit;
  const values: NewReservation = {
    organisationId: org.organisationId,
    resourceTypeId: type.id,
    resourceId: offer.laneId,
    status: type.paymentRequired ? 'pending_payment' : 'confirmed',
    startTime: occurrence.start,
    endTime: occurrence.end,
    blockedUntil: new Date(offer.blockedUntil).toISOString(),
    ...bookingDetails(input, type, channel, fit.rulesOverriddenByUserId),
    expiresAt: plan.expiresAt,
    ...storedManageLink(dryRun ? null : (channel.manageLinkOf?.(n) ?? ctx.mintManageLink())),
    seriesId: plan.seriesId,
    assignment: fit.assignment,
  };
  if (dryRun) return { ...wouldBeBooked(values, now), seriesId: null };
  if (offer.hasLapsedHolds) await ctx.expireLapsed(trx, now, { laneId: offer.laneId });
  const inserted = await ctx.repo.insertOnLane(trx, values, offer.laneUpdatedAt, now);
  if (!inserted) throw new LaneRaced([occurrence], type.id);
  return inserted;
}

/** `bookSeries` as ReservationsService documents it. */
export async function bookSeries(
  ctx: SeriesContext,
  org: OrganisationSchedule,
  input: ReservationInput,
  recurrence: string[],
  channel: BookingChannel,
): Promise<SeriesBooking> {
  for (let attempted = 1; ; attempted++) {
    try {
      const { seriesId, booked, chargeTo } = await attempt(ctx, org, input, recurrence, channel, false);
      const reservations = booked as Reservation[];
      if (chargeTo === undefined) return { seriesId: seriesId!, reservations };
      return { seriesId: seriesId!, reservations: await ctx.payment.startForSeries(reservations, chargeTo) };
    } catch (error) {
      if (error instanceof LaneRaced && attempted < SERIES_ATTEMPTS) continue;
      throw await refusal(ctx, error, org, input, channel);
    }
  }
}

/** `dryRunSeries` as ReservationsService documents it. */
export async function dryRunSeries(
  ctx: SeriesContext,
  org: OrganisationSchedule,
  input: ReservationInput,
  recurrence: string[],
  channel: BookingChannel,
): Promise<SeriesDryRun> {
  try {
    const { booked } = await attempt(ctx, org, input, recurrence, channel, true);
    return { wouldSucceed: true, seriesId: null, reservations: booked as WouldBeReservation[] };
  } catch (thrown) {
    const error = await refusal(ctx, thrown, org, input, channel);
    if (
      !(error instanceof DomainError) ||
      !['SLOT_UNAVAILABLE', 'HOST_UNAVAILABLE', 'BOOKING_RULE_VIOLATED', 'PAYMENT_NOT_READY'].includes(
        error.code,
      )
    )
      throw error;
    return {
      wouldSucceed: false,
      error: {
        code: error.code,
        message: error.message,
        ...(error.details ? { details: error.details } : {}),
        ...(error.conflicts ? { conflicts: error.conflicts } : {}),
        alternatives: error.alternatives ?? [],
      },
    };
  }
}
