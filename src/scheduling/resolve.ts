import type { AvailabilityMode, OperatingHours, SchedulePolicy, ShiftSchedule } from './schemas.js';

export type ScheduleSource = 'organisation' | 'resourceType' | 'resource' | 'default';

export interface ResolvedSchedule {
  availabilityMode: AvailabilityMode;
  operatingHours: OperatingHours;
  shiftSchedule: ShiftSchedule;
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
const DEFAULTS: Required<SchedulePolicy> = {
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
    sources: { availabilityMode: modeSource, operatingHours: hoursSource, shiftSchedule: shiftSource },
  };
}
