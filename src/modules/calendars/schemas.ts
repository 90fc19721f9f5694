import { IANAZone } from 'luxon';
import { z } from 'zod';
import { oneLine } from '../../http/schemas.js';

// luxon builds an Intl formatter on every check; the set of zone names is small and fixed.
const knownZones = new Map<string, boolean>();

export function isValidTimeZone(name: string): boolean {
  let valid = knownZones.get(name);
  if (valid === undefined) {
    valid = IANAZone.isValidZone(name);
    // Bounded: hostile input cannot grow it without limit.
    if (knownZones.size < 2_000) knownZones.set(name, valid);
  }
  return valid;
}

/** An IANA time zone name such as `Europe/Berlin` or `UTC`. */
export const timeZone = z
  .string()
  .trim()
  .min(1)
  .max(64)
  .refine(isValidTimeZone, { message: 'must be an IANA time zone such as Europe/Berlin' });

export const color = z
  .string()
  .regex(/^#[0-9a-fA-F]{6}$/, 'must be a hex colour such as #3b82f6')
  .transform((value) => value.toLowerCase());

const name = oneLine(z.string().trim().min(1).max(200));
const description = z.string().trim().max(2000).nullable();

export const createCalendarBody = z.strictObject({
  name,
  color: color.optional().describe('Default #3b82f6'),
  timezone: timeZone.optional().describe('Default UTC'),
  description: description.optional(),
  isDefault: z
    .boolean()
    .optional()
    .describe('true makes this your default calendar instead of the current one'),
});
export type CreateCalendarInput = z.infer<typeof createCalendarBody>;

export const updateCalendarBody = z.strictObject({
  name: name.optional(),
  color: color.optional(),
  timezone: timeZone.optional(),
  description: description.optional(),
  isDefault: z
    .boolean()
    .optional()
    .describe(
      'true moves the default here; the default itself cannot be switched off (409 DEFAULT_CALENDAR)',
    ),
});
export type UpdateCalendarInput = z.infer<typeof updateCalendarBody>;

export const calendarAccessRole = z
  .enum(['owner', 'reader'])
  .describe('owner: your calendar; reader: shared with you through a people group (events read-only)');

export const calendar = z.object({
  id: z.number().int(),
  ownerId: z.number().int(),
  name: z.string(),
  color: z.string(),
  timezone: z.string(),
  description: z.string().nullable(),
  isDefault: z.boolean().describe("Whether this is its owner's default calendar"),
  accessRole: calendarAccessRole,
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type Calendar = z.infer<typeof calendar>;
