import { notFound } from '../../lib/errors.js';
import { resolveSchedule } from '../../scheduling/resolve.js';
import { iso, windowsOrSlots } from './answer-text.js';
import {
  type Bookable,
  bookableOfTarget,
  bookablesOf,
  changesAt,
  lanesOf,
  poolModeOf,
  rulesOf,
} from './bookables.js';
import { bookableSpan } from './booking-window.js';
import { busyOfBookables } from './busy-time.js';
import type { Bounded } from './cached-answers.js';
import type { AvailabilityContext, OrganisationSchedule } from './context.js';
import type { RangeQuery, ResourceAvailability, TypeAvailability } from './schemas.js';
import { widen } from './windows.js';

/** Availability over a range, computed (cached-answers.ts keeps the answers): of one resource or lane, and of a type. */

/** Availability of one resource (its lanes pooled), or of one lane. */
export async function computeForResource(
  context: AvailabilityContext,
  org: OrganisationSchedule,
  resourceId: number,
  query: RangeQuery,
): Promise<Bounded<ResourceAvailability>> {
  const range = { start: Date.parse(query.from), end: Date.parse(query.to) };
  const nowMs = Date.now();
  const { family, target, type } = await resourceWithType(context, org, resourceId);
  const bookable = bookableOfTarget(family, type, org.schedulePolicy, target);
  const span = bookableSpan(type.bookingRules, nowMs);
  const rules = rulesOf(type, span);
  const widened = widen(range, rules);
  const read =
    bookable && type.isActive
      ? await busyOfBookables(context, family, [bookable], widened, type, nowMs, org.timezone)
      : undefined;
  const lanes = bookable && read ? lanesOf([bookable], read.busy) : [];
  const schedule =
    bookable?.schedule ??
    resolveSchedule({
      organisation: org.schedulePolicy,
      resourceType: type.schedulePolicy,
      resource: null,
    });
  const answer = {
    resourceId,
    timezone: org.timezone,
    availabilityMode: schedule.availabilityMode,
    from: iso(range.start),
    to: iso(range.end),
    ...windowsOrSlots(lanes, schedule.availabilityMode, org.timezone, range, rules),
  } satisfies ResourceAvailability;
  return { answer, validUntil: Math.min(read?.keptUntil ?? Number.POSITIVE_INFINITY, changesAt(span)) };
}

/** A resource or lane of the organisation, its family (parent first) and its type; 404 when there is none. */
export async function resourceWithType(
  { db, repo, resourceTypes }: AvailabilityContext,
  org: OrganisationSchedule,
  resourceId: number,
) {
  const family = await repo.family(org.organisationId, resourceId);
  const target = family.find((row) => row.id === resourceId);
  if (!target) throw notFound('Resource');
  const parent = family.find((row) => row.parentResourceId === null)!;
  const type = await resourceTypes.findStored(db.kysely, org.organisationId, parent.resourceTypeId);
  if (!type) throw notFound('Resource');
  return { family, target, type };
}

/** Availability of a type by its booking mode: pooled over every lane, per resource, or both. */
export async function computeForType(
  context: AvailabilityContext,
  org: OrganisationSchedule,
  resourceTypeId: number,
  query: RangeQuery,
): Promise<Bounded<TypeAvailability>> {
  const range = { start: Date.parse(query.from), end: Date.parse(query.to) };
  const nowMs = Date.now();
  const type = await typeOrThrow(context, org.organisationId, resourceTypeId);
  const rows = type.isActive ? await context.repo.ofType(org.organisationId, resourceTypeId) : [];
  const bookables = bookablesOf(rows, type, org.schedulePolicy);
  const span = bookableSpan(type.bookingRules, nowMs);
  const rules = rulesOf(type, span);
  const widened = widen(range, rules);
  const { busy, keptUntil } = await busyOfBookables(
    context,
    rows,
    bookables,
    widened,
    type,
    nowMs,
    org.timezone,
  );
  // The pool of a type with one resource is that resource's answer: computed once.
  const computed = new Map<string, ReturnType<typeof windowsOrSlots>>();
  const answerOf = (group: Bookable[], mode: 'continuous' | 'shifts') => {
    const key = `${mode}|${group.map((b) => b.resourceId).join(',')}`;
    let result = computed.get(key);
    if (!result) {
      result = windowsOrSlots(lanesOf(group, busy), mode, org.timezone, range, rules);
      computed.set(key, result);
    }
    return result;
  };
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
      ...answerOf(pooled, typeMode),
    };
  }
  if (type.bookingMode !== 'POOL') {
    answer.resources = bookables.map((b) => ({
      resourceId: b.resourceId,
      availabilityMode: b.schedule.availabilityMode,
      ...answerOf([b], b.schedule.availabilityMode),
    }));
  }
  return { answer, validUntil: Math.min(keptUntil, changesAt(span)) };
}

export async function typeOrThrow(
  { db, resourceTypes }: AvailabilityContext,
  organisationId: number,
  id: number,
) {
  const type = await resourceTypes.findStored(db.kysely, organisationId, id);
  if (!type) throw notFound('Resource type');
  return type;
}
