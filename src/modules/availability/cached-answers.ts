import { AnswerCache } from '../../lib/answer-cache.js';
import { deepFreeze } from '../../lib/deep-freeze.js';
import type { AvailabilityContext, OrganisationSchedule } from './context.js';
import { computeForResource, computeForType } from './range-availability.js';
import { createVersionReads } from './repo.js';
import type { RangeQuery, ResourceAvailability, TypeAvailability } from './schemas.js';

/** Windows and slots of one answer: the measure of its memory. */
const entriesOf = (part: { windows?: unknown[]; slots?: unknown[] } | undefined) =>
  (part?.windows?.length ?? 0) + (part?.slots?.length ?? 0);
const weightOf = (answer: TypeAvailability | ResourceAvailability) =>
  'resourceTypeId' in answer
    ? entriesOf(answer.pool) + (answer.resources ?? []).reduce((sum, r) => sum + entriesOf(r), 0)
    : entriesOf(answer);

/**
 * Windows and slots the answer cache holds at most (about 100 bytes each in memory).
 * A month of a busy 50-lane type is a few thousand.
 */
const CACHE_MAX_ENTRIES = 50_000;

/** An answer and the instant (epoch ms) until which it holds: the earliest expiry of a hold it shows. */
export interface Bounded<T> {
  answer: T;
  validUntil: number;
}
/** Frozen, so its JSON is written once while it is cached. */
const frozen = <T extends object>(entry: Bounded<T>): Bounded<T> => ({
  answer: deepFreeze(entry.answer),
  validUntil: entry.validUntil,
});

/** Availability answers shared between requests, each labelled with the version of its type. */
export function createCachedAnswers(context: AvailabilityContext) {
  const versions = createVersionReads(context.db.kysely);
  // Answers are shared between requests: callers never mutate them. An answer showing a
  // hold is true only until the hold's expiry, which raises no version: the entry ends then.
  const cache = new AnswerCache<Bounded<TypeAvailability | ResourceAvailability>>(
    CACHE_MAX_ENTRIES,
    (entry) => weightOf(entry.answer),
    (entry) => entry.validUntil > Date.now(),
  );
  /**
   * The key of an answer: everything it is computed from. The organisation's zone and
   * schedule are in it as the caller read them (possibly before the version), the
   * database's state as the type's version, read before computing: an answer may be
   * newer than its label, never older.
   */
  const keyOf = (org: OrganisationSchedule, target: string, version: string, query: RangeQuery) =>
    `${org.organisationId}|${target}|${version}|${Date.parse(query.from)}|${Date.parse(query.to)}|${org.timezone}|${JSON.stringify(org.schedulePolicy)}`;

  /** `computeForResource`, cached (frozen, so its JSON is written once) under the version of the resource's type. */
  async function forResource(
    org: OrganisationSchedule,
    resourceId: number,
    query: RangeQuery,
  ): Promise<ResourceAvailability> {
    const label = await versions.ofResource(org.organisationId, resourceId);
    // No such resource (in this organisation): the computation says so, and nothing is stored.
    if (!label) return (await computeForResource(context, org, resourceId, query)).answer;
    const key = keyOf(org, `r${resourceId}|t${label.resourceTypeId}`, label.version, query);
    const cached = await cache.get(key, async () =>
      frozen(await computeForResource(context, org, resourceId, query)),
    );
    return cached.answer as ResourceAvailability;
  }

  /** `computeForType`, cached (frozen) under the type's version. */
  async function forType(
    org: OrganisationSchedule,
    resourceTypeId: number,
    query: RangeQuery,
  ): Promise<TypeAvailability> {
    const version = await versions.ofType(resourceTypeId);
    const key = keyOf(org, `t${resourceTypeId}`, version, query);
    const cached = await cache.get(key, async () =>
      frozen(await computeForType(context, org, resourceTypeId, query)),
    );
    return cached.answer as TypeAvailability;
  }

  return { forResource, forType };
}
