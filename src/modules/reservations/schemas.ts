import { z } from 'zod';
import { entityId, listOf, pageQuery, positiveId } from '../../http/schemas.js';
import { email } from '../auth/schemas.js';
import { assignmentStrategy, serverDerived } from '../resource-types/schemas.js';
import { customer, customerRecord } from './customer-schemas.js';

const instant = z.iso.datetime({ offset: true, message: 'must be an ISO 8601 date-time with a zone' });
/** Whether the customer came (DECISIONS.md "Booking everywhere"). */
export const attendanceStatus = z.enum(['attended', 'no_show']);

const priceFromType = serverDerived('is not accepted: price and currency come from the resource type');

const bookingFields = {
  startTime: instant,
  endTime: instant,
  customer,
  notes: z.string().trim().max(2000).optional(),
  priceAmount: priceFromType,
  priceCurrency: priceFromType,
  price: priceFromType,
  status: serverDerived('is not accepted: the status follows from the resource type'),
};

/** Booking through a public resource token: the token fixes the resource. */
export const tokenReservationBody = z.strictObject(bookingFields);

/** The most resources one collective reservation takes. */
export const MAX_COLLECTIVE = 5;

/** The resources of a collective reservation: 2-5 of the organisation, each once. */
export const resourceIds = z
  .array(entityId)
  .min(2, 'must list at least 2 resources (book one with resourceId)')
  .max(MAX_COLLECTIVE, `must list at most ${MAX_COLLECTIVE} resources`)
  .refine((ids) => new Set(ids).size === ids.length, 'must not list a resource twice')
  .optional()
  .describe(
    'A collective booking: 2-5 resources (SINGLE_RESOURCE, BOTH) taken together for the same time, all or nothing; instead of resourceId and resourceTypeId',
  );

const targetFields = {
  resourceId: entityId.optional().describe('A concrete resource (SINGLE_RESOURCE, BOTH)'),
  resourceTypeId: entityId.optional().describe('Book from the pool (POOL, BOTH)'),
  resourceIds,
};
type Target = { resourceId?: number; resourceTypeId?: number; resourceIds?: number[] };

/** A booking names one target: a resource, a type's pool (with or without one of its resources), or several resources. */
function refineTarget(body: Target, ctx: z.RefinementCtx): void {
  if (body.resourceIds !== undefined) {
    if (body.resourceId !== undefined || body.resourceTypeId !== undefined)
      ctx.addIssue({
        code: 'custom',
        path: ['resourceIds'],
        message: 'cannot be combined with resourceId or resourceTypeId',
      });
  } else if (body.resourceId === undefined && body.resourceTypeId === undefined)
    ctx.addIssue({
      code: 'custom',
      path: ['resourceId'],
      message: 'resourceId, resourceTypeId or resourceIds is required',
    });
}

export const reservationBody = z
  .strictObject({ ...targetFields, ...bookingFields })
  .superRefine(refineTarget);
export type ReservationInput = z.infer<typeof reservationBody>;

const overrideRules = z
  .boolean()
  .optional()
  .describe(
    "Write past the resource type's booking rules (OWNER, ADMIN or MANAGER; recorded on the reservation as rulesOverriddenByUserId; 403 for a MEMBER)",
  );

/** RFC 5545 lines of a recurring booking (DECISIONS.md "Recurring reservations and the waitlist"). */
export const recurrence = z
  .array(z.string().trim().min(1).max(1000))
  .min(1)
  .max(50)
  .optional()
  .describe(
    'Book a series (types with recurringEnabled): RFC 5545 lines, e.g. ["RRULE:FREQ=WEEKLY;COUNT=10", "EXDATE;TZID=Europe/Berlin:20260302T090000"]. startTime/endTime are the first occurrence; occurrences keep its wall-clock time in the organisation time zone. The RRULE needs COUNT or UNTIL; at most 104 occurrences within 2 years. All or nothing: 201 {seriesId, reservations}',
  );

/** A booking through an organisation's page (POST /api/public/organisations/:slug/reservations): may be a series. */
export const slugReservationBody = z
  .strictObject({ ...targetFields, ...bookingFields, recurrence })
  .superRefine(refineTarget);
