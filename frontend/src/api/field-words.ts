// A refused field's words, from its path and rule (`code`, Zod's issue code, with its bounds)
// through one table, never from the validator's own text: "Too big: expected string to have
// <=200 characters" is "Use at most 200 characters." on every page and in the console.
import type { ErrorDetail } from './types.js';

/** A refused field as the API's 400 names it: its path, and for a schema failure its rule and bounds. */
export type FieldDetail = Pick<ErrorDetail, 'path' | 'message'> & {
  code?: string | undefined;
  origin?: string | undefined;
  minimum?: number | undefined;
  maximum?: number | undefined;
  inclusive?: boolean | undefined;
  format?: string | undefined;
};

/** A field's path on the form: `body.customer.email` is `customer.email`. */
export const fieldOf = (path: string | undefined) =>
  (path ?? '').replace(/^(body|query|querystring|params|headers)(\.|$)/, '');

const count = (n: number) => n.toLocaleString('en');

/** A bound in words by what it measures: text in characters, lists in items, numbers as numbers. */
function tooBig(d: FieldDetail): string {
  const n = d.maximum;
  if (n === undefined) return 'This is too long.';
  switch (d.origin) {
    case 'string':
      return `Use at most ${count(n)} character${n === 1 ? '' : 's'}.`;
    case 'array':
    case 'set':
      return `Choose at most ${count(n)}.`;
    case 'date':
      return 'Choose an earlier date.';
    case 'file':
      return 'This file is too large.';
    default:
      return d.inclusive === false ? `Enter less than ${count(n)}.` : `Enter ${count(n)} or less.`;
  }
}

function tooSmall(d: FieldDetail): string {
  const n = d.minimum;
  if (n === undefined) return 'This is too short.';
  switch (d.origin) {
    case 'string':
      return n <= 1 ? 'This is required.' : `Use at least ${count(n)} characters.`;
    case 'array':
    case 'set':
      return n <= 1 ? 'Choose at least one.' : `Choose at least ${count(n)}.`;
    case 'date':
      return 'Choose a later date.';
    default:
      return d.inclusive === false ? `Enter more than ${count(n)}.` : `Enter ${count(n)} or more.`;
  }
}

const FORMATS: Record<string, string> = {
  email: 'Enter an email address like name@example.com.',
  url: 'Enter a full web address, like https://example.com.',
  datetime: 'Enter a date and time.',
  date: 'Enter a date like 2031-12-25.',
  time: 'Enter a time like 09:30.',
};

/** Words by rule alone, where the table has nothing for the field. */
const BY_CODE: Record<string, (d: FieldDetail) => string> = {
  too_big: tooBig,
  too_small: tooSmall,
  invalid_type: () => 'This is required.',
  invalid_format: (d) => FORMATS[d.format ?? ''] ?? 'This is not in the right format. Please check it.',
  invalid_value: () => 'Choose one of the options.',
  invalid_union: () => 'This is not valid. Please check it.',
  invalid_key: () => 'Some entries are not valid. Please check them.',
  invalid_element: () => 'Some entries are not valid. Please check them.',
  not_multiple_of: () => 'Enter a number in the allowed steps.',
  unrecognized_keys: () =>
    'This form sent something the service does not take. Reload the page and try again.',
  custom: () => 'This is not accepted. Please check it.',
};

const TIME = 'Enter a time like 09:00.';
const ONE_LINE = 'Keep this on one line.';

/**
 * Words for a field and rule where the rule alone says too little. Keys are `<field> <code>`:
 * the field as its whole path (list positions as `*`), its parent with `*`, or its last name.
 * A service's own check has no code: it is `custom`.
 */
