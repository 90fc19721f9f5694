import { DateTime } from 'luxon';
import { DomainError, forbidden, type RuleDetail } from '../../lib/errors.js';
import { can, ROLE_MATRIX } from '../../tenancy/roles.js';
import { bookableSpan } from '../availability/engine.js';
import type { OrganisationRole } from '../organisations/tables.js';
import type { BookingRuleName, BookingRules } from '../resource-types/schemas.js';

/**
 * A resource type's booking rules, checked by every write that books, holds, moves or
 * cancels a reservation (one function, so each write path words and counts them alike).
 * Notice and advance use the availability engine's span, so a time availability offers
 * passes them and one it withholds does not.
 */

/** What a write asks of the rules; times are epoch milliseconds. */
export type RuleWrite =
  /** A booking or a hold of [start, end) for a customer. */
  | { action: 'book'; start: number; end: number; customerEmail: string }
  /** Moving a reservation that starts at `currentStart` to [start, end). */
  | {
      action: 'reschedule';
      reservationId: number;
      currentStart: number;
      start: number;
      end: number;
      customerEmail: string;
    }
  /** Cancelling a reservation that starts at `start`. */
  | { action: 'cancel'; start: number };

/** A local day of the organisation's zone, as the ISO instants that bound it: [from, to). */
export interface LocalDay {
  from: string;
  to: string;
}

/** What the daily limit per customer reads; a booking or a reschedule gives it. */
export interface CustomerDays {
  /** The organisation's zone: a customer's day is a day there. */
  timezone: string;
  /**
   * How many reservations of the type keeping their time now start within `day` for the
   * customer email, leaving out `excludeId` (the reservation being moved).
   */
  count: (customerEmail: string, day: LocalDay, excludeId?: number) => Promise<number>;
}

export interface RuleContext {
  /** Required for `book` and `reschedule` writes (asked only when the type has a daily limit). */
  customerDays?: CustomerDays;
  /** The staff member overriding the rules (see `overrideBy`), or null. */
  overrideBy: number | null;
  /** Epoch ms; the clock when absent. */
  now?: number;
}

const MINUTE = 60_000;
const iso = (ms: number) => new Date(ms).toISOString();
const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** The local day of `instant` in `zone`. */
function localDayOf(instant: number, zone: string): LocalDay & { date: string } {
  const start = DateTime.fromMillis(instant, { zone }).startOf('day');
  return {
    date: start.toISODate()!,
    from: iso(start.toMillis()),
    to: iso(start.plus({ days: 1 }).toMillis()),
  };
}

/** The rules `write` breaks at `now`, in the order the type lists them; empty when none. */
export async function bookingRuleViolations(
  write: RuleWrite,
  rules: BookingRules | null,
  context: Omit<RuleContext, 'overrideBy'>,
): Promise<RuleDetail[]> {
  if (!rules) return [];
  const now = context.now ?? Date.now();
  const broken: RuleDetail[] = [];
  const add = (rule: BookingRuleName, message: string) => broken.push({ rule, message });

  if (write.action === 'cancel') {
    const notice = rules.cancelNoticeMinutes;
    if (notice !== undefined && write.start - now < notice * MINUTE) {
      add(
        'cancelNoticeMinutes',
        `a cancellation comes at least ${plural(notice, 'minute')} before the start (${iso(write.start)})`,
      );
    }
    return broken;
  }

  if (write.action === 'reschedule') {
    const notice = rules.rescheduleNoticeMinutes;
    if (notice !== undefined && write.currentStart - now < notice * MINUTE) {
      add(
        'rescheduleNoticeMinutes',
        `a reschedule comes at least ${plural(notice, 'minute')} before the current start (${iso(write.currentStart)})`,
      );
    }
  }
  const span = bookableSpan(rules, now);
  if (span && rules.minNoticeMinutes !== undefined && write.start < span.start) {
    add(
      'minNoticeMinutes',
      `a booking starts at least ${plural(rules.minNoticeMinutes, 'minute')} from now: at ${iso(span.start)} or later`,
    );
  }
  if (span && rules.maxAdvanceDays !== undefined && write.end > span.end) {
    add(
      'maxAdvanceDays',
      `a booking ends at most ${plural(rules.maxAdvanceDays, 'day')} from now: at ${iso(span.end)} or earlier`,
    );
  }
  const perDay = rules.maxPerCustomerPerDay;
  if (perDay !== undefined) {
    const days = context.customerDays;
    if (!days) throw new Error(`A ${write.action} checked against a daily limit needs customerDays`);
    const day = localDayOf(write.start, days.timezone);
    const excludeId = write.action === 'reschedule' ? write.reservationId : undefined;
    const count = await days.count(write.customerEmail, day, excludeId);
    if (count >= perDay) {
      add(
        'maxPerCustomerPerDay',
        `this customer already has ${plural(count, 'reservation')} of this type on ${day.date} (${days.timezone}); at most ${perDay} a day`,
      );
    }
  }
  return broken;
}

