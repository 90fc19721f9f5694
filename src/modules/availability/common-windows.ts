import type { Interval } from './engine.js';
import type { RangeQuery, ResourceAvailability } from './schemas.js';
import type { OrganisationSchedule } from './service.js';

/** The windows every resource of a collective booking is free in (GET /api/availability?resourceIds=). */
export interface CommonWindows {
  from: string;
  to: string;
  windows: { startTime: string; endTime: string }[];
}

/** Where one resource's answer has a lane free: its continuous windows, or its available shift slots. */
function freeTimes(answer: ResourceAvailability): Interval[] {
  const free = answer.windows
    ? answer.windows.filter((window) => window.freeLanes > 0)
    : (answer.slots ?? []).filter((slot) => slot.available);
  return free
    .map((time) => ({ start: Date.parse(time.start), end: Date.parse(time.end) }))
    .sort((a, b) => a.start - b.start);
}

/** The parts of time both sorted lists cover (each list's intervals disjoint, in order). */
export function intersect(a: Interval[], b: Interval[]): Interval[] {
  const both: Interval[] = [];
  for (let i = 0, j = 0; i < a.length && j < b.length; ) {
    const start = Math.max(a[i]!.start, b[j]!.start);
    const end = Math.min(a[i]!.end, b[j]!.end);
    if (start < end) both.push({ start, end });
    if (a[i]!.end < b[j]!.end) i++;
    else j++;
  }
  return both;
}

/** Touching pieces made one (adjacent shift slots). */
function joined(times: Interval[]): Interval[] {
  const out: Interval[] = [];
  for (const time of times) {
    const last = out[out.length - 1];
    if (last && last.end >= time.start) last.end = Math.max(last.end, time.end);
    else out.push({ ...time });
  }
  return out;
}

/**
 * The times every one of `resourceIds` has a lane free, by each resource's own availability
 * (its hours, rules, bookings, buffers and busy calendars): where a collective booking can go.
 */
export async function commonFreeTimes(
  forResource: (
    org: OrganisationSchedule,
    resourceId: number,
    query: RangeQuery,
  ) => Promise<ResourceAvailability>,
  org: OrganisationSchedule,
  resourceIds: readonly number[],
  query: RangeQuery,
): Promise<Interval[]> {
  const answers = await Promise.all(resourceIds.map((id) => forResource(org, id, query)));
  return answers.map((answer) => joined(freeTimes(answer))).reduce(intersect);
}

export function commonWindowsAnswer(query: RangeQuery, times: Interval[]): CommonWindows {
  const iso = (ms: number) => new Date(ms).toISOString();
  return {
    from: query.from,
    to: query.to,
    windows: times.map((time) => ({ startTime: iso(time.start), endTime: iso(time.end) })),
  };
}
