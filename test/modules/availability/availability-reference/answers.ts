// A frozen copy of how the availability service answered before issue 14 (c73101f:
// src/modules/availability/service.ts, forType and forResource), reading the database
// directly with plain queries: the reference the equivalence test holds the HTTP
// answers to. Never edit it to make a test pass. Issue 52 added daily caps (daily-caps.ts,
// marked where they join).
import type { Db } from '../../../../src/db/database.js';
import { resolveSchedule } from '../../../../src/scheduling/resolve.js';
import type { SchedulePolicy } from '../../../../src/scheduling/schemas.js';
import { withCapDays } from './daily-caps.js';
import {
  continuousWindows,
  type EffectiveSchedule,
  type Interval,
  type Lane,
  type Rules,
  type Slot,
  shiftAvailability,
  type Window,
} from './engine.js';

interface Row {
  id: number;
  parentResourceId: number | null;
  resourceTypeId: number;
  capacityLaneIndex: number | null;
  isActive: unknown;
  schedulePolicy: string | null;
  /** Issue 52. */
  maxBookingsPerDay: number | null;
}
interface Bookable {
  resourceId: number;
  schedule: EffectiveSchedule;
  laneIds: number[];
  /** Issue 52: the resource's daily cap, which each of its lanes keeps. */
  cap: number | null;
}
interface TypeRow {
  bookingMode: 'SINGLE_RESOURCE' | 'POOL' | 'BOTH';
  minBookingDuration: number;
  bufferTime: number;
  isActive: unknown;
  schedulePolicy: SchedulePolicy | null;
}
interface Org {
  timezone: string;
  schedulePolicy: SchedulePolicy | null;
}

const iso = (ms: number) => new Date(ms).toISOString();
const parse = (json: string | null) => (json ? (JSON.parse(json) as SchedulePolicy) : null);
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

function bookablesOf(rows: Row[], type: TypeRow, organisation: SchedulePolicy | null): Bookable[] {
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
        resource: parse(row.schedulePolicy),
      }),
      laneIds: lanesByParent.get(row.id) ?? [row.id],
      cap: row.maxBookingsPerDay,
    }));
}

const lanesOf = (bookables: Bookable[], busy: Map<number, Interval[]>): Lane[] =>
  bookables.flatMap((b) =>
    b.laneIds.map((id) => ({ resourceId: id, schedule: b.schedule, busy: busy.get(id) ?? [] })),
  );

function compute(lanes: Lane[], mode: 'continuous' | 'shifts', zone: string, range: Interval, rules: Rules) {
  return mode === 'shifts'
    ? { slots: slotsOut(shiftAvailability(lanes, zone, range)) }
    : { windows: windowsOut(continuousWindows(lanes, zone, range, rules)) };
}

/** Issue 52: each capped lane of `bookables`, with its cap. */
const capsOf = (bookables: Bookable[]) =>
  new Map(bookables.flatMap((b) => (b.cap === null ? [] : b.laneIds.map((id) => [id, b.cap!] as const))));

/** Every reservation (not cancelled) on these lanes overlapping `range`, by lane: no lookback shortcut. */
async function busy(db: Db, laneIds: number[], range: Interval): Promise<Map<number, Interval[]>> {
  const byLane = new Map<number, Interval[]>(laneIds.map((id) => [id, []]));
  if (laneIds.length === 0) return byLane;
  const rows = await db.kysely
    .selectFrom('reservations')
    .select(['resourceId', 'startTime', 'endTime', 'status'])
    .where('resourceId', 'in', laneIds)
    .execute();
  for (const row of rows) {
    const interval = { start: Date.parse(row.startTime), end: Date.parse(row.endTime) };
    if (row.status === 'cancelled' || interval.start >= range.end || interval.end <= range.start) continue;
    byLane.get(row.resourceId!)!.push(interval);
  }
  return byLane;
}

async function organisation(db: Db, organisationId: number): Promise<Org> {
  const row = await db.kysely
    .selectFrom('organisations')
    .select(['timezone', 'schedulePolicy'])
    .where('id', '=', organisationId)
    .executeTakeFirstOrThrow();
  return { timezone: row.timezone, schedulePolicy: parse(row.schedulePolicy) };
}

async function resourceType(db: Db, id: number): Promise<TypeRow> {
  const row = await db.kysely
    .selectFrom('resourceTypes')
    .selectAll()
    .where('id', '=', id)
    .executeTakeFirstOrThrow();
  return { ...row, schedulePolicy: parse(row.schedulePolicy) };
}