const BY_FIELD: Record<string, string> = {
  'customer.name invalid_type': 'Enter your name.',
  'customer.name too_small': 'Enter your name.',
  'customer.name custom': ONE_LINE,
  'customer.email invalid_type': 'Enter your email address.',
  'customer.email invalid_format': FORMATS.email!,
  'customer.email too_small': 'Enter your email address.',
  'customer.phone invalid_format': 'Enter a phone number, like +49 30 1234567.',
  'customer.* custom': 'This is required.',
  'customer custom': 'This form asks for details the service no longer takes. Reload the page and try again.',
  'customer.answers.* custom': 'Please answer this question.',
  'customer.answers.* invalid_type': 'Please answer this question.',
  'customer.answers.* too_small': 'Please answer this question.',
  'customer.answers.* invalid_value': 'Choose one of the options.',
  'customer.answers custom': 'Some answers are not accepted. Reload the page and try again.',
  'customer.answers unrecognized_keys': 'Some answers are not accepted. Reload the page and try again.',
  'startTime custom': 'This time has already passed. Please pick a later one.',
  'startTime invalid_format': TIME,
  'endTime custom': 'The end must be after the start.',
  'endTime invalid_format': TIME,
  'openTime invalid_format': TIME,
  'closeTime invalid_format': TIME,
  'closeTime custom': 'The closing time must be after the opening time.',
  'dayOfWeek custom': 'Each day can be listed only once.',
  'dayOfWeek too_small': 'Choose a day of the week.',
  'dayOfWeek too_big': 'Choose a day of the week.',
  'slots.* custom': 'These hours overlap other hours of the same day.',
  'date invalid_format': FORMATS.date!,
  'recurrence custom': 'These dates cannot be booked as a series. Check how it repeats.',
  'recurrence.* custom': 'These dates cannot be booked as a series. Check how it repeats.',
  'resourceId custom': 'Choose what to book.',
  'resourceTypeId custom': 'Choose a service.',
  'to custom': 'Choose an end after the start, within the range allowed.',
  'currentPassword custom': 'This is not your current password.',
  'password custom': 'This is not your current password.',
  'code custom': 'Enter the 6-digit code of your authenticator app.',
  'token custom': 'This link is not one we sent. Check that it was copied whole.',
  'newEmail custom': 'This is your address already.',
  'confirmEmail custom': "This is not your account's email address: type that one to confirm.",
  'url custom': 'Enter a public https address the service can reach.',
  'events custom': 'Choose event types from the list.',
  'cursor custom': 'The list has changed. Reload the page.',
  'cursor invalid_format': 'The list has changed. Reload the page.',
  'priceAmount custom': 'Enter a price above zero.',
  'paymentRequired custom': 'Turn on pricing to take payment.',
  'managedById custom': 'Choose a member of the organisation.',
  'bookingCalendarId custom': "Choose one of the manager's calendars.",
  'color invalid_format': 'Enter a colour like #7c3aed.',
  'slug invalid_format': 'Use lowercase letters, digits and hyphens.',
  'customerInfoFields.* invalid_format': 'Start with a letter, then letters, digits or _.',
  'questions.*.id invalid_format': 'Start with a letter, then letters, digits or _.',
  'questions.*.id custom': 'Another question has this key: give each its own.',
  'questions.*.label custom': ONE_LINE,
  'questions.*.options custom': 'A choice from a list needs its choices, each listed once.',
  'questions.*.options.* custom': ONE_LINE,
};

/** The table's keys a detail may match, most specific first. */
function keysOf(field: string, code: string): string[] {
  const starred = field.replace(/(^|\.)\d+(?=\.|$)/g, '$1*');
  const parts = starred.split('.');
  const last = parts.filter((p) => p !== '*').at(-1) ?? '';
  const parent = parts.slice(0, -1).join('.');
  return [starred, parent ? `${parent}.*` : '', parts.slice(-2).join('.'), last]
    .filter(Boolean)
    .map((key) => `${key} ${code}`);
}

/** Words that say a field was left empty: not what to say of a field that holds text. */
const ASKS_FOR_TEXT = new Set([
  'This is required.',
  'Enter your name.',
  'Enter your email address.',
  'Please answer this question.',
]);

/**
 * A refused field in words, to show beside the field: never the validator's own text. With
 * `given` (the field holds text), words asking to fill it in are passed over.
 */
export function fieldWords(detail: FieldDetail, given?: boolean): string {
  const code = detail.code && BY_CODE[detail.code] ? detail.code : 'custom';
  const field = fieldOf(detail.path);
  const fits = (words: string | undefined): words is string =>
    words !== undefined && !(given && ASKS_FOR_TEXT.has(words));
  for (const key of keysOf(field, code)) if (fits(BY_FIELD[key])) return BY_FIELD[key];
  const words = BY_CODE[code]!(detail);
  return fits(words) ? words : BY_CODE.custom!(detail);
}

/** The words for the form field `field` (`customer.email`) among a refusal's details, if it is refused. */
export function wordsAt(details: readonly FieldDetail[], field: string, given?: boolean): string | undefined {
  const detail = details.find((d) => d.path !== undefined && fieldOf(d.path) === field);
  return detail ? fieldWords(detail, given) : undefined;
}

/** A booking question's answer the service checked itself (no code), by the question's kind. */
const ANSWER_WORDS: Record<string, string> = {
  text: 'Use one line of at most 200 characters.',
  textarea: 'Use at most 2,000 characters.',
  email: FORMATS.email!,
  phone: 'Enter a phone number of at most 50 characters, on one line.',
  select: 'Choose one of the options.',
  checkbox: 'Please tick this box to continue.',
};

/**
 * A refused answer to a booking question in words: by its rule where the schema refused it,
 * else by the question's `kind`, and "Please answer" where it was left `answered` false.
 */
export function answerWords(detail: FieldDetail, kind: string, answered: boolean): string {
  if (detail.code && detail.code !== 'custom') return fieldWords(detail);
  if (kind === 'checkbox') return ANSWER_WORDS.checkbox!;
  if (!answered) return 'Please answer this question.';
  return ANSWER_WORDS[kind] ?? fieldWords(detail);
}
