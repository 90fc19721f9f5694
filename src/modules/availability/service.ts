import type { Executor } from '../../db/database.js';
import type { Actor } from '../../lib/actor.js';
import { asDomainError, invalidField } from '../../lib/errors.js';
import type { StoredResourceType } from '../resource-types/service.js';
import { alternatives } from './alternatives.js';
import type { IgnoredTime } from './busy-time.js';
import { createCachedAnswers } from './cached-answers.js';
import { type CommonWindows, commonFreeTimes, commonWindowsAnswer } from './common-windows.js';
import type { AvailabilityContext, AvailabilityDeps, OrganisationSchedule } from './context.js';
import type { Interval } from './engine.js';
import { explainResource, explainType, refusalReasons } from './explain.js';
import { createLaneOffers, type LaneOffer } from './lane-offers.js';
import { type BookingRead, createAvailabilityRepo, createExplainReads } from './repo.js';
import type {
  CommonWindowsQuery,
  ExplainQuery,
  Explanation,
  RangeQuery,
  Reason,
  ResourceAvailability,
  TypeAvailability,
} from './schemas.js';

export { type Bookable, bookablesOf } from './bookables.js';
export type { IgnoredTime } from './busy-time.js';
export type { AvailabilityDeps, OrganisationSchedule } from './context.js';
export type { LaneOffer } from './lane-offers.js';

/**
 * Availability: what a range offers (range-availability.ts, kept by cached-answers.ts), the
 * lanes a booking may take (lane-offers.ts) and the times a refused one offers instead
 * (alternatives.ts), over the engine (engine.ts). This file wires them and is the module's surface.
 */
export interface AvailabilityService {
  /**
   * Availability of one resource (its lanes pooled), or of one lane, over `query`'s range for
   * `org` as the caller read it. Answers are cached (frozen, so their JSON is written once)
   * under the version of the resource's type, and shared between callers: never mutate one.
   */
  forResource(
    org: OrganisationSchedule,
    resourceId: number,
    query: RangeQuery,
  ): Promise<ResourceAvailability>;

  /**
   * Availability of a type by its booking mode (pooled over every lane, per resource, or
   * both) over `query`'s range; cached and shared as `forResource`'s, under the type's version.
   */
  forType(org: OrganisationSchedule, resourceTypeId: number, query: RangeQuery): Promise<TypeAvailability>;

  /**
   * The times every one of `resourceIds` (2-5 of the organisation) is free over `query`'s
   * range: where a collective booking fits (400 naming resourceIds for one the organisation
   * does not have).
   */
  commonFreeTimes(
    org: OrganisationSchedule,
    resourceIds: readonly number[],
    query: RangeQuery,
  ): Promise<Interval[]>;

  /** `commonFreeTimes` in the actor's organisation, for members who may read its catalogue. */
  commonAvailability(actor: Actor, query: CommonWindowsQuery): Promise<CommonWindows>;

  /** `forResource` in the actor's organisation, for members who may read its catalogue. */
  resourceAvailability(actor: Actor, resourceId: number, query: RangeQuery): Promise<ResourceAvailability>;

  /** `forType` in the actor's organisation, for members who may read its catalogue. */
  typeAvailability(actor: Actor, resourceTypeId: number, query: RangeQuery): Promise<TypeAvailability>;

  /**
   * Why the time of `query` is or is not bookable on a resource (its lanes pooled) or lane of
   * the actor's organisation, for staff who may manage its schedules (explain.ts).
   */
  resourceExplanation(actor: Actor, resourceId: number, query: ExplainQuery): Promise<Explanation>;

  /** `resourceExplanation` for every resource of a type. */
  typeExplanation(actor: Actor, resourceTypeId: number, query: ExplainQuery): Promise<Explanation>;

  /**
   * Why a refused booking of `request` does not fit (the reasons of its SLOT_UNAVAILABLE): on
   * `target.resourceId`, or across the type's pool without one, each reason once.
   * `ignoreReservationId`: a reservation being moved, which blocks nothing.
   */
  refusalReasons(
    org: OrganisationSchedule,
    target: { resourceTypeId: number; resourceId?: number | undefined },
    request: Interval,
    ignoreReservationId?: number,
  ): Promise<Reason[]>;

