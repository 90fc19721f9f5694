import { z } from 'zod';
import { oneLine } from '../../http/schemas.js';
import { availabilityMode, schedulePolicy } from '../../scheduling/schemas.js';
import { colour } from '../organisations/schemas.js';
import { currencyCode } from '../payments/currencies.js';

export const bookingMode = z.enum(['SINGLE_RESOURCE', 'POOL', 'BOTH']);
export type BookingMode = z.infer<typeof bookingMode>;

export const assignmentStrategy = z
  .enum(['first_free', 'round_robin', 'least_busy_day'])
  .describe(
    'How a pool booking picks its resource among the free ones: first_free (default), round_robin (fewest confirmed bookings of the type in the last 30 days relative to assignmentWeight, ties to the one booked longest ago) or least_busy_day (fewest bookings that day)',
  );

/** Refuses a field the server derives, naming why. */
export const serverDerived = (why: string) => z.never({ error: why }).optional();

const text = (max: number) =>
  z
    .string()
    .trim()
    .max(max)
    .transform((value) => (value === '' ? null : value))
    .nullable()
    .optional();

const fieldName = z
  .string()
  .trim()
  .regex(/^[A-Za-z][A-Za-z0-9_]{0,63}$/, 'must be a field name: a letter, then letters, digits or _');

const customerInfoFields = z
  .array(fieldName)
  .max(20)
  .refine((names) => new Set(names).size === names.length, 'must not repeat a field name')
  .refine(
    (names) => !names.some((n) => ['name', 'email'].includes(n)),
    'name and email are always asked; list only extra fields',
  )
  .refine(
    (names) => !names.includes('answers'),
    'answers is where the answers to the questions go; list questions under questions',
  )
  .refine(
    (names) => !names.some((n) => ['locale', 'timeZone'].includes(n)),
    "locale and timeZone are every booking's own optional fields (the customer's language and zone)",
  );

/** What a booking question asks for (DECISIONS.md "Pages people live in"). */
export const QUESTION_KINDS = ['text', 'textarea', 'email', 'phone', 'select', 'checkbox'] as const;
export type QuestionKind = (typeof QUESTION_KINDS)[number];
/** Questions one type asks at most, and choices one select question offers at most. */
export const MAX_QUESTIONS = 10;
export const MAX_QUESTION_OPTIONS = 50;

const questionLabel = oneLine(z.string().trim().min(1).max(200));

/** One question as written: `options` only for a select, and required there. */
const bookingQuestion = z
  .strictObject({
    id: fieldName.describe("Its key in a booking's customer.answers"),
    label: questionLabel.describe('What the booking page asks (one line)'),
    kind: z
      .enum(QUESTION_KINDS)
      .describe(
        'text (one line, up to 200 characters), textarea (up to 2000), email, phone, select (one of options), checkbox (true or false)',
      ),
    required: z
      .boolean()
      .default(false)
      .describe('Every booking answers it; a required checkbox must be true'),
    options: z
      .array(questionLabel)
      .min(1)
      .max(MAX_QUESTION_OPTIONS)
      .optional()
      .describe(`A select's choices (1..${MAX_QUESTION_OPTIONS}, each once); only for a select`),
  })
  .superRefine((question, ctx) => {
    const { kind, options } = question;
    if (kind === 'select' && options === undefined)
      ctx.addIssue({ code: 'custom', path: ['options'], message: 'is required for a select question' });
    else if (kind !== 'select' && options !== undefined)
      ctx.addIssue({ code: 'custom', path: ['options'], message: 'is only accepted for a select question' });
    else if (options && new Set(options).size !== options.length)
      ctx.addIssue({ code: 'custom', path: ['options'], message: 'must not repeat an option' });
  });

const questions = z
  .array(bookingQuestion)
  .max(MAX_QUESTIONS)
  .superRefine((list, ctx) => {
    const seen = new Set<string>();
    list.forEach((question, i) => {
      if (seen.has(question.id))
        ctx.addIssue({ code: 'custom', path: [i, 'id'], message: 'repeats the id of an earlier question' });
      seen.add(question.id);
    });
  })
  .describe(
    `Up to ${MAX_QUESTIONS} questions every booking of the type answers in customer.answers ({id: value}); replaced as a whole`,
  );

/** How many reminders one type sends at most, and how long before the start each may come (minutes). */
export const MAX_REMINDERS = 3;
export const REMINDER_MINUTES = { min: 15, max: 10_080 } as const;