const rulesOf = (type: TypeRow): Rules => ({
  minBookingMs: type.minBookingDuration * 60_000,
  bufferMs: type.bufferTime * 60_000,
});
const widen = (range: Interval, rules: Rules) => ({
  start: range.start - rules.minBookingMs - rules.bufferMs,
  end: range.end + rules.minBookingMs + rules.bufferMs,
});

/** GET /api/resource-types/:id/availability as it answered. */
export async function typeAnswer(
  db: Db,
  organisationId: number,
  resourceTypeId: number,
  from: string,
  to: string,
) {
  const range = { start: Date.parse(from), end: Date.parse(to) };
  const org = await organisation(db, organisationId);
  const type = await resourceType(db, resourceTypeId);
  const rows = (await db.kysely
    .selectFrom('resources')
    .selectAll()
    .where('organisationId', '=', organisationId)
    .where('resourceTypeId', '=', resourceTypeId)
    .orderBy('id')
    .execute()) as Row[];
  const bookables = type.isActive ? bookablesOf(rows, type, org.schedulePolicy) : [];
  const rules = rulesOf(type);
  const taken = await withCapDays(
    db,
    await busy(
      db,
      bookables.flatMap((b) => b.laneIds),
      widen(range, rules),
    ),
    capsOf(bookables),
    org.timezone,
  );
  const typeMode = resolveSchedule({
    organisation: org.schedulePolicy,
    resourceType: type.schedulePolicy,
    resource: null,
  }).availabilityMode;
  const answer: Record<string, unknown> = {
    resourceTypeId,
    bookingMode: type.bookingMode,
    timezone: org.timezone,
    from: iso(range.start),
    to: iso(range.end),
  };
  if (type.bookingMode !== 'SINGLE_RESOURCE') {
    const pooled = bookables.filter((b) => b.schedule.availabilityMode === typeMode);
    answer.pool = {
      availabilityMode: typeMode,
      ...compute(lanesOf(pooled, taken), typeMode, org.timezone, range, rules),
    };
  }
  if (type.bookingMode !== 'POOL') {
    answer.resources = bookables.map((b) => ({
      resourceId: b.resourceId,
      availabilityMode: b.schedule.availabilityMode,
      ...compute(lanesOf([b], taken), b.schedule.availabilityMode, org.timezone, range, rules),
    }));
  }
  return answer;
}

/** GET /api/resources/:id/availability as it answered (the resource exists in the organisation). */
export async function resourceAnswer(
  db: Db,
  organisationId: number,
  resourceId: number,
  from: string,
  to: string,
) {
  const range = { start: Date.parse(from), end: Date.parse(to) };
  const org = await organisation(db, organisationId);
  const target = (await db.kysely
    .selectFrom('resources')
    .selectAll()
    .where('id', '=', resourceId)
    .executeTakeFirstOrThrow()) as Row;
  const parentId = target.parentResourceId ?? target.id;
  const family = (
    (await db.kysely
      .selectFrom('resources')
      .selectAll()
      .where('organisationId', '=', organisationId)
      .where((eb) => eb.or([eb('id', '=', parentId), eb('parentResourceId', '=', parentId)]))
      .execute()) as Row[]
  ).sort((a, b) => (a.capacityLaneIndex ?? 0) - (b.capacityLaneIndex ?? 0));
  const parent = family.find((row) => row.parentResourceId === null)!;
  const type = await resourceType(db, parent.resourceTypeId);
  let [bookable] = bookablesOf(family, type, org.schedulePolicy);
  if (bookable && target.parentResourceId !== null) {
    bookable = bookable.laneIds.includes(target.id) ? { ...bookable, laneIds: [target.id] } : undefined;
  }
  const rules = rulesOf(type);
  const lanes =
    bookable && type.isActive
      ? lanesOf(
          [bookable],
          await withCapDays(
            db,
            await busy(db, bookable.laneIds, widen(range, rules)),
            capsOf([bookable]),
            org.timezone,
          ),
        )
      : [];
  const schedule =
    bookable?.schedule ??
    resolveSchedule({ organisation: org.schedulePolicy, resourceType: type.schedulePolicy, resource: null });
  return {
    resourceId,
    timezone: org.timezone,
    availabilityMode: schedule.availabilityMode,
    from: iso(range.start),
    to: iso(range.end),
    ...compute(lanes, schedule.availabilityMode, org.timezone, range, rules),
  };
}
