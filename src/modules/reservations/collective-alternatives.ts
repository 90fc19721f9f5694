import { DomainError, type ReasonDetail } from '../../lib/errors.js';
import type { Booking } from './book.js';
import { bookHosts, type Host, isHostRefusal } from './collective.js';
import type { ReservationsContext } from './context.js';

/** How far before and after the asked start alternatives are looked for, as for one resource. */
const SEARCH_MS = 14 * 86_400_000;
/** The steps candidate starts are taken at within a common free window. */
const STEP_MS = 15 * 60_000;
/** Alternatives offered at most, and candidates checked to find them. */
const OFFERED = 5;
const CHECKED = 12;

/**
 * A collective booking's refusal as callers get it: which resources are not free and why
 * (each reason with its resourceId, the engine's as explain answers them), and up to 5 times
 * of the same length, nearest first, when every resource is free, each checked as the booking
 * would check it. Anything else as it was.
 */
export async function offeredTogether(
  ctx: ReservationsContext,
  error: unknown,
  booking: Booking,
  hosts: Host[],
): Promise<unknown> {
  if (!isHostRefusal(error)) return error;
  const reasons = await reasonsOf(ctx, booking, hosts);
  const named = [...new Set(reasons.map((reason) => reason.resourceId))];
  const message =
    named.length > 0
      ? `Not free for the requested time: resource${named.length > 1 ? 's' : ''} ${named.join(', ')}`
      : error.message;
  return new DomainError(
    'HOST_UNAVAILABLE',
    message,
    reasons,
    undefined,
    await togetherNear(ctx, booking, hosts),
  );
}

async function reasonsOf(ctx: ReservationsContext, { org, request }: Booking, hosts: Host[]) {
  const each = await Promise.all(
    hosts.map(async ({ resourceId, resourceTypeId }) => {
      const reasons = await ctx.availability.refusalReasons(org, { resourceTypeId, resourceId }, request);
      return reasons.map((reason): ReasonDetail => ({ ...reason, resourceId }));
    }),
  );
  return each.flat();
}

/** Times of the request's length when every host is free, nearest to its start, each bookable now. */
async function togetherNear(ctx: ReservationsContext, booking: Booking, hosts: Host[]) {
  const { start, end } = booking.request;
  const now = Date.now();
  const range = { from: iso(Math.max(now, start - SEARCH_MS)), to: iso(Math.max(now, start) + SEARCH_MS) };
  const free = await ctx.availability.commonFreeTimes(
    booking.org,
    hosts.map((host) => host.resourceId),
    range,
  );
  const length = end - start;
  const candidates: number[] = [];
  for (const window of free)
    for (let at = Math.ceil(window.start / STEP_MS) * STEP_MS; at + length <= window.end; at += STEP_MS)
      if (at !== start && at >= now) candidates.push(at);
  candidates.sort((a, b) => Math.abs(a - start) - Math.abs(b - start) || a - b);
  const offered = [];
  for (const at of candidates.slice(0, CHECKED)) {
    if (offered.length === OFFERED) break;
    const request = { start: at, end: at + length };
    const fits = await bookHosts(ctx, { ...booking, request, dryRun: true }, hosts).then(
      () => true,
      () => false,
    );
    const resourceIds = hosts.map((host) => host.resourceId);
    if (fits)
      offered.push({
        startTime: iso(at),
        endTime: iso(at + length),
        resourceId: resourceIds[0]!,
        resourceIds,
      });
  }
  return offered;
}

const iso = (ms: number) => new Date(ms).toISOString();
