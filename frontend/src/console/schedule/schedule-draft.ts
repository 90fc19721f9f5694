// The schedule form's model, apart from its screen: a schedulePolicy as the form holds it (every
// weekday, every date override as a row), the body it sends with which form field each path of
// that body is (the API names a refusal by the index it was sent at:
// `schedulePolicy.dateOverrides.3.closeTime`), and the schedule a resource follows as the
// service resolves it, for previews computed in the browser.
import type { ResolvedSchedule, SchedulePolicy } from '../../api/types.js';
import { WEEK } from '../week.js';

export type Mode = 'continuous' | 'shifts';
/** Where a schedule is set: each level's sections replace the ones of the levels above it. */
export type Level = 'organisation' | 'resourceType' | 'resource';

export interface Hours {
  open: boolean;
  openTime: string;
  closeTime: string;
}
export interface Slot {
  /** The row's own key (slots move when one before them goes). */
  key: number;
  startTime: string;
  endTime: string;
}
export interface OverrideRow {
  /** The row's own key (rows move when one before them goes). */
  key: number;
  date: string;
  closed: boolean;
  openTime: string;
  closeTime: string;
}
let nextKey = 1;
export const newKey = () => nextKey++;

export interface Draft {
  /** '' follows the level above (never at the organisation). */
  mode: Mode | '';
  /** false: no opening hours at this level (the organisation: open all day, every day). */
  hoursSet: boolean;
  hours: Record<number, Hours>;
  shifts: Record<number, Slot[]>;
  overrides: OverrideRow[];
}

export type DateOverride = NonNullable<SchedulePolicy['dateOverrides']>[number];

export function draftOf(policy: SchedulePolicy | null | undefined, level: Level): Draft {
  const hours: Record<number, Hours> = {};
  const shifts: Record<number, Slot[]> = {};
  for (const { dayOfWeek } of WEEK) {
    const entry = policy?.operatingHours?.find((d) => d.dayOfWeek === dayOfWeek);
    hours[dayOfWeek] = entry
      ? { open: entry.isActive !== false, openTime: entry.openTime, closeTime: entry.closeTime }
      : // Without hours yet, a working week to start from.
        {
          open: !policy?.operatingHours && dayOfWeek >= 1 && dayOfWeek <= 5,
          openTime: '09:00',
          closeTime: '17:00',
        };
    shifts[dayOfWeek] = (policy?.shiftSchedule?.find((d) => d.dayOfWeek === dayOfWeek)?.slots ?? []).map(
      (s) => ({ key: newKey(), startTime: s.startTime, endTime: s.endTime }),
    );
  }
  return {
    mode: policy?.availabilityMode ?? (level === 'organisation' ? 'continuous' : ''),
    hoursSet: !!policy?.operatingHours,
    hours,
    shifts,
    overrides: (policy?.dateOverrides ?? []).map((o) => ({
      key: newKey(),
      date: o.date,
      closed: !!o.closed,
      openTime: o.openTime ?? '09:00',
      closeTime: o.closeTime ?? '13:00',
    })),
  };
}

/** A new date row: closed all day until told otherwise (a holiday is the common case). */
export const newOverride = (): OverrideRow => ({
  key: newKey(),
  date: '',
  closed: true,
  openTime: '09:00',
  closeTime: '13:00',
});

/** The body to send, and which form field each of its paths is. */
export function policyOf(draft: Draft): { policy: SchedulePolicy; fieldOf: Map<string, string> } {
  const fieldOf = new Map<string, string>();
  const policy: SchedulePolicy = draft.mode ? { availabilityMode: draft.mode } : {};
  if (draft.hoursSet) {
    const open = WEEK.filter(({ dayOfWeek }) => draft.hours[dayOfWeek]!.open);
    policy.operatingHours = open.map(({ dayOfWeek }, i) => {
      const at = `schedulePolicy.operatingHours.${i}`;
      fieldOf.set(`${at}.openTime`, `hours.${dayOfWeek}.openTime`);
      fieldOf.set(`${at}.closeTime`, `hours.${dayOfWeek}.closeTime`);
      fieldOf.set(`${at}.dayOfWeek`, `hours.${dayOfWeek}.openTime`);
      fieldOf.set(at, `hours.${dayOfWeek}.openTime`);
      const { openTime, closeTime } = draft.hours[dayOfWeek]!;
      return { dayOfWeek, openTime, closeTime, isActive: true };
    });
  }
  const shiftDays = WEEK.filter(({ dayOfWeek }) => draft.shifts[dayOfWeek]!.length > 0);
  if (shiftDays.length > 0 || draft.mode === 'shifts') {
    policy.shiftSchedule = shiftDays.map(({ dayOfWeek }, i) => {
      const slots = draft.shifts[dayOfWeek]!;
      slots.forEach((_, j) => {
        const at = `schedulePolicy.shiftSchedule.${i}.slots.${j}`;
        fieldOf.set(`${at}.startTime`, `shift.${dayOfWeek}.${j}.startTime`);
        fieldOf.set(`${at}.endTime`, `shift.${dayOfWeek}.${j}.endTime`);
        // An overlap is reported on the slot itself.
        fieldOf.set(at, `shift.${dayOfWeek}.${j}.startTime`);
      });
      return { dayOfWeek, slots: slots.map((s) => ({ startTime: s.startTime, endTime: s.endTime })) };
    });
  }
  if (draft.overrides.length > 0) {
    policy.dateOverrides = draft.overrides.map((row, i) => {
      const at = `schedulePolicy.dateOverrides.${i}`;
      for (const part of ['date', 'closed', 'openTime', 'closeTime'])
        fieldOf.set(`${at}.${part}`, `override.${row.key}.${part}`);
      fieldOf.set(at, `override.${row.key}.date`);
      return row.closed
        ? { date: row.date, closed: true as const }
        : { date: row.date, openTime: row.openTime, closeTime: row.closeTime };
    });
    // Too many dates: the refusal names the list, shown on the form's summary.
    fieldOf.set('schedulePolicy.dateOverrides', 'overrides');
  }
  return { policy, fieldOf };
}

