import type { StoredResourceType } from '../resource-types/service.js';
import { candidatesOf, lanesOf, lookbackOf, rulesOf } from './bookables.js';
import { bookableSpan } from './booking-window.js';
import { type IgnoredTime, withManagerBusy, withoutIgnored } from './busy-time.js';
import type { AvailabilityContext, OrganisationSchedule } from './context.js';
import { dayOf, withDailyCaps } from './daily-caps.js';
import type { Interval } from './engine.js';
import { nearestFits } from './nearest-fits.js';

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

/** `AvailabilityService.alternatives`: what a refused booking offers instead (see there). */
export async function alternatives(
  { db, repo }: AvailabilityContext,
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
    await withDailyCaps(db.kysely, rows, candidates, byLane, { ...range, ...dayOf(org) }, options.ignore);
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
}