/** A quarter of an hour: every zone's offset, and every change of it, falls on one. */
const QUARTER_HOUR = 15 * MINUTE;

/**
 * The daily limit per customer as a test of single starts (epoch ms), for times offered
 * instead of a refused one: false on a local day where `starts` (ISO, the customer's
 * reservations of the type keeping their time, the one being moved left out) already reach
 * the limit. Undefined when the type has no daily limit.
 */
export function underDailyLimit(
  rules: BookingRules | null,
  timezone: string,
  starts: readonly string[],
): ((start: number) => boolean) | undefined {
  const perDay = rules?.maxPerCustomerPerDay;
  if (perDay === undefined) return undefined;
  // A local day never changes inside a quarter hour: each is looked up in the zone once.
  const dates = new Map<number, string>();
  const dateOf = (instant: number) => {
    const quarter = Math.floor(instant / QUARTER_HOUR);
    let date = dates.get(quarter);
    if (date === undefined) {
      date = localDayOf(instant, timezone).date;
      dates.set(quarter, date);
    }
    return date;
  };
  const counts = new Map<string, number>();
  for (const start of starts) {
    const date = dateOf(Date.parse(start));
    counts.set(date, (counts.get(date) ?? 0) + 1);
  }
  return (start) => (counts.get(dateOf(start)) ?? 0) < perDay;
}

/**
 * Checks `write` against the type's rules. A broken rule answers 409
 * BOOKING_RULE_VIOLATED with every broken rule in `details`, unless a staff member
 * overrides them: then the answer is who did, to be recorded on the reservation. Null
 * when no rule was broken (nothing to record).
 */
export async function assertBookingRules(
  write: RuleWrite,
  rules: BookingRules | null,
  context: RuleContext,
): Promise<number | null> {
  const broken = await bookingRuleViolations(write, rules, context);
  if (broken.length === 0) return null;
  if (context.overrideBy !== null) return context.overrideBy;
  throw new DomainError(
    'BOOKING_RULE_VIOLATED',
    `This breaks the resource type's booking rules: ${broken.map((b) => `${b.rule}: ${b.message}`).join('; ')}`,
    broken,
  );
}

/**
 * Who overrides the rules for a write that asked to (`overrideRules: true`): the acting
 * person, when their role allows it (an agent acts with its owner's role); null when not
 * asked. Asking without the role is 403 FORBIDDEN, whether or not a rule would break, so
 * the answer does not depend on the clock.
 */
export function overrideBy(
  userId: number,
  role: OrganisationRole,
  requested: boolean | undefined,
): number | null {
  if (!requested) return null;
  if (!can(role, 'overrideBookingRules')) {
    throw forbidden(
      `overrideRules needs one of the organisation roles ${ROLE_MATRIX.overrideBookingRules.join(', ')}; yours is ${role}`,
    );
  }
  return userId;
}