export type ScheduleSource = ResolvedSchedule['sources']['operatingHours'];
export type Resolved = Omit<ResolvedSchedule, 'dateOverrides'> & {
  dateOverrides: Array<DateOverride & { source: Exclude<ScheduleSource, 'default'> }>;
};

const ALWAYS_OPEN = WEEK.map(({ dayOfWeek }) => ({
  dayOfWeek,
  openTime: '00:00',
  closeTime: '24:00',
  isActive: true,
}));

/**
 * The schedule the levels make together, as the service resolves it: each section from the
 * most specific level that sets it, and per date the most specific level's date override.
 */
export function resolveLevels(
  levels: Array<[Exclude<ScheduleSource, 'default'>, SchedulePolicy | null | undefined]>,
): Resolved {
  const specificFirst = [...levels].reverse();
  const pick = <K extends 'availabilityMode' | 'operatingHours' | 'shiftSchedule'>(
    section: K,
    fallback: NonNullable<SchedulePolicy[K]>,
  ): [NonNullable<SchedulePolicy[K]>, ScheduleSource] => {
    for (const [source, policy] of specificFirst) {
      const value = policy?.[section];
      if (value !== undefined && value !== null) return [value as NonNullable<SchedulePolicy[K]>, source];
    }
    return [fallback, 'default'];
  };
  const [availabilityMode, modeSource] = pick('availabilityMode', 'continuous');
  const [operatingHours, hoursSource] = pick('operatingHours', ALWAYS_OPEN);
  const [shiftSchedule, shiftSource] = pick('shiftSchedule', []);
  const byDate = new Map<string, Resolved['dateOverrides'][number]>();
  for (const [source, policy] of specificFirst)
    for (const entry of policy?.dateOverrides ?? [])
      if (!byDate.has(entry.date)) byDate.set(entry.date, { ...entry, source });
  return {
    availabilityMode,
    operatingHours,
    shiftSchedule,
    dateOverrides: [...byDate.values()].sort((a, b) => (a.date < b.date ? -1 : 1)),
    sources: { availabilityMode: modeSource, operatingHours: hoursSource, shiftSchedule: shiftSource },
  };
}

/** What one local date offers under `schedule`, in words: its hours or shifts, or that it is closed. */
export function dayWords(
  schedule: Resolved,
  date: string,
): { text: string; override?: Resolved['dateOverrides'][number] } {
  const dayOfWeek = new Date(`${date}T00:00:00Z`).getUTCDay();
  const override = schedule.dateOverrides.find((o) => o.date === date);
  if (schedule.availabilityMode === 'shifts') {
    const slots = schedule.shiftSchedule.find((d) => d.dayOfWeek === dayOfWeek)?.slots ?? [];
    if (override?.closed) return { text: 'Closed', override };
    const kept = override
      ? slots.filter((s) => s.startTime >= override.openTime! && s.endTime <= override.closeTime!)
      : slots;
    return {
      text: kept.length ? kept.map((s) => `${s.startTime}–${s.endTime}`).join(', ') : 'No shifts',
      ...(override ? { override } : {}),
    };
  }
  if (override)
    return { text: override.closed ? 'Closed' : `${override.openTime}–${override.closeTime}`, override };
  const entry = schedule.operatingHours.find((d) => d.dayOfWeek === dayOfWeek && d.isActive !== false);
  if (!entry) return { text: 'Closed' };
  return {
    text:
      entry.openTime === '00:00' && entry.closeTime === '24:00'
        ? 'Open all day'
        : `${entry.openTime}–${entry.closeTime}`,
  };
}
