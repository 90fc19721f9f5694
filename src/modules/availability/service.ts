import type { Db, Dialect, Executor } from '../../db/database.js';
import type { Actor } from '../../lib/actor.js';
import { AnswerCache } from '../../lib/answer-cache.js';
import { deepFreeze } from '../../lib/deep-freeze.js';
import { invalidInput, notFound } from '../../lib/errors.js';
import { type ResolvedSchedule, resolveSchedule } from '../../scheduling/resolve.js';
import type { SchedulePolicy } from '../../scheduling/schemas.js';
import type { OrganisationsService } from '../organisations/service.js';
import type { ResourceType } from '../resource-types/schemas.js';
import type { ResourceTypesService, StoredResourceType } from '../resource-types/service.js';
import {
  type BookableSpan,
  bookableSpan,
  bufferOf,
  continuousWindows,
  disjointSpans,
  type Interval,
  isClear,
  type Lane,
  NO_SPANS,
  nearestFits,
  type Rules,
  type Slot,
  type Spans,
  scheduleAdmits,
  shiftAvailability,
  widen,
} from './engine.js';
import {
  type BookingRead,
  type CatalogueRow,
  createAvailabilityRepo,
  createBookingReads,
  createVersionReads,
  managerBusy,
} from './repo.js';
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

/**
 * The time of the reservation being moved (lane and epoch ms): it does not block its own
 * move. Kept time never overlaps on a lane, so it is the one busy interval there equal to it.
 */
export interface IgnoredTime {
  laneId: number;
  start: number;
  end: number;
}

/** `busy` without the ignored reservation's interval. */
function withoutIgnored(busy: Map<number, Spans>, ignore: IgnoredTime | undefined) {
  const lane = ignore && busy.get(ignore.laneId);
  if (!lane) return busy;
  for (let k = 0; k < lane.length; k += 2) {
    if (lane[k] === ignore.start && lane[k + 1] === ignore.end) {
      const rest = new Float64Array(lane.length - 2);
      rest.set(lane.subarray(0, k));
      rest.set(lane.subarray(k + 2), k);
      busy.set(ignore.laneId, rest);
      break;
    }
  }
  return busy;
}

/**
 * The bookables a booking of `type` may take: with a resourceId only that resource; without,
 * the pool, counted exactly as pool availability counts it (the resources in the type's mode).
 */
