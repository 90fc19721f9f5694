// The API's refusals in words a customer understands, and its field paths on the form's fields.
import { ApiError } from './client.js';

/** What to tell a customer for each refusal; the API's own message otherwise. */
const WORDS: Record<string, string> = {
  NETWORK: 'We could not reach the booking service. Check your connection and try again.',
  SLOT_UNAVAILABLE: 'Sorry, that time is no longer free.',
  SLOT_AVAILABLE: 'This time is free again, so there is no need to wait: hold it now.',
  WAITLIST_NOT_ENABLED: 'This service has no waitlist.',
  RECURRENCE_NOT_ENABLED: 'This service cannot be booked as a series.',
  HOLD_EXPIRED: 'The time we held for you has run out. Please pick a time again.',
  PAYMENT_NOT_READY:
    'This organisation cannot take payments at the moment, so nothing was booked. Please try again later.',
  RATE_LIMITED: 'Too many attempts in a short time. Please wait a minute and try again.',
  INVALID_TRANSITION: 'This booking cannot be changed that way any more.',
  UNAVAILABLE: 'The booking service is busy. Please try again in a moment.',
  TWO_FACTOR_REQUIRED: 'This organisation requires two-factor authentication: set it up under Security.',
  TWO_FACTOR_INVALID: 'That code is not right, or it was used already. Try the next code your app shows.',
  EMAIL_NOT_VERIFIED: 'Verify your email address first: open the link we mailed you.',
  INTERNAL: 'Something went wrong on our side. Please try again.',
};

export function errorText(error: unknown): string {
  if (!(error instanceof ApiError)) return WORDS.INTERNAL!;
  if (error.code === 'BOOKING_RULE_VIOLATED') {
    const rules = error.details.map((d) => d.message).filter(Boolean);
    return rules.length ? `This time is not allowed: ${rules.join('; ')}.` : error.message;
  }
  if (error.code === 'NOT_FOUND') return 'We could not find this page. The link may be wrong or out of date.';
  if (error.code === 'VALIDATION_FAILED') return 'Please check the highlighted fields.';
  return WORDS[error.code] ?? error.message;
}

/**
 * The refused fields by form field name: `body.customer.email` is `customer.email`. A refusal
 * of the whole body, or of a field the form does not show, stays in the summary.
 */
export function fieldErrors(error: unknown): Record<string, string> {
  if (!(error instanceof ApiError)) return {};
  const out: Record<string, string> = {};
  for (const detail of error.details) {
    if (!detail.path) continue;
    const field = detail.path.replace(/^body\.?/, '');
    if (field && !out[field]) out[field] = detail.message;
  }
  return out;
}

export const alternativesOf = (error: unknown) => (error instanceof ApiError ? error.alternatives : []);
