import type { Db, Executor } from '../../db/database.js';
import type { Actor } from '../../lib/actor.js';
import { conflict, notFound, validationFailed } from '../../lib/errors.js';
import type { OrganisationsService } from '../organisations/service.js';
import type { ResourceType } from '../resource-types/schemas.js';
import type { ResourceTypesService, StoredResourceType } from '../resource-types/service.js';
import { type ResolvedSchedule, resolveSchedule } from '../scheduling/resolve.js';
import type { SchedulePolicy } from '../scheduling/schemas.js';
import {
  checkFit,
  continuousWindows,
  type Interval,
  type Lane,
  type Rules,
  type Slot,
  shiftAvailability,
  type Window,
  widen,
} from './engine.js';
import { type CatalogueRow, createAvailabilityRepo } from './repo.js';
import type { RangeQuery, ResourceAvailability, TypeAvailability } from './schemas.js';

/** What availability needs of an organisation: its zone and scheduling defaults. */
export interface OrganisationSchedule {
  organisationId: number;
  timezone: string;
  schedulePolicy: SchedulePolicy | null;
}

/** A bookable resource as booking sees it: its effective schedule and the lanes that hold time. */
export interface Bookable {
  resourceId: number;
  schedule: ResolvedSchedule;
  laneIds: number[];
}

const iso = (ms: number) => new Date(ms).toISOString();
const rulesOf = (type: ResourceType): Rules => ({
  minBookingMs: type.minBookingDuration * 60_000,
  bufferMs: type.bufferTime * 60_000,
});
/** How far before a range a reservation of this type can start and still reach into it. */
const lookbackOf = (type: StoredResourceType) => type.longestReservationMinutes * 60_000;
/** The mode the type's pool is counted in: the organisation's, or the type's own. */
const poolModeOf = (type: ResourceType, org: OrganisationSchedule) =>
  resolveSchedule({ organisation: org.schedulePolicy, resourceType: type.schedulePolicy, resource: null })
    .availabilityMode;
const windowsOut = (windows: Window[]) =>
  windows.map((w) => ({
    start: iso(w.start),
    end: iso(w.end),
    freeLanes: w.freeLanes,
    totalLanes: w.totalLanes,
  }));
const slotsOut = (slots: Slot[]) =>
  slots.map((s) => ({
    start: iso(s.start),
    end: iso(s.end),
    available: s.available,
    freeLanes: s.freeLanes,
    totalLanes: s.totalLanes,
  }));

/**
 * Groups catalogue rows into bookables: a parent with lanes schedules its lanes
 * (the parent itself holds no time), a resource without lanes schedules itself.
 * Inactive resources, and lanes of inactive parents, are left out.
 */
export function bookablesOf(
  rows: CatalogueRow[],
  type: ResourceType,
  organisation: SchedulePolicy | null,
): Bookable[] {
  const lanesByParent = new Map<number, number[]>();
  for (const row of rows) {
    if (row.parentResourceId !== null && row.isActive) {
      const lanes = lanesByParent.get(row.parentResourceId) ?? [];
      lanes.push(row.id);
      lanesByParent.set(row.parentResourceId, lanes);
    }
  }
  return rows
    .filter((row) => row.parentResourceId === null && Boolean(row.isActive))
    .map((row) => ({
      resourceId: row.id,
      schedule: resolveSchedule({
        organisation,
        resourceType: type.schedulePolicy,
        resource: row.schedulePolicy ? (JSON.parse(row.schedulePolicy) as SchedulePolicy) : null,
      }),
      laneIds: lanesByParent.get(row.id) ?? [row.id],
    }));
}

function lanesOf(bookables: Bookable[], busy: Map<number, Interval[]>): Lane[] {
  return bookables.flatMap((b) =>
    b.laneIds.map((id) => ({ resourceId: id, schedule: b.schedule, busy: busy.get(id) ?? [] })),
  );
}

function compute(lanes: Lane[], mode: 'continuous' | 'shifts', zone: string, range: Interval, rules: Rules) {
  return mode === 'shifts'
    ? { slots: slotsOut(shiftAvailability(lanes, zone, range)) }
    : { windows: windowsOut(continuousWindows(lanes, zone, range, rules)) };
}

export type AvailabilityService = ReturnType<typeof createAvailabilityService>;