export type SlugReservationInput = z.infer<typeof slugReservationBody>;

/** A member's booking (POST /api/reservations, reservations_create): the booking body, plus staff's override. */
export const createReservationBody = z
  .strictObject({ ...targetFields, ...bookingFields, overrideRules, recurrence })
  .superRefine(refineTarget);
export type CreateReservationInput = z.infer<typeof createReservationBody>;

/** A member's cancellation: staff may override the type's cancel notice. */
export const cancelReservationBody = z.strictObject({ overrideRules });
export type CancelReservationInput = z.infer<typeof cancelReservationBody>;

/** Moving a reservation (POST /api/reservations/:id/reschedule, reservations_reschedule). */
export const rescheduleBody = z.strictObject({
  startTime: instant,
  endTime: instant,
  resourceId: entityId
    .optional()
    .describe(
      'Move it to this resource (SINGLE_RESOURCE, BOTH); without, it stays on its resource, or in the pool of a POOL type',
    ),
  resourceIds: resourceIds.describe(
    'A collective reservation: move it to these 2-5 resources (all or nothing); without, it keeps its resources',
  ),
  overrideRules,
});
export type RescheduleInput = z.infer<typeof rescheduleBody>;

/** Shortest and longest hold, and the default (seconds). */
export const HOLD_SECONDS = { min: 60, max: 1800, default: 600 } as const;
const holdSeconds = z
  .number()
  .int()
  .min(HOLD_SECONDS.min, `must be at least ${HOLD_SECONDS.min} seconds`)
  .max(HOLD_SECONDS.max, `must be at most ${HOLD_SECONDS.max} seconds (30 minutes)`)
  .default(HOLD_SECONDS.default)
  .describe(`How long the hold keeps the time, in seconds (${HOLD_SECONDS.min}..${HOLD_SECONDS.max})`);

/** A hold: the create body plus how long to hold. */
export const holdBody = z
  .strictObject({ ...targetFields, ...bookingFields, holdSeconds })
  .superRefine(refineTarget);
export type HoldInput = z.infer<typeof holdBody>;

/** A member's hold (POST /api/reservations/holds, reservations_hold): the hold body, plus staff's override. */
export const createHoldBody = z
  .strictObject({ ...targetFields, ...bookingFields, holdSeconds, overrideRules })
  .superRefine(refineTarget);
export type CreateHoldInput = z.infer<typeof createHoldBody>;

const RESERVATION_STATUSES = ['held', 'pending_payment', 'confirmed', 'cancelled', 'expired'] as const;
export const reservationStatus = z.enum(RESERVATION_STATUSES);

/** The payment of a paid reservation (amounts in minor units); null until the payment flow sets one. */
export const reservationPayment = z
  .object({
    status: z.enum(['requires_payment', 'paid', 'refunded', 'failed', 'expired']),
    amount: z.number().int(),
    currency: z.string(),
    checkoutUrl: z.string().nullable(),
    expiresAt: z.string().nullable(),
  })
  .nullable();
export type ReservationPayment = z.infer<typeof reservationPayment>;

export const listReservationsQuery = z
  .strictObject({
    resourceId: positiveId.optional().describe('A resource; a parent matches its lanes too'),
    resourceTypeId: positiveId.optional(),
    status: listOf(RESERVATION_STATUSES).describe(
      `Any of ${RESERVATION_STATUSES.join(', ')}, as callers see them now (a lapsed hold is expired); comma-separated or repeated`,
    ),
    from: instant.optional().describe('Reservations ending after this'),
    to: instant.optional().describe('Reservations starting before this'),
    attendance: attendanceStatus.optional().describe('Only reservations marked so (attended or no_show)'),
    q: z
      .string()
      .trim()
      .max(200)
      .optional()
      .transform((text) => text || undefined)
      .describe(
        "The customer's name or email, or the reference, contains this; letters A-Z in any case, other characters as written",
      ),
    ...pageQuery,
  })
  .refine((q) => !q.from || !q.to || Date.parse(q.to) > Date.parse(q.from), {
    message: 'must be after from',
    path: ['to'],
  });
