import type { UsageKind } from '../agents/tables.js';

/**
 * What an agent's policy needs to know of particular actions, beyond their risk (the
 * catalogue's read/write/destructive): which daily limit a call counts against, and how
 * what it would do is read (its facts: resources, times, price). Kept here, with the
 * policy, so the tool contract stays generic; an action not listed counts against no
 * limit and has no facts beyond its arguments.
 */
export interface ActionTraits {
  /** The daily limit it counts against: one unit per reservation it books or cancels. */
  counts?: Exclude<UsageKind, 'spend'>;
  /**
   * Where its facts come from: its own dry run (which prices it; a series' occurrences
   * each), the reservation it names, or the occurrences not yet started of the series it names.
   */
  reads: 'dryRun' | 'reservation' | 'series';
  /** Confirming a waitlist offer's hold takes the offer: a booking, priced at the hold's price. */
  takesOffer?: true;
  /** How a summary starts: "Book Room A, ...". */
  verb: string;
}

export const ACTION_TRAITS: Readonly<Record<string, ActionTraits>> = {
  'reservations.create': { counts: 'booking', reads: 'dryRun', verb: 'Book' },
  'reservations.hold': { counts: 'booking', reads: 'dryRun', verb: 'Hold' },
  'reservations.reschedule': { reads: 'dryRun', verb: 'Move to' },
  'reservations.confirm': { reads: 'reservation', takesOffer: true, verb: 'Confirm' },
  'reservations.cancel': { counts: 'cancellation', reads: 'reservation', verb: 'Cancel' },
  'reservations.release': { counts: 'cancellation', reads: 'reservation', verb: 'Release' },
  'reservations.series.cancel': { counts: 'cancellation', reads: 'series', verb: 'Cancel the series on' },
};

/** The part of a reservation record a summary names. */
export interface BookedTime {
  startTime: string;
  endTime: string;
  resourceId: number | null;
  resourceTypeId: number | null;
  priceAmount?: number | null;
  priceCurrency?: string | null;
}

/** What a dry run says a call would charge, and what it would book. */
export interface Quote {
  amount: number | null;
  currency: string | null;
  times: BookedTime[];
}

const isTime = (value: unknown): value is BookedTime =>
  value !== null &&
  typeof value === 'object' &&
  typeof (value as BookedTime).startTime === 'string' &&
  typeof (value as BookedTime).endTime === 'string';

/**
 * The price from a dry run's answer (`{wouldSucceed: true, reservation}`, or
 * `reservations` for a series): the sum of the prices; null when it would fail.
 */
export function quoteOf(answer: unknown): Quote | null {
  if (answer === null || typeof answer !== 'object') return null;
  const verdict = answer as { wouldSucceed?: unknown; reservation?: unknown; reservations?: unknown };
  if (verdict.wouldSucceed !== true) return null;
  const times = [
    verdict.reservation,
    ...(Array.isArray(verdict.reservations) ? verdict.reservations : []),
  ].filter(isTime);
  const priced = times.filter((time) => typeof time.priceAmount === 'number');
  return {
    amount: priced.length > 0 ? priced.reduce((sum, time) => sum + (time.priceAmount ?? 0), 0) : null,
    currency: priced[0]?.priceCurrency ?? null,
    times,
  };
}

/** "Tue 3 Mar 10:00-11:00 Europe/Berlin": a time range in the organisation's zone, the zone named. */
export function formatRange(startTime: string, endTime: string, timeZone: string): string {
  const day = new Intl.DateTimeFormat('en-GB', {
    weekday: 'short',
    day: 'numeric',
    month: 'short',
    timeZone,
  });
  const clock = new Intl.DateTimeFormat('en-GB', {
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
    timeZone,
  });
  const start = new Date(startTime);
  const end = new Date(endTime);
  const startDay = day.format(start).replace(',', '');
  const endDay = day.format(end).replace(',', '');
  const until = endDay === startDay ? clock.format(end) : `${endDay} ${clock.format(end)}`;
  return `${startDay} ${clock.format(start)}-${until} ${timeZone}`;
}

/** "40.00 EUR": minor units in the currency's own decimals. */
export function formatMoney(amount: number, code: string): string {
  const currency = code.toUpperCase();
  let digits = 2;
  try {
    digits =
      new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ??
      2;
  } catch {
    // An unknown code: two decimals, as most have.
  }
  return `${(amount / 10 ** digits).toFixed(digits)} ${currency}`;
}
