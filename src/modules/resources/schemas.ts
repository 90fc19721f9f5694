import { z } from 'zod';
import { entityId, oneLine, positiveId } from '../../http/schemas.js';
import {
  availabilityMode,
  dateOverride,
  operatingHours,
  schedulePolicy,
  shiftSchedule,
} from '../../scheduling/schemas.js';
import { serverDerived } from '../resource-types/schemas.js';

/** Lanes are seeded from capacity; a resource with more is still one row per lane. */
export const MAX_CAPACITY = 200;

const laneManaged = serverDerived('is system-managed: capacity lanes are created and numbered from capacity');

const resourceFields = {
  description: z
    .string()
    .trim()
    .max(2000)
    .transform((value) => (value === '' ? null : value))
    .nullable(),
  capacity: z.number().int().min(1).max(MAX_CAPACITY).describe('Above 1, one capacity lane per unit'),
  resourceTypeId: entityId,
  managedById: entityId.nullable().describe('A member of the organisation'),
  blockOnManagerCalendars: z
    .boolean()
    .describe(
      'Default false. true: unavailable while the manager has a busy (opaque) event in any of their calendars; needs managedById. Only the manager themself turns it on (anyone who may change the resource may turn it off); a new manager starts with it off',
    ),
  bookingCalendarId: entityId
    .nullable()
    .describe(
      'A calendar of the manager: each confirmed reservation is mirrored there as an event; null for none. Only the manager themself sets it (anyone who may change the resource may clear it); a new manager starts with none',
    ),
  assignmentWeight: z
    .number()
    .int()
    .min(1)
    .max(100)
    .describe(
      "Default 1. Its share of its pool's round robin: a resource of weight 2 takes twice the bookings of one of weight 1",
    ),
  maxBookingsPerDay: z
    .number()
    .int()
    .min(1)
    .nullable()
    .describe(
      'The most bookings it takes in one day of the organisation (each of its lanes, for capacity); null (default) for no cap',
    ),
  operatingHoursOverrides: operatingHours
    .nullable()
    .describe('Compatibility bridge: the same as schedulePolicy.operatingHours'),
  schedulePolicy: schedulePolicy.nullable(),
  parentResourceId: laneManaged,
  isCapacityChild: laneManaged,
  capacityLaneIndex: laneManaged,
  organisationId: serverDerived('is not accepted: resources belong to your active organisation'),
};

const resourceName = oneLine(z.string().trim().min(1).max(200));
const fieldsBody = z.strictObject(resourceFields).partial();

export const createResourceBody = fieldsBody.extend({
  name: resourceName,
  resourceTypeId: resourceFields.resourceTypeId,
});
export const updateResourceBody = fieldsBody.extend({
  name: resourceName.optional(),
  isActive: z.boolean().optional(),
});
export type CreateResourceInput = z.infer<typeof createResourceBody>;
export type UpdateResourceInput = z.infer<typeof updateResourceBody>;

export const listResourcesQuery = z.strictObject({
  resourceTypeId: positiveId.optional(),
});

export const resource = z.object({
  id: z.number().int(),
  organisationId: z.number().int(),
  resourceTypeId: z.number().int(),
  name: z.string(),
  description: z.string().nullable(),
  capacity: z.number().int(),
  managedById: z.number().int().nullable(),
  blockOnManagerCalendars: z.boolean(),
  bookingCalendarId: z.number().int().nullable(),
  assignmentWeight: z.number().int(),
  maxBookingsPerDay: z.number().int().nullable(),
  schedulePolicy: schedulePolicy.nullable(),
  operatingHoursOverrides: operatingHours.nullable(),
  parentResourceId: z.number().int().nullable(),
  isCapacityChild: z.boolean(),
  capacityLaneIndex: z.number().int().nullable(),
  isActive: z.boolean(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type Resource = z.infer<typeof resource>;

export const publicToken = z.object({ token: z.string(), publicUrl: z.string() });

const scheduleSource = z.enum(['organisation', 'resourceType', 'resource', 'default']);
export const effectiveSchedule = z.object({
  availabilityMode,
  operatingHours,
  shiftSchedule,
  dateOverrides: z
    .array(z.object({ ...dateOverride.shape, source: scheduleSource.exclude(['default']) }))
    .describe('By date: each date with the entry of the most specific scope that has one, and that scope'),
  sources: z.object({
    availabilityMode: scheduleSource,
    operatingHours: scheduleSource,
    shiftSchedule: scheduleSource,
  }),
});
