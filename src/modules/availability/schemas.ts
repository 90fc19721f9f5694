import { z } from 'zod';
import { availabilityMode } from '../../scheduling/schemas.js';

/** Longest range one availability answer covers. */
export const MAX_RANGE_DAYS = 62;
const DAY_MS = 86_400_000;

const instant = z.iso.datetime({
  offset: true,
  message: 'must be an ISO 8601 date-time with a zone, e.g. 2027-03-01T00:00:00Z',
});

/** A range ends after it starts and spans at most MAX_RANGE_DAYS. */
function checkRange(range: { from: string; to: string }, ctx: z.RefinementCtx): void {
  const span = Date.parse(range.to) - Date.parse(range.from);
  if (span <= 0) ctx.addIssue({ code: 'custom', path: ['to'], message: 'must be after from' });
  else if (span > MAX_RANGE_DAYS * DAY_MS) {
    ctx.addIssue({ code: 'custom', path: ['to'], message: `range must be at most ${MAX_RANGE_DAYS} days` });
  }
}

export const rangeQuery = z.strictObject({ from: instant, to: instant }).superRefine(checkRange);
export type RangeQuery = z.infer<typeof rangeQuery>;

/** GET /api/availability: the resources of a collective booking, comma-separated, and the range. */
export const commonWindowsQuery = z
  .strictObject({
    resourceIds: z
      .string()
      .trim()
      .regex(/^\d+(,\d+)*$/, 'must be resource ids separated by commas, e.g. 12,15')
      .transform((text) => text.split(',').map(Number))
      .refine((ids) => ids.length >= 2 && ids.length <= 5, 'must list 2 to 5 resources')
      .refine((ids) => new Set(ids).size === ids.length, 'must not list a resource twice')
      .refine((ids) => ids.every((id) => id >= 1 && id <= 2_147_483_647), 'must list valid ids'),
    from: instant,
    to: instant,
  })
  .superRefine(checkRange);
export type CommonWindowsQuery = z.infer<typeof commonWindowsQuery>;

export const commonWindows = z.object({
  from: z.string(),
  to: z.string(),
  windows: z
    .array(z.object({ startTime: z.string(), endTime: z.string() }))
    .describe('Where every listed resource is free, by its own hours, rules, bookings and calendars'),
});

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

/** Longest range one explanation covers. */
export const MAX_EXPLAIN_DAYS = 31;

export const explainQuery = z
  .strictObject({ startTime: instant, endTime: instant })
  .superRefine((range, ctx) => {
    const span = Date.parse(range.endTime) - Date.parse(range.startTime);
    if (span <= 0) ctx.addIssue({ code: 'custom', path: ['endTime'], message: 'must be after startTime' });
    else if (span > MAX_EXPLAIN_DAYS * DAY_MS) {
      ctx.addIssue({
        code: 'custom',
        path: ['endTime'],
        message: `range must be at most ${MAX_EXPLAIN_DAYS} days`,
      });
    }
  });
export type ExplainQuery = z.infer<typeof explainQuery>;

/** Why a time is not bookable (DECISIONS.md "Teams"). */
export const REASON_CODES = [
  'OUTSIDE_HOURS',
  'CLOSED_DAY',
  'INACTIVE',
  'NOTICE',
  'ADVANCE',
  'BOOKED',
  'HELD',
  'BUFFER',
  'CALENDAR_BUSY',
  'DAILY_CAP',
  'TOO_SHORT',
  'OFF_GRID',
] as const;
export type ReasonCode = (typeof REASON_CODES)[number];

export const reason = z.object({
  code: z.enum(REASON_CODES),
  message: z.string(),
  from: z.string().optional().describe('Where the part of the asked time this reason covers starts'),
  to: z.string().optional().describe('Where that part ends'),
});
export type Reason = z.infer<typeof reason>;

export const explanation = z.object({
  bookable: z.boolean().describe('Whether some resource of the answer can be booked for the whole time'),
  resources: z.array(
    z.object({
      resourceId: z.number().int(),
      bookable: z.boolean(),
      reasons: z.array(reason).describe('Why not (none when bookable)'),
    }),
  ),
});
export type Explanation = z.infer<typeof explanation>;