const reminder = z.strictObject({
  minutesBefore: z
    .number()
    .int()
    .min(REMINDER_MINUTES.min, `must be at least ${REMINDER_MINUTES.min} minutes`)
    .max(REMINDER_MINUTES.max, `must be at most ${REMINDER_MINUTES.max} minutes (7 days)`)
    .describe('Minutes before the start the reminder mail goes to the customer'),
});

const reminders = z
  .array(reminder)
  .max(MAX_REMINDERS, `must list at most ${MAX_REMINDERS} reminders`)
  .superRefine((list, ctx) => {
    const seen = new Set<number>();
    list.forEach(({ minutesBefore }, i) => {
      if (seen.has(minutesBefore))
        ctx.addIssue({
          code: 'custom',
          path: [i, 'minutesBefore'],
          message: 'repeats the minutesBefore of an earlier reminder',
        });
      seen.add(minutesBefore);
    });
  })
  // Stored and read earliest first (the largest minutesBefore), whatever order they came in.
  .transform((list) => [...list].sort((a, b) => b.minutesBefore - a.minutesBefore))
  .describe(
    `Up to ${MAX_REMINDERS} reminder mails to each confirmed booking's customer, each {minutesBefore: ${REMINDER_MINUTES.min}..${REMINDER_MINUTES.max}} (distinct); replaced as a whole`,
  );

/** A reminder as stored and read. */
export const reminderRecord = z.object({ minutesBefore: z.number().int() });
export type Reminder = z.infer<typeof reminderRecord>;

/** A question as stored and read. */
export const bookingQuestionRecord = z.object({
  id: z.string(),
  label: z.string(),
  kind: z.enum(QUESTION_KINDS),
  required: z.boolean(),
  options: z.array(z.string()).optional(),
});
export type BookingQuestion = z.infer<typeof bookingQuestionRecord>;

/** Bounds of each booking rule: a year of notice, ten years of advance, a thousand bookings a day. */
export const BOOKING_RULE_LIMITS = {
  minNoticeMinutes: [0, 525_600],
  maxAdvanceDays: [1, 3650],
  cancelNoticeMinutes: [0, 525_600],
  rescheduleNoticeMinutes: [0, 525_600],
  maxPerCustomerPerDay: [1, 1000],
} as const;
const rule = (name: keyof typeof BOOKING_RULE_LIMITS, description: string) =>
  z
    .number()
    .int()
    .min(BOOKING_RULE_LIMITS[name][0])
    .max(BOOKING_RULE_LIMITS[name][1])
    .optional()
    .describe(description);

/**
 * Rules every booking write of the type follows (availability offers only what they
 * allow); a rule left out does not apply. OWNER, ADMIN and MANAGER may override them.
 */
export const bookingRules = z.strictObject({
  minNoticeMinutes: rule('minNoticeMinutes', 'A booking starts at least this many minutes from now'),
  maxAdvanceDays: rule('maxAdvanceDays', 'A booking ends at most this many days (of 24 hours) from now'),
  cancelNoticeMinutes: rule(
    'cancelNoticeMinutes',
    'A cancellation comes at least this many minutes before the start',
  ),
  rescheduleNoticeMinutes: rule(
    'rescheduleNoticeMinutes',
    'A reschedule comes at least this many minutes before the current start',
  ),
  maxPerCustomerPerDay: rule(
    'maxPerCustomerPerDay',
    "Live reservations of the type one customer email may have starting on one day of the organisation's zone",
  ),
});
export type BookingRules = z.infer<typeof bookingRules>;
export type BookingRuleName = keyof BookingRules;

/** How long a paid booking waits for its money (minutes): its checkout expires with it. */
export const PAYMENT_WINDOW_MINUTES = { min: 5, max: 1440, default: 30 } as const;
const paymentWindowMinutes = z
  .number()
  .int()
  .min(PAYMENT_WINDOW_MINUTES.min, `must be at least ${PAYMENT_WINDOW_MINUTES.min} minutes`)
  .max(PAYMENT_WINDOW_MINUTES.max, `must be at most ${PAYMENT_WINDOW_MINUTES.max} minutes (24 hours)`);

/** How long a waitlist offer's hold keeps freed time for the next in line (minutes). */
export const WAITLIST_OFFER_MINUTES = { min: 5, max: 1440, default: 30 } as const;
const waitlistOfferMinutes = z
  .number()
  .int()
  .min(WAITLIST_OFFER_MINUTES.min, `must be at least ${WAITLIST_OFFER_MINUTES.min} minutes`)
  .max(WAITLIST_OFFER_MINUTES.max, `must be at most ${WAITLIST_OFFER_MINUTES.max} minutes (24 hours)`);

