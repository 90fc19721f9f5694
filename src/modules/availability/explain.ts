import { notFound } from '../../lib/errors.js';
import { reservationTimes } from '../reservations/ports.js';
import type { StoredResourceType } from '../resource-types/service.js';
import {
  type Bookable,
  bookableOfTarget,
  bookablesOf,
  candidatesOf,
  lookbackOf,
  rulesOf,
} from './bookables.js';
import { bookableSpan } from './booking-window.js';
import type { IgnoredTime } from './busy-time.js';
import type { AvailabilityContext, OrganisationSchedule } from './context.js';
import { withDailyCaps } from './daily-caps.js';
import type { Interval } from './engine.js';
import { type FoundReason, reasonsFor } from './explain-reasons.js';
import { type createExplainReads, type LaneTaken, type TakenTime, takenTimes } from './explain-repo.js';
import { typeOrThrow } from './range-availability.js';
import { type CatalogueRow, managerBusy } from './repo.js';
import type { Explanation, Reason } from './schemas.js';
import { NO_SPANS, type Spans } from './spans.js';

/** The reads of `explainResource` (explain-repo.ts), made once per service. */
export type ExplainReads = ReturnType<typeof createExplainReads>;

/**
 * Why a time is or is not bookable (DECISIONS.md "Teams"): the explain routes and tool, and
 * the reasons of every SLOT_UNAVAILABLE. Reads what availability reads (the catalogue, the
 * reservations keeping their time, the managers' busy time; the reservations one by one,
 * to tell a hold from a booking) and asks the engine's checks (explain-reasons.ts).
 */

/** A resource an explanation answers for, and what the engine schedules of it (none: inactive). */
interface Subject {
  resourceId: number;
  bookable: Bookable | undefined;
}

/** What the reasons of `subjects` are found over: their type and rows, and what takes their lanes' time, read at `nowMs`. */
interface Read {
  type: StoredResourceType;
  rows: readonly CatalogueRow[];
  subjects: Subject[];
  taken: ReadonlyMap<number, LaneTaken>;
  nowMs: number;
}

/** The explanation for one resource (its lanes pooled), or for one lane: one read of its family, type and reservations. */
export async function explainResource(
  context: AvailabilityContext,
  reads: ExplainReads,
  org: OrganisationSchedule,
  resourceId: number,
  request: Interval,
): Promise<Explanation> {
  const nowMs = Date.now();
  const read = await reads.family(org.organisationId, resourceId, request, nowMs);
  const target = read?.family.find((row) => row.id === resourceId);
  if (!read || !target) throw notFound('Resource');
  const { type, family, taken } = read;
  const bookable = bookableOfTarget(family, type, org.schedulePolicy, target);
  return explained(
    await explainSubjects(
      context,
      org,
      { type, rows: family, subjects: [{ resourceId, bookable }], taken, nowMs },
      request,
    ),
  );
}

/** The explanation for every resource of a type (its lanes pooled per resource). */
export async function explainType(
  context: AvailabilityContext,
  org: OrganisationSchedule,
  resourceTypeId: number,
  request: Interval,
): Promise<Explanation> {
  const [type, rows] = await Promise.all([
    typeOrThrow(context, org.organisationId, resourceTypeId),
    context.repo.ofType(org.organisationId, resourceTypeId),
  ]);
  const bookables = bookablesOf(rows, type, org.schedulePolicy);
  const subjects = rows
    .filter((row) => row.parentResourceId === null)
    .map((row) => ({ resourceId: row.id, bookable: bookables.find((b) => b.resourceId === row.id) }));
  return explained(await readAndExplain(context, org, type, rows, subjects, request));
}

/**
 * Why a refused booking of `request` does not fit: on the resource asked for, or across the
 * pool a booking without one may take (each reason once). `ignoreReservationId`: a
 * reservation being moved, which blocks nothing.
 */
export async function refusalReasons(
  context: AvailabilityContext,
  org: OrganisationSchedule,
  target: { resourceTypeId: number; resourceId?: number | undefined },
  request: Interval,
  ignoreReservationId?: number,
): Promise<Reason[]> {
  const [type, rows] = await Promise.all([
    context.resourceTypes.findStored(context.db.kysely, org.organisationId, target.resourceTypeId),
    context.repo.ofType(org.organisationId, target.resourceTypeId),
  ]);
  if (!type) return [];
  const subjects: Subject[] =
    target.resourceId !== undefined
      ? [{ resourceId: target.resourceId, bookable: candidatesOf(rows, type, org, target)[0] }]
      : candidatesOf(rows, type, org, {}).map((b) => ({ resourceId: b.resourceId, bookable: b }));
  if (subjects.length === 0) return [isoReason(inactive('No resource of this type is active'), request)];
  const answers = await readAndExplain(context, org, type, rows, subjects, request, ignoreReservationId);
  const once = new Map(answers.flatMap((a) => a.reasons).map((r) => [`${r.code}|${r.from}|${r.to}`, r]));
  return [...once.values()];
}

const explained = (resources: Explanation['resources']): Explanation => ({
  bookable: resources.some((r) => r.bookable),
  resources,
});

const inactive = (message: string): FoundReason => ({ code: 'INACTIVE', message });