export function createAvailabilityService({
  db,
  organisations,
  resourceTypes,
}: {
  db: Db;
  organisations: OrganisationsService;
  resourceTypes: ResourceTypesService;
}) {
  const repo = createAvailabilityRepo(db.kysely);

  async function typeOrThrow(executor: Executor, organisationId: number, id: number) {
    const type = await resourceTypes.findStored(executor, organisationId, id);
    if (!type) throw notFound('Resource type');
    return type;
  }

  /** Availability of one resource (its lanes pooled), or of one lane. */
  async function forResource(org: OrganisationSchedule, resourceId: number, query: RangeQuery) {
    const range = { start: Date.parse(query.from), end: Date.parse(query.to) };
    const family = await repo.family(org.organisationId, resourceId);
    const target = family.find((row) => row.id === resourceId);
    if (!target) throw notFound('Resource');
    const parent = family.find((row) => row.parentResourceId === null)!;
    const type = await resourceTypes.findStored(db.kysely, org.organisationId, parent.resourceTypeId);
    if (!type) throw notFound('Resource');
    let [bookable] = bookablesOf(family, type, org.schedulePolicy);
    if (bookable && target.parentResourceId !== null) {
      bookable = bookable.laneIds.includes(target.id) ? { ...bookable, laneIds: [target.id] } : undefined;
    }
    const rules = rulesOf(type);
    const lanes =
      bookable && type.isActive
        ? lanesOf([bookable], await repo.busy(bookable.laneIds, widen(range, rules), lookbackOf(type)))
        : [];
    const schedule =
      bookable?.schedule ??
      resolveSchedule({
        organisation: org.schedulePolicy,
        resourceType: type.schedulePolicy,
        resource: null,
      });
    return {
      resourceId,
      timezone: org.timezone,
      availabilityMode: schedule.availabilityMode,
      from: iso(range.start),
      to: iso(range.end),
      ...compute(lanes, schedule.availabilityMode, org.timezone, range, rules),
    } satisfies ResourceAvailability;
  }

  /** Availability of a type by its booking mode: pooled over every lane, per resource, or both. */
  async function forType(org: OrganisationSchedule, resourceTypeId: number, query: RangeQuery) {
    const range = { start: Date.parse(query.from), end: Date.parse(query.to) };
    const type = await typeOrThrow(db.kysely, org.organisationId, resourceTypeId);
    const bookables = type.isActive
      ? bookablesOf(await repo.ofType(org.organisationId, resourceTypeId), type, org.schedulePolicy)
      : [];
    const rules = rulesOf(type);
    const busy = await repo.busy(
      bookables.flatMap((b) => b.laneIds),
      widen(range, rules),
      lookbackOf(type),
    );
    const typeMode = poolModeOf(type, org);
    const answer: TypeAvailability = {
      resourceTypeId,
      bookingMode: type.bookingMode,
      timezone: org.timezone,
      from: iso(range.start),
      to: iso(range.end),
    };
    if (type.bookingMode !== 'SINGLE_RESOURCE') {
      // A resource that overrides the type's mode cannot be counted in the same pool.
      const pooled = bookables.filter((b) => b.schedule.availabilityMode === typeMode);
      answer.pool = {
        availabilityMode: typeMode,
        ...compute(lanesOf(pooled, busy), typeMode, org.timezone, range, rules),
      };
    }
    if (type.bookingMode !== 'POOL') {
      answer.resources = bookables.map((b) => ({
        resourceId: b.resourceId,
        availabilityMode: b.schedule.availabilityMode,
        ...compute(lanesOf([b], busy), b.schedule.availabilityMode, org.timezone, range, rules),
      }));
    }
    return answer;
  }

  return {
    forResource,
    forType,

    async resourceAvailability(actor: Actor, resourceId: number, query: RangeQuery) {
      const tenant = await organisations.requireTenant(actor, { can: 'readCatalogue' });
      return forResource(tenant, resourceId, query);
    },

    async typeAvailability(actor: Actor, resourceTypeId: number, query: RangeQuery) {
      const tenant = await organisations.requireTenant(actor, { can: 'readCatalogue' });
      return forType(tenant, resourceTypeId, query);
    },

    /**
     * Inside a booking transaction: locks the type, then answers the first lane
     * where `request` fits exactly (409 SLOT_UNAVAILABLE when none does). With a
     * resourceId only that resource's lanes are candidates; without, the pool,
     * counted exactly as pool availability counts it.
     */
    async allocateLane(
      executor: Executor,
      org: OrganisationSchedule,
      type: StoredResourceType,
      target: { resourceId?: number },
      request: Interval,
    ): Promise<number> {
      // Under the lock: a booking that committed while we waited may have raised the longest length.
      const { longestReservationMinutes } = await resourceTypes.lockForBooking(executor, type.id);
      const txRepo = createAvailabilityRepo(executor);
      const rows = await txRepo.ofType(org.organisationId, type.id);
      let candidates = bookablesOf(rows, type, org.schedulePolicy);
      if (target.resourceId === undefined) {
        const poolMode = poolModeOf(type, org);
        candidates = candidates.filter((b) => b.schedule.availabilityMode === poolMode);
      } else {
        candidates = candidates.filter((b) => b.resourceId === target.resourceId);
        if (candidates.length === 0) {
          const exists = rows.some((row) => row.id === target.resourceId && row.parentResourceId === null);
          if (!exists) {
            throw validationFailed('resourceId is not a bookable resource of this resource type', [
              {
                path: 'body.resourceId',
                message: 'no such active resource (capacity lanes are booked through their parent)',
              },
            ]);
          }
        }
      }
      const rules = rulesOf(type);
      const busy = await txRepo.busy(
        candidates.flatMap((b) => b.laneIds),
        widen(request, rules),
        longestReservationMinutes * 60_000,
      );
      for (const lane of lanesOf(candidates, busy)) {
        if (checkFit(lane, org.timezone, request, rules) === null) return lane.resourceId;
      }
      throw conflict('SLOT_UNAVAILABLE', 'The requested time does not fit the availability of this resource');
    },
  };
}