  /**
   * What a booking of the type `resourceTypeId` reads, in one statement through `executor`:
   * the type, its lanes, and what is taken on them near `request` (undefined when the
   * organisation has no such type). Every booking reads its type here, so the type it
   * judges by is never older than the reservations it sees.
   */
  readLanes(
    executor: Executor,
    org: OrganisationSchedule,
    resourceTypeId: number,
    request: Interval,
  ): Promise<BookingRead | undefined>;

  /**
   * The lanes of `read` where `request` fits exactly, in the order a booking tries them
   * (empty when none does). With a resourceId only that resource's lanes are candidates;
   * without, the pool, counted exactly as pool availability counts it. Each offer carries
   * the lane's `updatedAt` as read: the booking's insert holds it against the lane's row,
   * so a lane changed since (capacity, activity, schedule, type) is refused and the
   * booking reads again. `read` (from `readLanes` for this request) is used up: its busy
   * time is changed in place.
   */
  offerLanes(
    executor: Executor,
    org: OrganisationSchedule,
    read: BookingRead,
    target: { resourceId?: number },
    request: Interval,
    ignore?: IgnoredTime,
  ): Promise<LaneOffer[]>;

  /**
   * Bookable times like `request` (its length, on the same resource, or the pool without
   * a resourceId) nearest to its start, before or after, within 14 days: at most 5, what a
   * refused booking offers instead. The type's booking rules bound them as they bound
   * availability, none starts before now, `ignore` (a reservation being moved) blocks
   * nothing, and `accept` may refuse more starts (a customer's full days). With `stableForMs`
   * the rules bound them from now until that much later (the notice moves on with the
   * clock), so each stays bookable that long. One read of the
   * catalogue and one of the reservations within a day of the request, and only when that
   * does not settle the answer, one over the whole range.
   */
  alternatives(
    org: OrganisationSchedule,
    type: StoredResourceType,
    target: { resourceId?: number | undefined },
    request: Interval,
    options?: {
      ignore?: IgnoredTime | undefined;
      accept?: ((start: number) => boolean) | undefined;
      stableForMs?: number;
    },
  ): Promise<Interval[]>;
}

export function createAvailabilityService({
  db,
  organisations,
  resourceTypes,
}: AvailabilityDeps): AvailabilityService {
  const context: AvailabilityContext = { db, resourceTypes, repo: createAvailabilityRepo(db.kysely) };
  const { forResource, forType } = createCachedAnswers(context);
  const explainReads = createExplainReads(db.kysely, db.dialect);
  const { readLanes, offerLanes } = createLaneOffers(context);
  const commonTimes: AvailabilityService['commonFreeTimes'] = (org, resourceIds, query) =>
    commonFreeTimes(forResource, org, resourceIds, query).catch((error: unknown) => {
      if (asDomainError(error)?.code !== 'NOT_FOUND') throw error;
      throw invalidField('resourceIds', 'lists a resource this organisation does not have');
    });
  return {
    forResource,
    forType,
    commonFreeTimes: commonTimes,

    async commonAvailability(actor, query) {
      const tenant = await organisations.requireTenant(actor, { can: 'readCatalogue' });
      return commonWindowsAnswer(query, await commonTimes(tenant, query.resourceIds, query));
    },

    async resourceAvailability(actor, resourceId, query) {
      const tenant = await organisations.requireTenant(actor, { can: 'readCatalogue' });
      return forResource(tenant, resourceId, query);
    },

    async typeAvailability(actor, resourceTypeId, query) {
      const tenant = await organisations.requireTenant(actor, { can: 'readCatalogue' });
      return forType(tenant, resourceTypeId, query);
    },

    async resourceExplanation(actor, resourceId, query) {
      const tenant = await organisations.requireTenant(actor, { can: 'writeCatalogue' });
      return explainResource(context, explainReads, tenant, resourceId, requestOf(query));
    },

    async typeExplanation(actor, resourceTypeId, query) {
      const tenant = await organisations.requireTenant(actor, { can: 'writeCatalogue' });
      return explainType(context, tenant, resourceTypeId, requestOf(query));
    },

    refusalReasons: (org, target, request, ignoreReservationId) =>
      refusalReasons(context, org, target, request, ignoreReservationId),
    readLanes,
    offerLanes,
    alternatives: (org, type, target, request, options) =>
      alternatives(context, org, type, target, request, options),
  };
}

const requestOf = (query: ExplainQuery): Interval => ({
  start: Date.parse(query.startTime),
  end: Date.parse(query.endTime),
});
