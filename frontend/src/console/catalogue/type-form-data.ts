// A type's form as the console edits it: the fields as typed (text, so a refusal can name what
// was typed) and the body the API takes, in minor units of the type's currency.
import type { Organisation, ResourceType, ResourceTypeBody } from '../../api/types.js';
import { minorPerMajor, organisationCurrency } from '../organisations/currency.js';

export const RULES = [
  ['minNoticeMinutes', 'Minimum notice (minutes before the start)'],
  ['maxAdvanceDays', 'Book at most this many days ahead'],
  ['cancelNoticeMinutes', 'Cancel at least this many minutes before'],
  ['rescheduleNoticeMinutes', 'Reschedule at least this many minutes before'],
  ['maxPerCustomerPerDay', 'Bookings per customer per day'],
] as const;
type RuleName = (typeof RULES)[number][0];

export interface TypeForm {
  name: string;
  description: string;
  minBookingDuration: string;
  bufferTime: string;
  bookingMode: ResourceType['bookingMode'];
  assignment: ResourceType['assignment'];
  customerInfoFields: string;
  /** The reminders' minutes before the start, comma separated. */
  reminders: string;
  waitlistEnabled: boolean;
  recurringEnabled: boolean;
  pricingEnabled: boolean;
  paymentRequired: boolean;
  price: string;
  priceCurrency: string;
  rules: Record<RuleName, string>;
}

/** The form of type `t` (a new one: empty, priced in the organisation's currency). */
export function typeForm(t: ResourceType | undefined, org: Organisation): TypeForm {
  const currency = t?.priceCurrency ?? organisationCurrency(org);
  const rules = (t?.bookingRules ?? {}) as Partial<Record<RuleName, number>>;
  return {
    name: t?.name ?? '',
    description: t?.description ?? '',
    minBookingDuration: String(t?.minBookingDuration ?? 60),
    bufferTime: String(t?.bufferTime ?? 0),
    bookingMode: t?.bookingMode ?? 'SINGLE_RESOURCE',
    assignment: t?.assignment ?? 'first_free',
    customerInfoFields: (t?.customerInfoFields ?? []).join(', '),
    reminders: (t?.reminders ?? []).map((r) => r.minutesBefore).join(', '),
    waitlistEnabled: t?.waitlistEnabled ?? false,
    recurringEnabled: t?.recurringEnabled ?? false,
    pricingEnabled: t?.pricingEnabled ?? false,
    paymentRequired: t?.paymentRequired ?? false,
    price: t?.priceAmount != null ? String(t.priceAmount / minorPerMajor(currency)) : '',
    priceCurrency: currency.toUpperCase(),
    rules: Object.fromEntries(RULES.map(([k]) => [k, rules[k] != null ? String(rules[k]) : ''])) as Record<
      RuleName,
      string
    >,
  };
}

/** Whether a type of `mode` takes bookings of "any free one" of its resources (a pool). */
export const pools = (mode: ResourceType['bookingMode']) => mode === 'POOL' || mode === 'BOTH';

/** A pool's ways to pick the resource of a booking, by name (DECISIONS.md "Teams"). */
export const ASSIGNMENT_NAMES: Record<ResourceType['assignment'], string> = {
  first_free: 'First free',
  round_robin: 'Round robin',
  least_busy_day: 'Least busy day',
};

/** Each way in words, as the type's form offers it. */
export const ASSIGNMENT_WORDS: Record<ResourceType['assignment'], string> = {
  first_free: `${ASSIGNMENT_NAMES.first_free}: the first resource free at that time`,
  round_robin: `${ASSIGNMENT_NAMES.round_robin}: the fewest bookings in the last 30 days, by weight`,
  least_busy_day: `${ASSIGNMENT_NAMES.least_busy_day}: the fewest bookings that day`,
};

/** A number field's text as the API wants it: a number when it reads as one, else the text (refused in words). */
export const numberOf = (text: string) =>
  text.trim() !== '' && Number.isFinite(Number(text)) ? Number(text) : text;

export function typeBody(f: TypeForm): ResourceTypeBody {
  const rules = Object.fromEntries(
    RULES.filter(([k]) => f.rules[k].trim() !== '').map(([k]) => [k, numberOf(f.rules[k])]),
  );
  const price = f.price.trim() === '' ? null : Math.round(Number(f.price) * minorPerMajor(f.priceCurrency));
  return {
    name: f.name,
    description: f.description.trim() || null,
    minBookingDuration: numberOf(f.minBookingDuration),
    bufferTime: numberOf(f.bufferTime),
    bookingMode: f.bookingMode,
    // How a booking of "any free one" picks its resource: only a pooling type has one to choose.
    ...(pools(f.bookingMode) ? { assignment: f.assignment } : {}),
    customerInfoFields: f.customerInfoFields
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
    // Text that is no number goes as it is: the API refuses it on that reminder.
    reminders: f.reminders
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean)
      .map((minutes) => ({ minutesBefore: numberOf(minutes) })),
    waitlistEnabled: f.waitlistEnabled,
    recurringEnabled: f.recurringEnabled,
    pricingEnabled: f.pricingEnabled,
    paymentRequired: f.paymentRequired,
    // Text that is no amount goes as it is: the API refuses it on the price field.
    priceAmount: f.pricingEnabled ? (price !== null && !Number.isFinite(price) ? f.price : price) : null,
    priceCurrency: f.pricingEnabled ? f.priceCurrency : null,
    bookingRules: Object.keys(rules).length ? rules : null,
  } as ResourceTypeBody;
}
