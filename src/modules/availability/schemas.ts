import { z } from 'zod';
import { availabilityMode } from '../../scheduling/schemas.js';

/** Longest range one availability answer covers. */
export const MAX_RANGE_DAYS = 62;
const DAY_MS = 86_400_000;

const instant = z.iso.datetime({
  offset: true,
  message: 'must be an ISO 8601 date-time with a zone, e.g. 2027-03-01T00:00:00Z',
});

export const rangeQuery = z.strictObject({ from: instant, to: instant }).superRefine((range, ctx) => {
  const span = Date.parse(range.to) - Date.parse(range.from);
  if (span <= 0) ctx.addIssue({ code: 'custom', path: ['to'], message: 'must be after from' });
  else if (span > MAX_RANGE_DAYS * DAY_MS) {
    ctx.addIssue({ code: 'custom', path: ['to'], message: `range must be at most ${MAX_RANGE_DAYS} days` });
  }
});
export type RangeQuery = z.infer<typeof rangeQuery>;

export const window = z.object({
  start: z.string(),
  end: z.string(),
  freeLanes: z.number().int(),
  totalLanes: z.number().int(),
});
export const slot = z.object({
  start: z.string(),
  end: z.string(),
  available: z.boolean(),
  freeLanes: z.number().int(),
  totalLanes: z.number().int(),
});

const windowsOrSlots = { windows: z.array(window).optional(), slots: z.array(slot).optional() };

export const resourceAvailability = z.object({
  resourceId: z.number().int(),
  timezone: z.string(),
  availabilityMode,
  from: z.string(),
  to: z.string(),
  ...windowsOrSlots,
});
export type ResourceAvailability = z.infer<typeof resourceAvailability>;

export const typeAvailability = z.object({
  resourceTypeId: z.number().int(),
  bookingMode: z.enum(['SINGLE_RESOURCE', 'POOL', 'BOTH']),
  timezone: z.string(),
  from: z.string(),
  to: z.string(),
  pool: z.object({ availabilityMode, ...windowsOrSlots }).optional(),
  resources: z
    .array(z.object({ resourceId: z.number().int(), availabilityMode, ...windowsOrSlots }))
    .optional(),
});
export type TypeAvailability = z.infer<typeof typeAvailability>;
