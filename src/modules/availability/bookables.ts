import { type ResolvedSchedule, resolveSchedule } from '../../scheduling/resolve.js';
import type { SchedulePolicy } from '../../scheduling/schemas.js';
import type { ResourceType } from '../resource-types/schemas.js';
import type { StoredResourceType } from '../resource-types/service.js';
import type { OrganisationSchedule } from './context.js';
import type { BookableSpan, Lane, Rules } from './engine.js';
import type { CatalogueRow } from './repo.js';
import { disjointSpans, NO_SPANS, type Spans } from './spans.js';

/**
 * Which resources and lanes an answer or a booking counts, under which schedule and rules:
 * the catalogue's rows resolved against the type's and the organisation's policies.
 */

/** A bookable resource as booking sees it: its effective schedule and the lanes that hold time. */
export interface Bookable {
  resourceId: number;
  schedule: ResolvedSchedule;
  laneIds: number[];
}

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

/**
 * The bookables a booking of `type` may take: with a resourceId only that resource; without,
 * the pool, counted exactly as pool availability counts it (the resources in the type's mode).
 */
export function candidatesOf(
  rows: CatalogueRow[],
  type: ResourceType,
  org: OrganisationSchedule,
  target: { resourceId?: number | undefined },
): Bookable[] {
  const bookables = bookablesOf(rows, type, org.schedulePolicy);
  if (target.resourceId !== undefined) return bookables.filter((b) => b.resourceId === target.resourceId);
  const poolMode = poolModeOf(type, org);
  return bookables.filter((b) => b.schedule.availabilityMode === poolMode);
}

/**
 * The bookable an answer about `targetId` counts: its resource's (lanes pooled), or for a
 * capacity lane that lane alone; undefined when it is inactive (or its parent is).
 */
export function bookableOfTarget(
  family: CatalogueRow[],
  type: ResourceType,
  organisation: SchedulePolicy | null,
  target: CatalogueRow,
): Bookable | undefined {
  const [bookable] = bookablesOf(family, type, organisation);
  if (!bookable || target.parentResourceId === null) return bookable;
  return bookable.laneIds.includes(target.id) ? { ...bookable, laneIds: [target.id] } : undefined;
}

/** The lanes of `bookables` as the engine takes them, each with its busy time. */
export function lanesOf(bookables: Bookable[], busy: Map<number, Spans>): Lane[] {
  return bookables.flatMap((b) =>
    b.laneIds.map((id) => ({
      resourceId: id,
      schedule: b.schedule,
      busy: disjointSpans(busy.get(id) ?? NO_SPANS),
    })),
  );
}

/** The mode the type's pool is counted in: the organisation's, or the type's own. */
export const poolModeOf = (type: ResourceType, org: OrganisationSchedule) =>
  resolveSchedule({ organisation: org.schedulePolicy, resourceType: type.schedulePolicy, resource: null })
    .availabilityMode;

/** The engine's rules of a type; `span` (its booking rules at the answer's instant) bounds what is offered. */
export const rulesOf = (type: ResourceType, span?: BookableSpan): Rules => ({
  minBookingMs: type.minBookingDuration * 60_000,
  bufferMs: type.bufferTime * 60_000,
  ...(span ? { bookable: span } : {}),
});
/**
 * Until when an answer drawn under `span` holds: the span moves with the clock (a minute
 * at a time), and no version is raised when it does.
 */
export const changesAt = (span: BookableSpan | undefined) => span?.changesAt ?? Number.POSITIVE_INFINITY;
/** How far before a range a reservation of this type can start and still reach into it. */
export const lookbackOf = (type: StoredResourceType) => type.longestReservationMinutes * 60_000;
