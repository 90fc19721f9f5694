import { z } from 'zod';

/**
 * The Schedule object of SPEC.md, shared by organisations, resource types and
 * resources (`schedulePolicy`), and the `operatingHours` format that
 * `operatingHoursOverrides` reuses. Times are `HH:mm`, 24-hour, local to the
 * organisation's time zone; `24:00` is allowed only as an end. `dayOfWeek` is
 * 0 (Sunday) .. 6 (Saturday).
 */

const HH_MM = /^([01]\d|2[0-3]):[0-5]\d$/;
const HH_MM_OR_MIDNIGHT = /^(([01]\d|2[0-3]):[0-5]\d|24:00)$/;

export const startTime = z.string().regex(HH_MM, 'must be a time HH:mm (24-hour, 00:00 to 23:59)');
export const endTime = z.string().regex(HH_MM_OR_MIDNIGHT, 'must be a time HH:mm (24-hour, 00:01 to 24:00)');
export const dayOfWeek = z
  .number()
  .int('must be an integer')
  .min(0, 'must be 0 (Sunday) to 6 (Saturday)')
  .max(6, 'must be 0 (Sunday) to 6 (Saturday)');

export const availabilityMode = z.enum(['continuous', 'shifts']);
export type AvailabilityMode = z.infer<typeof availabilityMode>;

/** Minutes since local midnight of an `HH:mm` value (`24:00` is 1440). */
export function minutesOf(time: string): number {
  return Number(time.slice(0, 2)) * 60 + Number(time.slice(3, 5));
}

/** Reports each repeated `dayOfWeek` of a weekly array at its index. */
function uniqueDays(days: Array<{ dayOfWeek: number }>, ctx: z.RefinementCtx) {
  const seen = new Map<number, number>();
  days.forEach((day, index) => {
    const first = seen.get(day.dayOfWeek);
    if (first === undefined) seen.set(day.dayOfWeek, index);
    else
      ctx.addIssue({
        code: 'custom',
        path: [index, 'dayOfWeek'],
        message: `dayOfWeek ${day.dayOfWeek} appears more than once (first at index ${first})`,
      });
  });
}

export const operatingHoursDay = z
  .strictObject({
    dayOfWeek,
    openTime: startTime,
    closeTime: endTime,
    isActive: z.boolean().optional().describe('false keeps the entry but closes the day; default true'),
  })
  .superRefine((day, ctx) => {
    if (minutesOf(day.closeTime) <= minutesOf(day.openTime))
      ctx.addIssue({
        code: 'custom',
        path: ['closeTime'],
        message: `closeTime ${day.closeTime} must be after openTime ${day.openTime}`,
      });
  });

/** Weekly opening hours: at most one entry per day; days without an entry are closed. */
export const operatingHours = z.array(operatingHoursDay).max(7).superRefine(uniqueDays);
export type OperatingHours = z.infer<typeof operatingHours>;

export const shiftSlot = z.strictObject({ startTime, endTime }).superRefine((slot, ctx) => {
  if (minutesOf(slot.endTime) <= minutesOf(slot.startTime))
    ctx.addIssue({
      code: 'custom',
      path: ['endTime'],
      message: `endTime ${slot.endTime} must be after startTime ${slot.startTime}`,
    });
});

export const shiftDay = z
  .strictObject({ dayOfWeek, slots: z.array(shiftSlot).max(96) })
  .superRefine((day, ctx) => {
    // Compare every well-formed pair in start order; touching slots (09:00-12:00, 12:00-15:00) are fine.
    const ordered = day.slots
      .map((slot, index) => ({ index, start: minutesOf(slot.startTime), end: minutesOf(slot.endTime), slot }))
      .filter((s) => s.end > s.start)
      .sort((a, b) => a.start - b.start || a.end - b.end);
    let previous: (typeof ordered)[number] | undefined;
    for (const current of ordered) {
      if (previous && current.start < previous.end) {
        const [first, second] = previous.index < current.index ? [previous, current] : [current, previous];
        ctx.addIssue({
          code: 'custom',
          path: ['slots', second.index],
          message:
            `slot ${second.slot.startTime}-${second.slot.endTime} overlaps slot ${first.index} ` +
            `(${first.slot.startTime}-${first.slot.endTime}) on dayOfWeek ${day.dayOfWeek}`,
        });
      }
      if (!previous || current.end > previous.end) previous = current;
    }
  });

/** Weekly shift slots: at most one entry per day, slots of one day never overlap. */
export const shiftSchedule = z.array(shiftDay).max(7).superRefine(uniqueDays);
export type ShiftSchedule = z.infer<typeof shiftSchedule>;

const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const MONTHS = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];

/** Why `text` (already `YYYY-MM-DD`) is no day of the calendar, or undefined when it is one. */
function notACalendarDay(text: string): string | undefined {
  const [, y, m, d] = ISO_DATE.exec(text)!.map(Number) as [number, number, number, number];
  if (m < 1 || m > 12) return `${text} is not a date: there is no month ${m}`;
  const days = new Date(Date.UTC(y, m, 0)).getUTCDate();
  if (d < 1 || d > days) return `${text} is not a date: ${MONTHS[m - 1]} ${y} has ${days} days`;
  return undefined;
}