function candidatesOf(
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

/** How far from the requested start alternatives are looked for, each way. */
const ALTERNATIVES_HORIZON_MS = 14 * 1440 * 60_000;
/**
 * Alternatives are looked for within a day of the request first: when five are found
 * nearer than that, no time further away can come before them, and the read of the whole
 * horizon (one more) is spared.
 */
const ALTERNATIVES_NEAR_MS = 1440 * 60_000;
/** How many alternatives a refusal offers. */
const ALTERNATIVES_LIMIT = 5;
/** The widest spacing of alternatives inside free time: a request's own length, up to an hour. */
const ALTERNATIVES_MAX_STEP_MS = 60 * 60_000;

/** A lane a booking may take: the lane's row as it was judged, and until when the booking keeps it. */
export interface LaneOffer {
  laneId: number;
  laneUpdatedAt: string;
  /** The booking's end plus the buffer kept after it on this lane (epoch ms). */
  blockedUntil: number;
  /** A hold on the lane has lapsed but its row still says it holds: the booking marks it first. */
  hasLapsedHolds: boolean;
}

const iso = (ms: number) => new Date(ms).toISOString();
/** The engine's rules of a type; `span` (its booking rules at the answer's instant) bounds what is offered. */
const rulesOf = (type: ResourceType, span?: BookableSpan): Rules => ({
  minBookingMs: type.minBookingDuration * 60_000,
  bufferMs: type.bufferTime * 60_000,
  ...(span ? { bookable: span } : {}),
});
/**
 * Until when an answer drawn under `span` holds: the span moves with the clock (a minute
 * at a time), and no version is raised when it does.
 */
const changesAt = (span: BookableSpan | undefined) => span?.changesAt ?? Number.POSITIVE_INFINITY;
/** How far before a range a reservation of this type can start and still reach into it. */
const lookbackOf = (type: StoredResourceType) => type.longestReservationMinutes * 60_000;
/** The mode the type's pool is counted in: the organisation's, or the type's own. */
const poolModeOf = (type: ResourceType, org: OrganisationSchedule) =>
  resolveSchedule({ organisation: org.schedulePolicy, resourceType: type.schedulePolicy, resource: null })
    .availabilityMode;
const DAY_MS = 86_400_000;
/** The last year ISO text writes with four digits: beyond it, and before year 0, through Date. */
const FOUR_DIGIT_YEARS_END = Date.UTC(10_000, 0, 1);
const twoDigits = Array.from({ length: 100 }, (_, n) => String(n).padStart(2, '0'));
const threeDigits = Array.from({ length: 1000 }, (_, n) => String(n).padStart(3, '0'));
/** `YYYY-MM-DDT` of the last day written: an answer's instants come a few to a day. */
let lastDay = Number.NaN;
let lastDayText = '';
/**
 * `new Date(ms).toISOString()`, for the thousands of instants of an answer: the date part
 * is written once a day, the time from tables (a Date and its formatting per instant were
 * a twentieth of an answer's cost).
 */
function isoText(ms: number): string {
  if (!(ms >= 0 && ms < FOUR_DIGIT_YEARS_END)) return iso(ms);
  const day = Math.floor(ms / DAY_MS);
  if (day !== lastDay) {
    lastDay = day;
    lastDayText = iso(day * DAY_MS).slice(0, 11);
  }
  let rest = ms - day * DAY_MS;
  const hours = Math.floor(rest / 3_600_000);
  rest -= hours * 3_600_000;
  const minutes = Math.floor(rest / 60_000);
  rest -= minutes * 60_000;
  const seconds = Math.floor(rest / 1000);
  return `${lastDayText}${twoDigits[hours]}:${twoDigits[minutes]}:${twoDigits[seconds]}.${threeDigits[rest - seconds * 1000]}Z`;
}
type WindowOut = NonNullable<ResourceAvailability['windows']>[number];
/** The windows of `lanes` as the answer shows them. */
function windowsOf(lanes: Lane[], zone: string, range: Interval, rules: Rules): WindowOut[] {
  const windows: WindowOut[] = [];
  let lastEnd = Number.NaN;
  let lastEndText = '';
  continuousWindows(lanes, zone, range, rules, (start, end, freeLanes) => {
    // A window mostly starts where the last ended: its text is that one.
    const startText = start === lastEnd ? lastEndText : isoText(start);
    lastEnd = end;
    lastEndText = isoText(end);
    windows.push({ start: startText, end: lastEndText, freeLanes, totalLanes: lanes.length });
  });
  return windows;
}
const slotsOut = (slots: Slot[]) =>
  slots.map((s) => ({
    start: isoText(s.start),
    end: isoText(s.end),
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

/**
 * Adds the busy time of managers to the lanes of the resources that block on their
 * manager's calendars (issue 26): every lane of such a resource is taken while its
 * manager has an opaque event. Read through `executor` only when one of `bookables` does.
 * The spans join the lane's reservations, so the engine counts them the same way
 * (buffers included) and answers show them as taken, nothing more. `busy` may still be
 * on its way: on PostgreSQL the two reads then run side by side, on two connections.
 */
async function withManagerBusy(
  executor: Executor,
  dialect: Dialect,
  rows: readonly CatalogueRow[],
  bookables: readonly Bookable[],
  reading: Map<number, Spans> | Promise<Map<number, Spans>>,
  range: Interval,
): Promise<Map<number, Spans>> {
  const byId = new Map(rows.map((row) => [row.id, row]));
  const blocking: Array<{ bookable: Bookable; managerId: number }> = [];
  for (const bookable of bookables) {
    const row = byId.get(bookable.resourceId);
    if (row?.blockOnManagerCalendars && row.managedById !== null)
      blocking.push({ bookable, managerId: row.managedById });
  }
  if (blocking.length === 0) return reading;
  const [busy, byManager] = await Promise.all([
    reading,
    managerBusy(
      executor,
      dialect,
      blocking.map((b) => b.managerId),
      range,
    ),
  ]);
  for (const { bookable, managerId } of blocking) {
    const taken = byManager.get(managerId);
    if (!taken) continue;
    for (const laneId of bookable.laneIds)
      busy.set(laneId, disjointSpans(busy.get(laneId) ?? NO_SPANS, taken));
  }
  return busy;
}

function lanesOf(bookables: Bookable[], busy: Map<number, Spans>): Lane[] {
  return bookables.flatMap((b) =>
    b.laneIds.map((id) => ({
      resourceId: id,
      schedule: b.schedule,
      busy: disjointSpans(busy.get(id) ?? NO_SPANS),
    })),
  );
}

function compute(lanes: Lane[], mode: 'continuous' | 'shifts', zone: string, range: Interval, rules: Rules) {
  return mode === 'shifts'
    ? { slots: slotsOut(shiftAvailability(lanes, zone, range, rules.bookable)) }
    : { windows: windowsOf(lanes, zone, range, rules) };
}

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
interface Bounded<T> {
  answer: T;
  validUntil: number;
}
/** Frozen, so its JSON is written once while it is cached. */
const frozen = <T extends object>(entry: Bounded<T>): Bounded<T> => ({
  answer: deepFreeze(entry.answer),
  validUntil: entry.validUntil,
});

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
  const bookingReads = createBookingReads(db.kysely, db.dialect);
  const versions = createVersionReads(db.kysely);
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

  async function typeOrThrow(executor: Executor, organisationId: number, id: number) {
    const type = await resourceTypes.findStored(executor, organisationId, id);
    if (!type) throw notFound('Resource type');
    return type;
  }

  /** Availability of one resource (its lanes pooled), or of one lane. */
  async function computeForResource(
    org: OrganisationSchedule,
    resourceId: number,
    query: RangeQuery,
  ): Promise<Bounded<ResourceAvailability>> {
    const range = { start: Date.parse(query.from), end: Date.parse(query.to) };
    const nowMs = Date.now();
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
    const span = bookableSpan(type.bookingRules, nowMs);
    const rules = rulesOf(type, span);
    const widened = widen(range, rules);
    const reading =
      bookable && type.isActive
        ? repo.busyByLane(bookable.laneIds, widened, lookbackOf(type), db.dialect, nowMs)
        : undefined;
    const busy =
      bookable && reading
        ? await withManagerBusy(
            db.kysely,
            db.dialect,
            family,
            [bookable],
            reading.then((read) => read.byLane),
            widened,
          )
        : undefined;
    const read = await reading;
    const lanes = bookable && busy ? lanesOf([bookable], busy) : [];
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
      ...compute(lanes, schedule.availabilityMode, org.timezone, range, rules),
    } satisfies ResourceAvailability;
    return { answer, validUntil: Math.min(read?.keptUntil ?? Number.POSITIVE_INFINITY, changesAt(span)) };
  }

  /** Availability of a type by its booking mode: pooled over every lane, per resource, or both. */
  async function computeForType(
    org: OrganisationSchedule,
    resourceTypeId: number,
    query: RangeQuery,
  ): Promise<Bounded<TypeAvailability>> {
    const range = { start: Date.parse(query.from), end: Date.parse(query.to) };
    const nowMs = Date.now();
    const type = await typeOrThrow(db.kysely, org.organisationId, resourceTypeId);
    const rows = type.isActive ? await repo.ofType(org.organisationId, resourceTypeId) : [];
    const bookables = bookablesOf(rows, type, org.schedulePolicy);
    const span = bookableSpan(type.bookingRules, nowMs);
    const rules = rulesOf(type, span);
    const widened = widen(range, rules);
    const reading = repo.busyByLane(
      bookables.flatMap((b) => b.laneIds),
      widened,
      lookbackOf(type),
      db.dialect,
      nowMs,
    );
    const busy = await withManagerBusy(
      db.kysely,
      db.dialect,
      rows,
      bookables,
      reading.then((read) => read.byLane),
      widened,
    );
    const { keptUntil } = await reading;
    // The pool of a type with one resource is that resource's answer: computed once.
    const computed = new Map<string, ReturnType<typeof compute>>();
    const answerOf = (group: Bookable[], mode: 'continuous' | 'shifts') => {
      const key = `${mode}|${group.map((b) => b.resourceId).join(',')}`;
      let result = computed.get(key);
      if (!result) {
        result = compute(lanesOf(group, busy), mode, org.timezone, range, rules);
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

  /** `computeForResource`, cached (frozen, so its JSON is written once) under the version of the resource's type. */
  async function forResource(
    org: OrganisationSchedule,
    resourceId: number,
    query: RangeQuery,
  ): Promise<ResourceAvailability> {
    const label = await versions.ofResource(org.organisationId, resourceId);
    // No such resource (in this organisation): the computation says so, and nothing is stored.
    if (!label) return (await computeForResource(org, resourceId, query)).answer;
    const key = keyOf(org, `r${resourceId}|t${label.resourceTypeId}`, label.version, query);
    const cached = await cache.get(key, async () => frozen(await computeForResource(org, resourceId, query)));
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
    const cached = await cache.get(key, async () => frozen(await computeForType(org, resourceTypeId, query)));
    return cached.answer as TypeAvailability;
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
    ): Promise<BookingRead | undefined> {
      return bookingReads.lanes(
        executor,
        org.organisationId,
        resourceTypeId,
        request,
        new Date().toISOString(),
      );
    },

    /**
     * The lanes of `read` where `request` fits exactly, in the order a booking tries them
     * (empty when none does). With a resourceId only that resource's lanes are candidates;
     * without, the pool, counted exactly as pool availability counts it. Each offer carries
     * the lane's `updatedAt` as read: the booking's insert holds it against the lane's row,
     * so a lane changed since (capacity, activity, schedule, type) is refused and the
     * booking reads again. `read` (from `readLanes` for this request) is used up: its busy
     * time is changed in place.
     */
    async offerLanes(
      executor: Executor,
      org: OrganisationSchedule,
      read: BookingRead,
      target: { resourceId?: number },
      request: Interval,
      ignore?: IgnoredTime,
    ): Promise<LaneOffer[]> {
      const { type, catalogue: rows, busy, lapsed } = read;
      const rules = rulesOf(type);
      const around = { start: request.start - rules.bufferMs, end: request.end + rules.bufferMs };
      withoutIgnored(busy, ignore);
      let candidates = candidatesOf(rows, type, org, target);
      // The manager's busy time, in the booking's own executor: every write path books through here.
      await withManagerBusy(executor, db.dialect, rows, candidates, busy, around);
      if (target.resourceId !== undefined && candidates.length === 0) {
        const exists = rows.some((row) => row.id === target.resourceId && row.parentResourceId === null);
        if (!exists) {
          throw invalidInput('resourceId is not a bookable resource of this resource type', [
            {
              path: 'resourceId',
              message: 'no such active resource (capacity lanes are booked through their parent)',
            },
          ]);
        }
      }
      // Opening hours (or slots) once per resource: its lanes share them.
      candidates = candidates.filter(
        (b) => scheduleAdmits(b.schedule, org.timezone, request, rules) === null,
      );
      if (candidates.length === 0) return [];
      const updatedAt = new Map(rows.map((row) => [row.id, row.updatedAt]));
      const offers: LaneOffer[] = [];
      for (const b of candidates) {
        const bufferMs = bufferOf(b.schedule.availabilityMode, rules);
        for (const laneId of b.laneIds) {
          if (isClear(busy.get(laneId) ?? NO_SPANS, request, bufferMs)) {
            offers.push({
              laneId,
              laneUpdatedAt: updatedAt.get(laneId)!,
              blockedUntil: request.end + bufferMs,
              hasLapsedHolds: lapsed.has(laneId),
            });
          }
        }
      }
      return offers;
    },

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
    async alternatives(
      org: OrganisationSchedule,
      type: StoredResourceType,
      target: { resourceId?: number | undefined },
      request: Interval,
      options: {
        ignore?: IgnoredTime | undefined;
        accept?: ((start: number) => boolean) | undefined;
        stableForMs?: number;
      } = {},
    ): Promise<Interval[]> {
      if (!type.isActive) return [];
      const nowMs = Date.now();
      const rows = await repo.ofType(org.organisationId, type.id);
      const candidates = candidatesOf(rows, type, org, target);
      if (candidates.length === 0) return [];
      const length = request.end - request.start;
      const span = bookableSpan(type.bookingRules, nowMs);
      const later = bookableSpan(type.bookingRules, nowMs + (options.stableForMs ?? 0));
      const rules = rulesOf(type, span && later && { ...span, start: later.start });
      const margin = length + rules.minBookingMs + rules.bufferMs;
      const within = async (horizon: number) => {
        const from = Math.max(request.start - horizon, nowMs + 1);
        const to = request.start + horizon;
        const { byLane } = await repo.busyByLane(
          candidates.flatMap((b) => b.laneIds),
          { start: from - margin, end: to + margin },
          lookbackOf(type),
          db.dialect,
          nowMs,
        );
        const range = { start: from - margin, end: to + margin };
        await withManagerBusy(
          db.kysely,
          db.dialect,
          rows,
          candidates,
          withoutIgnored(byLane, options.ignore),
          range,
        );
        const lanes = lanesOf(candidates, byLane);
        return nearestFits(lanes, org.timezone, request, rules, {
          from,
          to,
          stepMs: Math.min(length, ALTERNATIVES_MAX_STEP_MS),
          limit: ALTERNATIVES_LIMIT,
          accept: options.accept,
        });
      };
      const near = await within(ALTERNATIVES_NEAR_MS);
      const farthest = near[ALTERNATIVES_LIMIT - 1];
      if (farthest && Math.abs(farthest.start - request.start) < ALTERNATIVES_NEAR_MS) return near;
      return within(ALTERNATIVES_HORIZON_MS);
    },
  };
}
