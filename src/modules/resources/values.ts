import type { Executor } from '../../db/database.js';
import type { Actor } from '../../lib/actor.js';
import { forbidden, invalidInput } from '../../lib/errors.js';
import { normaliseSchedulePolicy, type SchedulePolicy } from '../../scheduling/schemas.js';
import type { ResourcesContext } from './context.js';
import type { ResourceValues } from './repo.js';
import type { CreateResourceInput, UpdateResourceInput } from './schemas.js';

type Input = CreateResourceInput | UpdateResourceInput;

/** `operatingHoursOverrides` is the resource-level `schedulePolicy.operatingHours` under another name. */
export function mergePolicy(current: SchedulePolicy | null, input: Input): SchedulePolicy | null {
  let policy = current;
  if (input.schedulePolicy !== undefined) {
    policy = input.schedulePolicy ? normaliseSchedulePolicy(input.schedulePolicy) : null;
  }
  const overrides = input.operatingHoursOverrides;
  if (overrides !== undefined) {
    const inPolicy = input.schedulePolicy?.operatingHours;
    if (inPolicy !== undefined && JSON.stringify(inPolicy) !== JSON.stringify(overrides)) {
      throw invalidInput('operatingHoursOverrides and schedulePolicy.operatingHours differ', [
        {
          path: 'operatingHoursOverrides',
          message: 'must equal schedulePolicy.operatingHours when both are sent',
        },
      ]);
    }
    const { operatingHours: _replaced, ...rest } = policy ?? {};
    const next = overrides ? normaliseSchedulePolicy({ ...rest, operatingHours: overrides }) : rest;
    policy = Object.keys(next).length > 0 ? next : null;
  }
  return policy;
}

/** The fields that reach into the manager's own calendars: only the manager turns them on. */
const MANAGER_SETTINGS = ['blockOnManagerCalendars', 'bookingCalendarId'] as const;
type ManagerSettings = Pick<ResourceValues, 'managedById' | (typeof MANAGER_SETTINGS)[number]>;
export const NO_MANAGER_SETTINGS = { blockOnManagerCalendars: false, bookingCalendarId: null } as const;

/** Whether the body changes nothing but the manager's own settings (which the manager may do as any member). */
export const onlyManagerSettings = (input: Input) =>
  Object.entries(input).every(
    ([key, value]) => value === undefined || (MANAGER_SETTINGS as readonly string[]).includes(key),
  );

/**
 * A member's calendars are theirs (DECISIONS.md "What the review found"): blocking on the
 * manager's calendars and mirroring bookings into one of them are turned on (or pointed at
 * another calendar) only by the manager themself; anyone who may change the resource may
 * turn them off. A new manager (or none) starts with both off. (An agent acts as its
 * owner: resource tools carry no calendar scope.)
 */
export function managerSettings(
  actor: Actor,
  before: ManagerSettings,
  input: Input,
  managedById: number | null,
) {
  const base = managedById === before.managedById ? before : NO_MANAGER_SETTINGS;
  const blockOnManagerCalendars = input.blockOnManagerCalendars ?? base.blockOnManagerCalendars;
  const bookingCalendarId =
    input.bookingCalendarId !== undefined ? input.bookingCalendarId : base.bookingCalendarId;
  const blocks = blockOnManagerCalendars && !base.blockOnManagerCalendars;
  const mirrors = bookingCalendarId !== null && bookingCalendarId !== base.bookingCalendarId;
  if ((blocks || mirrors) && managedById !== null && actor.userId !== managedById) {
    throw forbidden(
      `Only the resource's manager can turn on ${blocks ? 'blockOnManagerCalendars' : 'bookingCalendarId'}: it reaches into their own calendars`,
    );
  }
  return { blockOnManagerCalendars, bookingCalendarId };
}

/** Checks references in the body against the organisation: the type and the manager must be its own. */
export async function checkReferences(
  { resourceTypes, calendars, organisations }: ResourcesContext,
  executor: Executor,
  organisationId: number,
  values: ResourceValues,
) {
  if (!(await resourceTypes.findStored(executor, organisationId, values.resourceTypeId))) {
    throw invalidInput('resourceTypeId is not a resource type of your active organisation', [
      { path: 'resourceTypeId', message: 'no such resource type in your active organisation' },
    ]);
  }
  if (
    values.managedById !== null &&
    !(await organisations.isMember(executor, organisationId, values.managedById))
  ) {
    throw invalidInput('managedById is not a member of your active organisation', [
      { path: 'managedById', message: 'must be a member of the organisation' },
    ]);
  }
  if (values.blockOnManagerCalendars && values.managedById === null) {
    throw invalidInput('blockOnManagerCalendars needs a manager: set managedById', [
      {
        path: 'blockOnManagerCalendars',
        message: 'a resource without managedById has no calendars to block on',
      },
    ]);
  }
  if (
    values.bookingCalendarId !== null &&
    (values.managedById === null ||
      !(await calendars.isOwnedBy(values.bookingCalendarId, values.managedById, executor)))
  ) {
    throw invalidInput("bookingCalendarId is not a calendar of the resource's manager", [
      { path: 'bookingCalendarId', message: 'must be a calendar owned by the managedById member' },
    ]);
  }
}