export const localDate = z
  .string()
  .regex(ISO_DATE, 'must be a date YYYY-MM-DD, e.g. 2031-12-25')
  .superRefine((text, ctx) => {
    const why = ISO_DATE.test(text) ? notACalendarDay(text) : undefined;
    if (why) ctx.addIssue({ code: 'custom', message: why });
  });

/**
 * One day whose hours differ from its weekday's: closed all day (`closed: true`), or open
 * only from openTime to closeTime. The date is local to the organisation's time zone.
 */
export const dateOverride = z
  .strictObject({
    date: localDate,
    closed: z
      .literal(true, 'must be true (closed all day); for special hours send openTime and closeTime instead')
      .optional()
      .describe('true: closed all day (send no times)'),
    openTime: startTime.optional().describe('With closeTime: the only hours of that day'),
    closeTime: endTime.optional(),
  })
  .superRefine((day, ctx) => {
    const times = day.openTime !== undefined || day.closeTime !== undefined;
    if (day.closed && times) {
      for (const key of ['openTime', 'closeTime'] as const)
        if (day[key] !== undefined)
          ctx.addIssue({
            code: 'custom',
            path: [key],
            message: `a day closed all day has no ${key}: send either closed: true or openTime and closeTime`,
          });
      return;
    }
    if (day.closed) return;
    for (const key of ['openTime', 'closeTime'] as const)
      if (day[key] === undefined)
        ctx.addIssue({
          // A missing field, as a client reads any other: "required".
          code: 'invalid_type',
          expected: 'string',
          input: undefined,
          path: [key],
          message: times
            ? `is required with ${key === 'openTime' ? 'closeTime' : 'openTime'}: special hours need both`
            : 'is required: send openTime and closeTime for special hours, or closed: true',
        });
    if (day.openTime && day.closeTime && minutesOf(day.closeTime) <= minutesOf(day.openTime))
      ctx.addIssue({
        code: 'custom',
        path: ['closeTime'],
        message: `closeTime ${day.closeTime} must be after openTime ${day.openTime}`,
      });
  });
export type DateOverride = z.infer<typeof dateOverride>;

/** Up to 366 days, each date at most once. */
export const dateOverrides = z
  .array(dateOverride)
  .max(366, 'at most 366 date overrides (a year of days)')
  .superRefine((days, ctx) => {
    const seen = new Map<string, number>();
    days.forEach((day, index) => {
      const first = seen.get(day.date);
      if (first === undefined) seen.set(day.date, index);
      else
        ctx.addIssue({
          code: 'custom',
          path: [index, 'date'],
          message: `date ${day.date} appears more than once (first at index ${first})`,
        });
    });
  });

/**
 * Scheduling defaults or overrides. Each section a scope sets replaces that
 * section of the scopes below it (organisation, then resource type, then
 * resource); there is no per-weekday merging.
 */
export const schedulePolicy = z
  .strictObject({
    availabilityMode: availabilityMode.optional(),
    operatingHours: operatingHours.optional(),
    shiftSchedule: shiftSchedule.optional(),
    dateOverrides: dateOverrides
      .optional()
      .describe(
        'Days whose hours differ from their weekday (holidays, special hours), by local date; per date the most specific scope with an entry for it wins',
      ),
  })
  .describe('Schedule object: availabilityMode, operatingHours, shiftSchedule, dateOverrides');
export type SchedulePolicy = z.infer<typeof schedulePolicy>;

/** Stored form: `isActive` made explicit, so readers never guess the default. */
export function normaliseSchedulePolicy(policy: SchedulePolicy): SchedulePolicy {
  return {
    ...(policy.availabilityMode ? { availabilityMode: policy.availabilityMode } : {}),
    ...(policy.operatingHours
      ? { operatingHours: policy.operatingHours.map((day) => ({ ...day, isActive: day.isActive ?? true })) }
      : {}),
    ...(policy.shiftSchedule ? { shiftSchedule: policy.shiftSchedule } : {}),
    // By date, so a reader (and the console) lists them in calendar order.
    ...(policy.dateOverrides
      ? { dateOverrides: [...policy.dateOverrides].sort((a, b) => (a.date < b.date ? -1 : 1)) }
      : {}),
  };
}

/**
 * What an MCP answer carrying schedules names beside them: the zone their local times and
 * dates are in, so an agent never reads 09:00 without knowing where (DECISIONS.md "MCP frontier").
 */
export const scheduleTimezone = z
  .string()
  .describe("The organisation's IANA time zone: every schedule time and date in this answer is local to it");

/** An answer with schedules, widened by `timezone` (`scheduleTimezone`). */
export const withScheduleTimezone = <Shape extends z.ZodRawShape>(answer: z.ZodObject<Shape>) =>
  answer.extend({ timezone: scheduleTimezone });
