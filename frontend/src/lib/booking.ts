// What the booking page sends: the customer's details, answers and notes as the API takes them,
// and the server's limits on each, so an input never takes more than the API accepts.
import type { PublicType, ReservationBody } from '../api/types.js';
import type { BookableTime } from './time.js';

/** What the customer typed in the details form, by field key (`notes` included). */
export type Values = Record<string, string>;
/** Answers to the type's booking questions by question id: text, or a checkbox's true/false. */
export type Answers = Record<string, string | boolean>;
export type Question = PublicType['questions'][number];

/**
 * The longest text the API accepts for each input (src/modules/reservations/schemas.ts):
 * name, email and phone, any other customer field, notes, and each kind of question.
 */
export const LIMITS = {
  name: 200,
  email: 254,
  phone: 50,
  field: 1000,
  notes: 2000,
  text: 200,
  textarea: 2000,
} as const;

/** The longest answer a question of `kind` takes; none for a select or checkbox. */
export function answerLimit(kind: Question['kind']): number | undefined {
  if (kind === 'text') return LIMITS.text;
  if (kind === 'textarea') return LIMITS.textarea;
  if (kind === 'phone') return LIMITS.phone;
  if (kind === 'email') return LIMITS.email;
  return undefined;
}

/** The longest value of the customer field `key` (name, email, phone or a type's own field). */
export const fieldLimit = (key: string): number =>
  key === 'name' || key === 'email' || key === 'phone' ? LIMITS[key] : LIMITS.field;

/** The answers a booking sends: text trimmed (blank is no answer), every checkbox as true or false. */
export function answersOf(questions: readonly Question[], answers: Answers): Answers {
  const out: Answers = {};
  for (const q of questions) {
    const value = answers[q.id];
    if (q.kind === 'checkbox') out[q.id] = value === true;
    else if (typeof value === 'string' && value.trim()) out[q.id] = value.trim();
  }
  return out;
}

/** The language and zone the customer reads the page in: the booking keeps them for its mails. */
export interface CustomerSetting {
  locale: string;
  timeZone: string;
}

/**
 * The booking body of a time with the customer's details (a hold, a booking, a series, a
 * waitlist entry), with the page's language and zone as `customer.locale` and `customer.timeZone`.
 */
export function bookingBody(
  type: PublicType,
  at: BookableTime,
  values: Values,
  answers: Answers = {},
  setting?: CustomerSetting,
): ReservationBody {
  const customer: Record<string, unknown> = setting
    ? { locale: setting.locale, timeZone: setting.timeZone }
    : {};
  for (const [k, v] of Object.entries(values)) if (k !== 'notes' && v.trim()) customer[k] = v.trim();
  const questions = type.questions ?? [];
  if (questions.length > 0) customer.answers = answersOf(questions, answers);
  return {
    ...(at.resourceId !== null ? { resourceId: at.resourceId } : { resourceTypeId: type.id }),
    startTime: at.start,
    endTime: at.end,
    customer: customer as ReservationBody['customer'],
    ...(values.notes?.trim() ? { notes: values.notes.trim() } : {}),
  };
}

/** Whether a booking of the type is paid for before it is confirmed: then it is held first. */
export const paysFirst = (type: PublicType) => type.paymentRequired;
