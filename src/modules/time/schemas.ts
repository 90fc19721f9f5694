import { z } from 'zod';
import { zoneName } from '../../lib/time-zones.js';

const zone = z
  .string()
  .min(1)
  .max(64)
  .refine((value) => zoneName(value) !== null, 'is not a time zone of the tz database (e.g. Europe/Berlin)')
  .describe('An IANA time zone, e.g. Europe/Berlin');

const zoned = z.object({
  timeZone: z.string(),
  local: z.string().describe('Wall time with its UTC offset, e.g. 2026-03-03T10:00:00+01:00'),
  offset: z.string().describe('UTC offset in force at that instant, e.g. +01:00 (DST included)'),
  weekday: z.string(),
});

export const timeNowInput = z.strictObject({
  timeZone: zone
    .optional()
    .describe("The zone to show now in; default: your organisation's zone (UTC without one)"),
});

export const timeNowOutput = z.object({
  now: z.string().describe('Now as a UTC instant (Z)'),
  ...zoned.shape,
  zoneSource: z.enum(['argument', 'organisation', 'utc']).describe('Where timeZone came from'),
});

export const timeConvertInput = z.strictObject({
  time: z
    .string()
    .min(1)
    .max(40)
    .describe(
      'An instant with offset (2026-03-03T09:00:00Z, 2026-03-03T10:00+01:00) or a wall time without one (2026-03-03T10:00), read in fromTimeZone',
    ),
  fromTimeZone: zone.optional().describe("The zone a wall time is in; default: your organisation's zone"),
  toTimeZone: zone.optional().describe("The zone to convert to; default: your organisation's zone"),
});

export const timeConvertOutput = z.object({
  instant: z.string().describe('The instant as UTC (Z): what to send as startTime or endTime'),
  from: zoned,
  to: zoned,
  note: z
    .string()
    .nullable()
    .describe('Set when the wall time occurs twice (clocks went back): the earlier one was taken'),
});
