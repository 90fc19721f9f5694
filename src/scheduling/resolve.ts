import type {
  AvailabilityMode,
  DateOverride,
  OperatingHours,
  SchedulePolicy,
  ShiftSchedule,
} from './schemas.js';

export type ScheduleSource = 'organisation' | 'resourceType' | 'resource' | 'default';

/** A date override as it applies to a resource: the entry, and the scope it came from. */
export type ResolvedDateOverride = DateOverride & { source: Exclude<ScheduleSource, 'default'> };

export interface ResolvedSchedule {
  availabilityMode: AvailabilityMode;
  operatingHours: OperatingHours;
  shiftSchedule: ShiftSchedule;
  /** By date: for each date, the entry of the most specific scope that has one. */
  dateOverrides: ResolvedDateOverride[];
  sources: {
    availabilityMode: ScheduleSource;
    operatingHours: ScheduleSource;
    shiftSchedule: ScheduleSource;
  };
}

/** No scope sets opening hours: open all day, every day. */
export const ALWAYS_OPEN: OperatingHours = [0, 1, 2, 3, 4, 5, 6].map((dayOfWeek) => ({
  dayOfWeek,
  openTime: '00:00',
  closeTime: '24:00',
  isActive: true,
}));

type Section = 'availabilityMode' | 'operatingHours' | 'shiftSchedule';
const DEFAULTS: Required<Omit<SchedulePolicy, 'dateOverrides'>> = {
  availabilityMode: 'continuous',
  operatingHours: ALWAYS_OPEN,
  shiftSchedule: [],
};

/**
 * Effective schedule of a resource: for each section, the most specific scope
 * that sets it wins whole (resource, then resource type, then organisation);
 * sections are never merged per weekday. A capacity lane passes its parent's policy.
 */
export function resolveSchedule(scopes: {
  organisation: SchedulePolicy | null;
  resourceType: SchedulePolicy | null;
  resource: SchedulePolicy | null;
}): ResolvedSchedule {
  const order: Array<[ScheduleSource, SchedulePolicy | null]> = [
    ['resource', scopes.resource],
    ['resourceType', scopes.resourceType],
    ['organisation', scopes.organisation],
  ];
  const pick = <S extends Section>(section: S): [NonNullable<SchedulePolicy[S]>, ScheduleSource] => {
    for (const [source, policy] of order) {
      const value = policy?.[section];
      if (value !== undefined && value !== null) return [value as NonNullable<SchedulePolicy[S]>, source];
    }
    return [DEFAULTS[section], 'default'];
  };
  const [availabilityMode, modeSource] = pick('availabilityMode');
  const [operatingHours, hoursSource] = pick('operatingHours');
  const [shiftSchedule, shiftSource] = pick('shiftSchedule');
  return {
    availabilityMode,
    operatingHours,
    shiftSchedule,
    dateOverrides: resolveDateOverrides(order),
    sources: { availabilityMode: modeSource, operatingHours: hoursSource, shiftSchedule: shiftSource },
  };
}

/**
 * Date overrides resolve per date with the sections' precedence: the most specific scope
 * with an entry for a date gives that date's hours, whichever scope gives the weekly hours
 * (a dated entry says more about its day than any weekly one).
 */
function resolveDateOverrides(order: Array<[ScheduleSource, SchedulePolicy | null]>): ResolvedDateOverride[] {
  // Most schedules have none: no map for them (this runs for every resource of every answer).
  if (!order.some(([, policy]) => policy?.dateOverrides?.length)) return [];
  const byDate = new Map<string, ResolvedDateOverride>();
  for (const [source, policy] of order) {
    if (source === 'default') continue;
    for (const entry of policy?.dateOverrides ?? [])
      if (!byDate.has(entry.date)) byDate.set(entry.date, { ...entry, source });
  }
  return [...byDate.values()].sort((a, b) => (a.date < b.date ? -1 : 1));
}
