import { z } from 'zod';
import { entityId, pageQuery, positiveId } from '../../http/schemas.js';
import { email } from '../auth/schemas.js';
import { serverDerived } from '../resource-types/schemas.js';

const instant = z.iso.datetime({ offset: true, message: 'must be an ISO 8601 date-time with a zone' });
const priceFromType = serverDerived('is not accepted: price and currency come from the resource type');

/** name, email and phone, plus one string per field the resource type lists in customerInfoFields. */
export const customer = z
  .object({
    name: z.string().trim().min(1).max(200),
    email,
    phone: z.string().trim().min(1).max(50).optional(),
  })
  .catchall(z.string().trim().max(1000));
export type Customer = z.infer<typeof customer>;

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

export const reservationBody = z
  .strictObject({
    resourceId: entityId.optional().describe('A concrete resource (SINGLE_RESOURCE, BOTH)'),
    resourceTypeId: entityId.optional().describe('Book from the pool (POOL, BOTH)'),
    ...bookingFields,
  })
  .refine((body) => body.resourceId !== undefined || body.resourceTypeId !== undefined, {
    message: 'resourceId or resourceTypeId is required',
    path: ['resourceId'],
  });
export type ReservationInput = z.infer<typeof reservationBody>;

export const reservationStatus = z.enum(['pending_payment', 'confirmed', 'cancelled']);

export const listReservationsQuery = z
  .strictObject({
    resourceId: positiveId.optional().describe('A resource; a parent matches its lanes too'),
    resourceTypeId: positiveId.optional(),
    status: reservationStatus.optional(),
    from: instant.optional().describe('Reservations ending after this'),
    to: instant.optional().describe('Reservations starting before this'),
    ...pageQuery,
  })
  .refine((q) => !q.from || !q.to || Date.parse(q.to) > Date.parse(q.from), {
    message: 'must be after from',
    path: ['to'],
  });
export type ListReservationsQuery = z.infer<typeof listReservationsQuery>;

export const reservation = z.object({
  id: z.number().int(),
  resourceTypeId: z.number().int().nullable(),
  resourceId: z.number().int().nullable().describe('The resource or capacity lane holding the time'),
  status: reservationStatus,
  startTime: z.string(),
  endTime: z.string(),
  customer: z.record(z.string(), z.string()),
  notes: z.string().nullable(),
  priceAmount: z.number().int().nullable(),
  priceCurrency: z.string().nullable(),
  source: z.enum(['api', 'public_slug', 'public_token', 'mcp']),
  createdByUserId: z.number().int().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
  cancelledAt: z.string().nullable(),
});
export type Reservation = z.infer<typeof reservation>;

/** What a public booker gets back: their own booking, nothing internal. */
export const publicReservation = reservation.pick({
  id: true,
  resourceTypeId: true,
  status: true,
  startTime: true,
  endTime: true,
  customer: true,
  priceAmount: true,
  priceCurrency: true,
});
export type PublicReservation = z.infer<typeof publicReservation>;