export type ListReservationsQuery = z.infer<typeof listReservationsQuery>;

export const reservation = z.object({
  id: z.number().int(),
  reference: z
    .string()
    .describe(
      'The public reference its customer sees (mails, booking and manage pages): 8 characters, unique in the organisation, not sequential',
    ),
  resourceTypeId: z.number().int().nullable(),
  resourceId: z
    .number()
    .int()
    .nullable()
    .describe(
      'The resource or capacity lane holding the time (a collective reservation: the first of resourceIds)',
    ),
  resourceIds: z
    .array(z.number().int())
    .describe(
      'Every resource it takes: a collective reservation the 2-5 booked together, in the order booked; else [resourceId]',
    ),
  status: reservationStatus,
  startTime: z.string(),
  endTime: z.string(),
  customer: customerRecord,
  notes: z.string().nullable(),
  priceAmount: z.number().int().nullable(),
  priceCurrency: z.string().nullable(),
  source: z.enum(['api', 'public_slug', 'public_token', 'mcp']),
  createdByUserId: z.number().int().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
  cancelledAt: z.string().nullable(),
  rulesOverriddenByUserId: z
    .number()
    .int()
    .nullable()
    .describe(
      "The staff member who last booked, moved or cancelled it past its type's booking rules; null when none",
    ),
  expiresAt: z
    .string()
    .nullable()
    .describe('Until when a held or pending_payment reservation keeps its time; null in every other status'),
  seriesId: z
    .number()
    .int()
    .nullable()
    .describe('The recurring series it belongs to; null when it stands alone'),
  payment: reservationPayment,
  assignment: z
    .object({
      strategy: assignmentStrategy,
      resourceId: z.number().int().describe('The resource or capacity lane the pool gave it'),
      reason: z.string().describe('Why that one, in a sentence'),
    })
    .nullable()
    .describe(
      "How a pool booking's resource was picked (the type's assignment); null when the booking named its resource",
    ),
  attendance: attendanceStatus
    .nullable()
    .describe('Whether the customer came, as staff marked it after the start; null until marked'),
});
export type Reservation = z.infer<typeof reservation>;

/** POST /api/reservations/:id/attendance. */
export const attendanceBody = z.strictObject({
  status: attendanceStatus.describe('attended: the customer came; no_show: they did not'),
});
export type AttendanceInput = z.infer<typeof attendanceBody>;

/** GET /api/reservations/attendance-counts: one customer's marks. */
export const attendanceCountsQuery = z.strictObject({
  customerEmail: email.describe("The customer's email, as their bookings give it"),
});
export const attendanceCounts = z.object({
  customerEmail: z.string(),
  attended: z.number().int().describe("The organisation's reservations of this customer marked attended"),
  noShow: z.number().int().describe('Those marked no_show'),
});

/** What a public booker gets back: their own booking, nothing internal. */
export const publicReservation = reservation.pick({
  id: true,
  reference: true,
  resourceTypeId: true,
  status: true,
  startTime: true,
  endTime: true,
  customer: true,
  priceAmount: true,
  priceCurrency: true,
  expiresAt: true,
  seriesId: true,
  payment: true,
});
export type PublicReservation = z.infer<typeof publicReservation>;

/** A booked series (201 of a create with `recurrence`): its id and every occurrence, by start. */
export const seriesBooking = z.object({
  seriesId: z.number().int(),
  reservations: z.array(reservation),
});
export type SeriesBooking = z.infer<typeof seriesBooking>;

/** GET /api/reservations/series/:id: the series' lines and its occurrences (cancelled ones too), by start. */
export const reservationSeries = z.object({
  id: z.number().int(),
  recurrence: z.array(z.string()),
  reservations: z.array(reservation),
});
export type ReservationSeries = z.infer<typeof reservationSeries>;

/** POST /api/reservations/series/:id/cancel: staff may override the cancel notice. */
export const cancelSeriesBody = z.strictObject({ overrideRules });
