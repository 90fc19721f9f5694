import type { GatedCall } from '../../mcp/types.js';
import { KEEPING_STATUSES } from '../reservations/ports.js';
import type { Reservation } from '../reservations/schemas.js';
import type { ReservationsService } from '../reservations/service.js';
import type { ResourceTypesService } from '../resource-types/service.js';
import type { WaitlistService } from '../waitlist/service.js';
import { ACTION_TRAITS, type BookedTime, formatMoney, quoteOf } from './policy.js';

/**
 * What a call would do, read the same way when it asks for approval (its owner is shown
 * it, and it is kept) and when the approved call is about to run (checked against what
 * was kept): the reservations it books, moves, confirms or cancels, its price, and how
 * many units of a daily limit it uses.
 */
export interface CallFacts {
  times: BookedTime[];
  /** Minor units (a series: the sum of its occurrences); null when it charges nothing known. */
  amount: number | null;
  currency: string | null;
  /** The daily limit it counts against (a waitlist offer's confirmation: a booking). */
  counts: 'booking' | 'cancellation' | null;
  /** How many of that limit: each occurrence of a series, each one it cancels. */
  units: number;
  /** Whose reservation it books or changes, as its owner is shown it; null when it names none. */
  customer?: CallCustomer | null;
}

/** The customer a call books for or acts on: their name and email as the reservation keeps them. */
export interface CallCustomer {
  name: string | null;
  email: string | null;
}

/** What an approval kept of its call's facts, with the organisation it was asked in. */
export interface ShownFacts {
  organisationId: number | null;
  times: BookedTime[];
  amount: number | null;
  currency: string | null;
}

/** The reads of other modules facts need, as the agent (its Actor) may make them. */
export interface FactReaders {
  reservations: Pick<ReservationsService, 'get' | 'getSeries'>;
  resourceTypes: Pick<ResourceTypesService, 'get'>;
  waitlist: Pick<WaitlistService, 'isOfferHold'>;
}

const NO_FACTS: CallFacts = { times: [], amount: null, currency: null, counts: null, units: 0 };

const textOf = (value: unknown) => (typeof value === 'string' && value.trim() !== '' ? value : null);

/** The `customer` of a reservation record or a booking's arguments; null when it has none. */
export function customerOf(record: unknown): CallCustomer | null {
  const customer = (record as { customer?: unknown } | null | undefined)?.customer;
  if (customer === null || typeof customer !== 'object') return null;
  const { name, email } = customer as Record<string, unknown>;
  const found = { name: textOf(name), email: textOf(email) };
  return found.name === null && found.email === null ? null : found;
}

/** A reservation's place and time, as an approval keeps it (its price is kept beside). */
const placeAndTime = ({ resourceId, resourceTypeId, startTime, endTime }: BookedTime): BookedTime => ({
  resourceId,
  resourceTypeId,
  startTime,
  endTime,
});

/**
 * What `call` counts against the daily limits when nothing else of it is needed (no approval
 * to show it, no amount to compare or count): a booking without `recurrence` books one
 * reservation, or fails and gives its unit back, so it is one unit without a dry run (which
 * would run the booking's reads twice). Undefined when only its facts can tell.
 */
export function unitsAlone(call: GatedCall): CallFacts | undefined {
  const traits = ACTION_TRAITS[call.actionKey];
  if (traits?.reads !== 'dryRun' || traits.counts !== 'booking' || call.input.recurrence !== undefined)
    return undefined;
  return { ...NO_FACTS, counts: traits.counts, units: 1, customer: customerOf(call.input) };
}

/**
 * The facts of `call`, as the agent sees things now. Priced actions run their own dry run
 * (the booking's checks and pricing, nothing of them repeated here); a dry run that would
 * fail has no facts, and one unit: the call fails by itself, and gives its unit back.
 */
