// The API's refusals in words a customer understands, and its field paths on the form's fields.
// Each refused field's words come from one table (field-words.ts).
import { fieldLabel } from '../lib/manage-links.js';
import { ApiError } from './client.js';
import { type FieldDetail, fieldOf, fieldWords } from './field-words.js';

export { answerWords, type FieldDetail, fieldOf, fieldWords, wordsAt } from './field-words.js';

/** What to tell a customer for each refusal; the API's own message otherwise. */
const WORDS: Record<string, string> = {
  NETWORK: 'We could not reach the booking service. Check your connection and try again.',
  SLOT_UNAVAILABLE: 'Sorry, that time is no longer free.',
  HOST_UNAVAILABLE: 'Not every resource of this booking is free at that time.',
  SLOT_AVAILABLE: 'This time is free again, so there is no need to wait: book it now.',
  WAITLIST_NOT_ENABLED: 'This service has no waitlist.',
  RECURRENCE_NOT_ENABLED: 'This service cannot be booked as a series.',
  HOLD_EXPIRED: 'The time we held for you has run out. Please pick a time again.',
  PAYMENT_NOT_READY:
    'This organisation cannot take payments at the moment, so nothing was booked. Please try again later.',
  RATE_LIMITED: 'Too many attempts in a short time. Please wait a minute and try again.',
  INVALID_TRANSITION: 'This booking cannot be changed that way any more.',
  LINK_EXPIRED: 'This link has expired.',
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
  if (error.code === 'VALIDATION_FAILED')
    return error.details.some((d) => d.path)
      ? 'Please check the highlighted fields.'
      : 'Something in the form was not accepted. Please check it and try again.';
  return WORDS[error.code] ?? error.message;
}

/** A field's path as a label: `schedulePolicy.operatingHours.0.closeTime` is "Close time". */
export const pathLabel = (path: string) =>
  fieldLabel(
    fieldOf(path)
      .split('.')
      .filter((p) => p && !/^\d+$/.test(p))
      .at(-1) ?? '',
  );

/** A refused field in words with its label, for a summary away from the field ("Notes: Use at most 2,000 characters."). */
export function detailText(detail: FieldDetail, label?: string): string {
  const name = label ?? pathLabel(detail.path ?? '');
  const words = fieldWords(detail);
  return name ? `${name}: ${words}` : words;
}

/**
 * The refused fields by form field name, in words: `body.customer.email` is `customer.email`.
 * A refusal of the whole body, or of a field the form does not show, stays in the summary.
 */
export function fieldErrors(error: unknown): Record<string, string> {
  if (!(error instanceof ApiError)) return {};
  const out: Record<string, string> = {};
  for (const detail of error.details) {
    if (!detail.path) continue;
    const field = fieldOf(detail.path);
    if (field && !out[field]) out[field] = fieldWords(detail);
  }
  return out;
}

/** The refused fields a form does not show (`shown`: its field names), each with its label, in words. */
export function otherFieldErrors(error: unknown, shown: readonly string[]): string[] {
  if (!(error instanceof ApiError)) return [];
  return error.details
    .filter((d) => d.path !== undefined && !shown.includes(fieldOf(d.path)))
    .map((d) => detailText(d));
}

export const alternativesOf = (error: unknown) => (error instanceof ApiError ? error.alternatives : []);

const NETWORK = 'The service could not be reached. Check your connection and try again.';

/** A signed-in page's words for a failure: the service's own message, or words for a lost connection or a page fault. */
export function messageOf(error: unknown): string {
  if (error instanceof ApiError) return error.status === 0 ? NETWORK : error.message;
  return 'Something went wrong on this page. Reload it to try again.';
}

/** As `messageOf`, but a refused request names each bad parameter (`redirect_uri: ...`). */
export function detailedMessageOf(error: unknown): string {
  if (error instanceof ApiError && error.status !== 0) {
    const lines = error.details
      .filter((detail) => typeof detail?.message === 'string')
      .map((detail) =>
        `${(detail.path ?? '').replace(/^(query|body|querystring)\./, '')} ${detail.message}`.trim(),
      );
    if (lines.length > 0) return lines.join('; ');
  }
  return messageOf(error);
}
