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
  customerInfoFields: string;
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
    customerInfoFields: (t?.customerInfoFields ?? []).join(', '),
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
    customerInfoFields: f.customerInfoFields
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
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