const typeFields = {
  description: text(2000),
  minBookingDuration: z.number().int().min(1).max(44_640).describe('Minutes'),
  bufferTime: z.number().int().min(0).max(1440).describe('Minutes kept clear around every reservation'),
  availabilityMode: availabilityMode.describe('Same as schedulePolicy.availabilityMode'),
  customerInfoFields,
  questions,
  reminders,
  waitlistEnabled: z.boolean(),
  recurringEnabled: z.boolean(),
  bookingMode,
  assignment: assignmentStrategy,
  color: colour.nullable(),
  icon: text(64),
  schedulePolicy: schedulePolicy.nullable(),
  pricingEnabled: z.boolean(),
  paymentRequired: z.boolean(),
  priceAmount: z.number().int().min(0).max(100_000_000).nullable().describe('Minor units'),
  priceCurrency: currencyCode.nullable(),
  paymentWindowMinutes: paymentWindowMinutes.describe(
    `Minutes a paid booking keeps its time waiting for payment (${PAYMENT_WINDOW_MINUTES.min}..${PAYMENT_WINDOW_MINUTES.max}, default ${PAYMENT_WINDOW_MINUTES.default})`,
  ),
  waitlistOfferMinutes: waitlistOfferMinutes.describe(
    `Minutes a waitlist offer holds freed time for the next in line (${WAITLIST_OFFER_MINUTES.min}..${WAITLIST_OFFER_MINUTES.max}, default ${WAITLIST_OFFER_MINUTES.default})`,
  ),
  bookingRules: bookingRules.nullable().describe('Replaced as a whole; null removes every rule'),
  organisationId: serverDerived('is not accepted: resource types belong to your active organisation'),
};

const typeFieldsBody = z.strictObject(typeFields).partial();
const typeName = oneLine(z.string().trim().min(1).max(200));

export const createResourceTypeBody = typeFieldsBody.extend({ name: typeName });
export const updateResourceTypeBody = typeFieldsBody.extend({
  name: typeName.optional(),
  isActive: z.boolean().optional(),
});

export type CreateResourceTypeInput = z.infer<typeof createResourceTypeBody>;
export type UpdateResourceTypeInput = z.infer<typeof updateResourceTypeBody>;

export const colourBody = z.strictObject({ color: colour });

export const resourceType = z.object({
  id: z.number().int(),
  organisationId: z.number().int(),
  name: z.string(),
  description: z.string().nullable(),
  minBookingDuration: z.number().int(),
  bufferTime: z.number().int(),
  availabilityMode: availabilityMode
    .nullable()
    .describe("The type's own mode; null inherits the organisation's"),
  customerInfoFields: z.array(z.string()),
  questions: z.array(bookingQuestionRecord).describe('Asked on every booking; answered in customer.answers'),
  reminders: z
    .array(reminderRecord)
    .describe('Reminder mails to the customer before each confirmed booking, earliest first'),
  waitlistEnabled: z.boolean(),
  recurringEnabled: z.boolean(),
  bookingMode,
  assignment: assignmentStrategy,
  color: z.string().nullable(),
  icon: z.string().nullable(),
  schedulePolicy: schedulePolicy.nullable(),
  pricingEnabled: z.boolean(),
  paymentRequired: z.boolean(),
  priceAmount: z.number().int().nullable(),
  priceCurrency: z.string().nullable(),
  paymentWindowMinutes: z
    .number()
    .int()
    .describe('Minutes a paid booking keeps its time waiting for payment; then it expires'),
  waitlistOfferMinutes: z
    .number()
    .int()
    .describe('Minutes a waitlist offer holds freed time for the next in line; then it moves on'),
  bookingRules: bookingRules.nullable(),
  isActive: z.boolean(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type ResourceType = z.infer<typeof resourceType>;

/** Why the booking page does not offer a type. */
export const NOT_BOOKABLE_REASONS = ['INACTIVE', 'PAYMENT_NOT_READY'] as const;

/** A type as its organisation's members read it: with whether its customers can book it now, and why not. */
export const resourceTypeAnswer = resourceType.extend({
  bookable: z.boolean().describe('Whether the booking page offers it and takes bookings of it now'),
  notBookableReason: z
    .enum(NOT_BOOKABLE_REASONS)
    .nullable()
    .describe(
      'Why not (null when bookable): INACTIVE, it is turned off; PAYMENT_NOT_READY, it takes payment and the organisation cannot take payments yet (connect its payment account and finish onboarding)',
    ),
});
export type ResourceTypeAnswer = z.infer<typeof resourceTypeAnswer>;