/** A found reason as answers write it: instants as ISO text, the whole request where it names no part. */
const isoReason = (reason: FoundReason, request: Interval): Reason => ({
  code: reason.code,
  message: reason.message,
  from: new Date(reason.from ?? request.start).toISOString(),
  to: new Date(reason.to ?? request.end).toISOString(),
});

/** What an explanation's rules are at `nowMs`, which lanes it judges, and the time around `request` they read. */
function scopeOf(type: StoredResourceType, subjects: readonly Subject[], request: Interval, nowMs: number) {
  const rules = rulesOf(type, bookableSpan(type.bookingRules, nowMs));
  const bookables = type.isActive ? subjects.flatMap((s) => (s.bookable ? [s.bookable] : [])) : [];
  const around = { start: request.start - rules.bufferMs, end: request.end + rules.bufferMs };
  return { rules, bookables, around };
}

/**
 * `explainSubjects` over the reservations read one by one (a reservation being moved,
 * `ignoreReservationId`, taking no time), the read of a type's or a refusal's explanation.
 */
async function readAndExplain(
  context: AvailabilityContext,
  org: OrganisationSchedule,
  type: StoredResourceType,
  rows: readonly CatalogueRow[],
  subjects: Subject[],
  request: Interval,
  ignoreReservationId?: number,
): Promise<Explanation['resources']> {
  const nowMs = Date.now();
  const { bookables, around } = scopeOf(type, subjects, request, nowMs);
  const laneIds = bookables.flatMap((b) => b.laneIds);
  const [taken, ignored] = await Promise.all([
    takenTimes(context.db.kysely, laneIds, around, lookbackOf(type), nowMs),
    ignoredTime(context, ignoreReservationId),
  ]);
  const kept = taken.filter((t) => t.id !== ignoreReservationId);
  const byLane = new Map(laneIds.map((laneId) => [laneId, takenOn(kept, laneId)]));
  return explainSubjects(context, org, { type, rows, subjects, taken: byLane, nowMs }, request, ignored);
}

/** Each subject's answer: the engine's reasons over what takes its lanes' time around `request`. */
async function explainSubjects(
  context: AvailabilityContext,
  org: OrganisationSchedule,
  { type, rows, subjects, taken, nowMs }: Read,
  request: Interval,
  ignored?: IgnoredTime,
): Promise<Explanation['resources']> {
  const { rules, bookables, around } = scopeOf(type, subjects, request, nowMs);
  const [calendars, capped] = await Promise.all([
    calendarsOf(context, rows, bookables, around),
    withDailyCaps(
      context.db.kysely,
      rows,
      bookables,
      new Map(),
      { ...around, timezone: org.timezone, nowMs },
      ignored,
    ),
  ]);
  return subjects.map(({ resourceId, bookable }) => {
    const found = !type.isActive
      ? [inactive('The resource type is not active')]
      : !bookable
        ? [inactive('The resource is not active')]
        : reasonsFor(
            {
              schedule: bookable.schedule,
              lanes: bookable.laneIds.map((laneId) => ({
                ...(taken.get(laneId) ?? NOTHING_TAKEN),
                calendar: calendars.get(bookable.resourceId) ?? NO_SPANS,
                capped: capped.get(laneId) ?? NO_SPANS,
              })),
            },
            org.timezone,
            request,
            rules,
          );
    return { resourceId, bookable: found.length === 0, reasons: found.map((r) => isoReason(r, request)) };
  });
}

const NOTHING_TAKEN: LaneTaken = { booked: NO_SPANS, held: NO_SPANS };

/** What takes one lane's time, by kind, in the order `taken` has it. */
function takenOn(taken: readonly TakenTime[], laneId: number): LaneTaken {
  const spans = (held: boolean) =>
    new Float64Array(
      taken.filter((t) => t.laneId === laneId && t.held === held).flatMap((t) => [t.start, t.end]),
    );
  return { booked: spans(false), held: spans(true) };
}
/** The lane and time of a reservation being moved, which counts against no daily cap (as a reschedule's own check). */
async function ignoredTime(
  { db }: AvailabilityContext,
  reservationId: number | undefined,
): Promise<IgnoredTime | undefined> {
  if (reservationId === undefined) return undefined;
  const row = await reservationTimes(db.kysely)
    .where('reservations.id', '=', reservationId)
    .executeTakeFirst();
  if (!row?.resourceId) return undefined;
  return { laneId: row.resourceId, start: Date.parse(row.startTime), end: Date.parse(row.endTime) };
}

/** The busy time of the managers of `bookables` that block on it, by resource (as availability adds it). */
async function calendarsOf(
  { db }: AvailabilityContext,
  rows: readonly CatalogueRow[],
  bookables: readonly Bookable[],
  range: Interval,
): Promise<Map<number, Spans>> {
  const managers = new Map<number, number>();
  for (const bookable of bookables) {
    const row = rows.find((r) => r.id === bookable.resourceId);
    if (row?.blockOnManagerCalendars && row.managedById !== null) managers.set(row.id, row.managedById);
  }
  const byResource = new Map<number, Spans>();
  if (managers.size === 0) return byResource;
  const byManager = await managerBusy(db.kysely, db.dialect, [...managers.values()], range);
  for (const [resourceId, managerId] of managers) {
    const spans = byManager.get(managerId);
    if (spans) byResource.set(resourceId, spans);
  }
  return byResource;
}
