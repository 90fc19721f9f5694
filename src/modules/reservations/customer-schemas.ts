import { z } from 'zod';
import { oneLine } from '../../http/schemas.js';
import { LOCALES } from '../../i18n/locales.js';
import { zoneName } from '../../lib/time-zones.js';
import { email } from '../auth/schemas.js';

/** An optional field left empty (what a form sends for a field nobody filled in) is not given. */
const notGivenWhenEmpty = (value: unknown) =>
  typeof value === 'string' && value.trim() === '' ? undefined : value;

/** The longest answer of each kind of booking question that takes text (characters). */
export const ANSWER_LIMITS = { text: 200, textarea: 2000, phone: 50 } as const;
/** Answers one booking gives at most: a type asks up to this many questions. */
const MAX_ANSWERS = 10;

/** A booking question's answer: text, or true/false for a checkbox. */
const answerValue = z.union([z.string().trim().max(ANSWER_LIMITS.textarea), z.boolean()]);
/**
 * An answer as a reservation shows it. Each branch says what it is, which also keeps the
 * published JSON Schema an `anyOf` (a bare `type: [string, boolean]` trips strict validators).
 */
const answerRecorded = z.union([
  z.string().describe('A text answer (select: the option chosen)'),
  z.boolean().describe('A checkbox'),
]);
const answersDescription =
  "Answers to the resource type's questions, by question id: text (select: one of its options), or true/false for a checkbox";

/** Answers as a booking gives them; an empty text is no answer (what a form sends for one left blank). */
const customerAnswers = z
  .record(z.string().max(64), answerValue)
  .refine((answers) => Object.keys(answers).length <= MAX_ANSWERS, {
    message: `must have at most ${MAX_ANSWERS} answers (a resource type asks at most ${MAX_ANSWERS} questions)`,
  })
  .transform((answers) => Object.fromEntries(Object.entries(answers).filter(([, value]) => value !== '')))
  .optional()
  .describe(answersDescription);
export type CustomerAnswers = Record<string, string | boolean>;

/**
 * The customer's language and time zone (DECISIONS.md "Booking everywhere"): their mails are
 * written in that language, with times in that zone. Not given: null, or an empty text (what a
 * form sends for a choice left alone).
 */
const customerLocale = z
  .preprocess(
    notGivenWhenEmpty,
    z
      .enum(LOCALES, { message: `must be one of: ${LOCALES.join(', ')}` })
      .nullable()
      .optional(),
  )
  .describe("The customer's language: their mails are written in it (else the organisation's defaultLocale)");
const customerTimeZone = z
  .preprocess(
    notGivenWhenEmpty,
    z
      .string()
      // A zone by name (`+01:00` is an offset, not a zone: it knows no daylight saving).
      .refine(
        (zone) => zone.length <= 64 && /^[A-Za-z]/.test(zone) && zoneName(zone) !== null,
        'must be an IANA time zone name, e.g. Europe/Berlin',
      )
      .transform((zone) => zoneName(zone)!)
      .nullable()
      .optional(),
  )
  .describe("The customer's IANA time zone: their mails show times in it (else the organisation's)");

/** The customer fields every booking has; any other is one the resource type lists in customerInfoFields. */
export const BUILT_IN_CUSTOMER_FIELDS = new Set(['name', 'email', 'phone', 'answers', 'locale', 'timeZone']);
/** A customerInfoFields field's value. */
const infoField = z.string().trim().max(1000);

/** A booking's customer as the services read it: the built-in fields, then customerInfoFields as text. */
export type Customer = {
  name: string;
  email: string;
  phone?: string | undefined;
  answers?: CustomerAnswers | undefined;
  /** One of LOCALES; null or absent when not given. */
  locale?: string | null | undefined;
  /** An IANA zone name; null or absent when not given. */
  timeZone?: string | null | undefined;
} & Record<string, unknown>;

/**
 * name, email and the optional phone (always optional: the booking page marks it so, even when
 * a type lists it), `answers` to the type's questions, and one string per field the resource
 * type lists in customerInfoFields. A loose object whose other fields are checked here: an index
 * of texts beside `answers` would type every generated client's `answers` as text too.
 */
export const customer = z
  .looseObject({
    name: oneLine(z.string().trim().min(1).max(200)),
    email,
    phone: z.preprocess(notGivenWhenEmpty, z.string().trim().max(ANSWER_LIMITS.phone).optional()),
    answers: customerAnswers,
    locale: customerLocale,
    timeZone: customerTimeZone,
  })
  .transform((given, ctx): Customer => {
    const customer: Customer = { name: given.name, email: given.email };
    for (const [key, value] of Object.entries(given)) {
      if (BUILT_IN_CUSTOMER_FIELDS.has(key)) continue;
      const field = infoField.safeParse(value);
      if (field.success) customer[key] = field.data;
      else for (const issue of field.error.issues) ctx.addIssue({ ...issue, path: [key, ...issue.path] });
    }
    if (given.phone !== undefined) customer.phone = given.phone;
    if (given.answers !== undefined) customer.answers = given.answers;
    if (given.locale) customer.locale = given.locale;
    if (given.timeZone) customer.timeZone = given.timeZone;
    return customer;
  })
  .describe(
    "name, email, the optional phone, answers to the resource type's questions, the optional locale (en, de, fr, es) and timeZone (IANA) for the customer's mails, and one text (up to 1000 characters) per field the type lists in customerInfoFields",
  );

/** A reservation's customer as answered: name, email, the phone, the customerInfoFields as text, and the answers. */
export const customerRecord = z
  .looseObject({
    name: z.string(),
    email: z.string(),
    phone: z.string().optional(),
    answers: z.record(z.string(), answerRecorded).optional().describe(answersDescription),
    locale: z
      .enum(LOCALES)
      .nullable()
      .describe("The customer's language (their mails are written in it); null when not given"),
    timeZone: z
      .string()
      .nullable()
      .describe("The customer's IANA time zone (their mails show times in it); null when not given"),
  })
  .describe("Other fields: the resource type's customerInfoFields, as text");
export type CustomerRecord = z.infer<typeof customerRecord>;