export async function factsOf(call: GatedCall, readers: FactReaders): Promise<CallFacts> {
  const traits = ACTION_TRAITS[call.actionKey];
  if (!traits) return NO_FACTS;
  const counts = traits.counts ?? null;
  if (traits.reads === 'dryRun') {
    const quote = call.dryRun ? quoteOf(await call.dryRun()) : null;
    return {
      times: (quote?.times ?? []).map(placeAndTime),
      amount: quote?.amount ?? null,
      currency: quote?.currency ?? null,
      counts,
      units: Math.max(1, quote?.times.length ?? 0),
      customer: customerOf(quote?.times[0]) ?? customerOf(call.input),
    };
  }
  if (traits.reads === 'series') {
    const { seriesId } = call.input;
    if (typeof seriesId !== 'number') return { ...NO_FACTS, counts };
    const series = await readers.reservations.getSeries(call.actor, seriesId).catch(() => undefined);
    // Exactly what a series cancel cancels: the occurrences keeping their time that have not started.
    const now = Date.now();
    const ahead = (series?.reservations ?? []).filter(
      (r) => (KEEPING_STATUSES as readonly string[]).includes(r.status) && Date.parse(r.startTime) > now,
    );
    return {
      ...NO_FACTS,
      times: ahead.map(placeAndTime),
      counts,
      units: ahead.length,
      customer: customerOf(series?.reservations[0]),
    };
  }
  const { reservationId } = call.input;
  if (typeof reservationId !== 'number') return { ...NO_FACTS, counts, units: 1 };
  const reservation = await readers.reservations.get(call.actor, reservationId).catch(() => undefined);
  if (!reservation) return { ...NO_FACTS, counts, units: 1 };
  const facts: CallFacts = {
    ...NO_FACTS,
    times: [placeAndTime(reservation)],
    counts,
    units: 1,
    customer: customerOf(reservation),
  };
  if (!traits.takesOffer || reservation.status !== 'held') return facts;
  // A hold made without a price is charged the type's price if the type takes payment by now:
  // money nothing was shown or counted for when it was held.
  const unpriced = reservation.priceAmount === null ? await typeCharge(readers, call, reservation) : null;
  if (await readers.waitlist.isOfferHold(call.actor, reservationId))
    return {
      ...facts,
      amount: reservation.priceAmount ?? unpriced?.amount ?? null,
      currency: reservation.priceCurrency ?? unpriced?.currency ?? null,
      counts: 'booking',
    };
  // The agent's own hold counted as a booking when held: only new money counts now.
  return unpriced ? { ...facts, ...unpriced, counts: 'booking', units: 0 } : facts;
}

/** What confirming an unpriced hold charges: the type's price when it takes payment now. */
async function typeCharge(
  readers: FactReaders,
  call: GatedCall,
  held: Reservation,
): Promise<{ amount: number; currency: string | null } | null> {
  if (held.resourceTypeId === null) return null;
  const type = await readers.resourceTypes.get(call.actor, held.resourceTypeId).catch(() => undefined);
  return type?.paymentRequired && type.priceAmount !== null
    ? { amount: type.priceAmount, currency: type.priceCurrency }
    : null;
}

const sameTime = (a: BookedTime, b: BookedTime) =>
  a.resourceId === b.resourceId &&
  a.resourceTypeId === b.resourceTypeId &&
  Date.parse(a.startTime) === Date.parse(b.startTime) &&
  Date.parse(a.endTime) === Date.parse(b.endTime);

const priceText = (amount: number | null, currency: string | null) =>
  amount === null || !currency ? 'none' : formatMoney(amount, currency);

/**
 * Why what an approved call would do now is not what its owner was shown; empty when it
 * is. A call that would now do nothing (a dry run that would fail, a reservation gone) is
 * not stale: it fails, or does nothing, by itself. An amount the owner saw is theirs to
 * approve; the policy's threshold refuses only another one above it.
 */
export function staleness(shown: ShownFacts, now: CallFacts, approvalOverAmount: number | null): string[] {
  if (now.times.length === 0 && shown.times.length > 0) return [];
  const reasons: string[] = [];
  if (
    now.times.length !== shown.times.length ||
    now.times.some((time, i) => !sameTime(time, shown.times[i]!))
  )
    reasons.push(
      `its resources or times are not those shown (now ${now.times.length} reservation(s)${now.times[0] ? ` from ${now.times[0].startTime}` : ''})`,
    );
  const samePrice =
    now.amount === shown.amount &&
    (now.amount === null || now.currency?.toUpperCase() === shown.currency?.toUpperCase());
  if (!samePrice) {
    reasons.push(
      `its price is now ${priceText(now.amount, now.currency)} (shown: ${priceText(shown.amount, shown.currency)})`,
    );
    if (approvalOverAmount !== null && now.amount !== null && now.amount > approvalOverAmount)
      reasons.push(`which is over the approval threshold of ${priceText(approvalOverAmount, now.currency)}`);
  }
  return reasons;
}
