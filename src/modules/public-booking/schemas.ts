import { z } from 'zod';
import { positiveId } from '../../http/schemas.js';
import { LOCALES } from '../../i18n/locales.js';
import { availabilityMode } from '../../scheduling/schemas.js';
import { rangeQuery } from '../availability/schemas.js';
import { dryRunFailure, wouldBe } from '../reservations/dry-run-schemas.js';
import { publicReservation, rescheduleBody } from '../reservations/schemas.js';
import { bookingQuestionRecord } from '../resource-types/schemas.js';
import { waitlistEntry } from '../waitlist/schemas.js';

export const slugParam = z.strictObject({ slug: z.string().min(1).max(63) });
export const tokenParam = z.strictObject({ token: z.string().min(1).max(128) });

export const slugAvailabilityQuery = z
  .strictObject({
    resourceId: positiveId.optional(),
    resourceTypeId: positiveId.optional(),
    from: rangeQuery.shape.from,
    to: rangeQuery.shape.to,
  })
  .refine((q) => (q.resourceId === undefined) !== (q.resourceTypeId === undefined), {
    message: 'give exactly one of resourceId and resourceTypeId',
    path: ['resourceId'],
  })
  .superRefine((q, ctx) => {
    const parsed = rangeQuery.safeParse({ from: q.from, to: q.to });
    if (!parsed.success) for (const issue of parsed.error.issues) ctx.addIssue({ ...issue, code: 'custom' });
  });

/** What anyone may see of an organisation: its booking page, nothing about members or managers. */
export const publicOrganisation = z.object({
  name: z.string(),
  slug: z.string().nullable(),
  description: z.string().nullable(),
  logoUrl: z.string().nullable(),
  publicBookingHeadline: z.string().nullable(),
  publicBookingDescription: z.string().nullable(),
  color: z.string().nullable(),
  timezone: z.string(),
  defaultLocale: z
    .enum(LOCALES)
    .describe(
      "The page's language when neither ?lang= nor the browser's languages name one of en, de, fr, es",
    ),
});

export const publicResourceType = z.object({
  id: z.number().int(),
  name: z.string(),
  description: z.string().nullable(),
  bookingMode: z.enum(['SINGLE_RESOURCE', 'POOL', 'BOTH']),
  availabilityMode,
  minBookingDuration: z.number().int(),
  customerInfoFields: z.array(z.string()),
  questions: z
    .array(bookingQuestionRecord)
    .describe('Asked on every booking, in order; answered in customer.answers ({id: value})'),
  pricingEnabled: z.boolean(),
  paymentRequired: z.boolean(),
  recurringEnabled: z.boolean().describe('Takes a series: recurrence on the booking'),
  waitlistEnabled: z.boolean().describe('A full time can be waited for (POST .../waitlist)'),
  priceAmount: z.number().int().nullable(),
  priceCurrency: z.string().nullable(),
  color: z.string().nullable(),
  icon: z.string().nullable(),
});

export const publicResource = z.object({
  id: z.number().int(),
  resourceTypeId: z.number().int(),
  name: z.string(),
  description: z.string().nullable(),
  capacity: z.number().int(),
});

export const publicCatalogue = z.object({
  organisation: publicOrganisation,
  resourceTypes: z.array(publicResourceType),
  resources: z.array(publicResource),
});

export const publicResourcePage = z.object({
  organisation: publicOrganisation,
  resourceType: publicResourceType,
  resource: publicResource,
});

/**
 * A manage link's token, as any text: a malformed token answers the same 404 as an unknown
 * one (the service checks its form), so no answer says which tokens could be valid.
 */
export const manageTokenParam = z.strictObject({ token: z.string() });

/** A public booking or hold as its booker gets it, once: with the customer's manage link. */
export const bookedPublicReservation = publicReservation.extend({
  manageToken: z
    .string()
    .nullable()
    .describe(
      'The secret of the customer manage link, shown only in this answer (stored hashed); null when an Idempotency-Key replays the answer',
    ),
  manageUrl: z
    .string()
    .nullable()
    .describe(
      '<FRONTEND_URL>/manage/<manageToken>: the page where the customer views, confirms, cancels or moves it',
    ),
});
export type BookedPublicReservation = z.infer<typeof bookedPublicReservation>;

/** What a manage link shows: the customer's own reservation and whose it is. */
export const managedReservation = publicReservation.extend({ organisation: publicOrganisation });
export type ManagedReservation = z.infer<typeof managedReservation>;

/** A series booked through the organisation page: every occurrence with its own manage link, shown once. */
export const bookedPublicSeries = z.object({
  seriesId: z.number().int(),
  reservations: z
    .array(bookedPublicReservation)
    .describe(
      'Every occurrence by start time, each with its own manage link (view, cancel or move that occurrence; cancel the whole series from any of them)',
    ),
});
export type BookedPublicSeries = z.infer<typeof bookedPublicSeries>;

/** A public series' dry run: the occurrences it would book (ids null, no manage links), or the refusal. */
export const publicSeriesDryRun = z.discriminatedUnion('wouldSucceed', [
  z.object({
    wouldSucceed: z.literal(true),
    seriesId: z.null(),
    reservations: z.array(wouldBe(publicReservation)),
  }),
  dryRunFailure,
]);

/** The series a manage link's occurrence belongs to, as its customer sees it. */
export const managedSeries = z.object({
  id: z.number().int(),
  reservations: z.array(publicReservation).describe('Every occurrence by start time, cancelled ones too'),
  organisation: publicOrganisation,
});
export type ManagedSeries = z.infer<typeof managedSeries>;

/** A customer's move of their reservation: the new time only (same resource or pool, no override). */
export const manageRescheduleBody = rescheduleBody.pick({ startTime: true, endTime: true });
export type ManageRescheduleInput = z.infer<typeof manageRescheduleBody>;

/** A waitlist entry made through the organisation page, with the customer's manage link (shown once). */
export const publicWaitlistEntry = waitlistEntry.extend({
  manageToken: z
    .string()
    .nullable()
    .describe(
      'The secret of the customer manage link, shown only in this answer (stored hashed). The hold of an offer carries the same link: confirm it at manageUrl',
    ),
  manageUrl: z.string().nullable().describe('<FRONTEND_URL>/manage/<manageToken>'),
});
export type PublicWaitlistEntry = z.infer<typeof publicWaitlistEntry>;

/** What a waitlist entry's manage link shows: the customer's own entry and whose it is. */
export const managedWaitlistEntry = waitlistEntry.extend({ organisation: publicOrganisation });
export type ManagedWaitlistEntry = z.infer<typeof managedWaitlistEntry>;
