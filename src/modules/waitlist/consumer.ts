import { randomUUID } from 'node:crypto';
import { coalescing } from '../../lib/coalescing.js';
import { nowIso } from '../../lib/time.js';
import type { OutboxEvent } from '../outbox/schemas.js';
import type { Reservation } from '../reservations/schemas.js';
import type { WaitlistContext } from './context.js';
import { type FreedTime, offerType, settleOffer } from './offers.js';

/** Outbox events one read of the consumer takes. */
const EVENT_BATCH = 200;
/** How long a run holds the consumer's lease; a run that dies frees it by itself after this. */
const LEASE_MS = 30_000;
/** Reservation events that can free time a waiting entry wants. */
const FREEING = new Set(['reservation.cancelled', 'reservation.expired', 'reservation.rescheduled']);

/** What a run made: events read and offers made. */
export interface OfferRun {
  events: number;
  offered: number;
}

/** One run of the offer consumer; `sweep` also offers every waiting type. */
export type ProcessOffers = (options?: { sweep?: boolean }) => Promise<OfferRun>;

interface FreedOfType {
  organisationId: number;
  resourceTypeId: number;
  freed?: FreedTime[];
}

/** Notes the time a freeing event frees under its organisation and type. */
function noteFreed(types: Map<string, FreedOfType>, event: OutboxEvent, data: Reservation): void {
  if (!FREEING.has(event.type) || data.resourceTypeId === null || event.organisationId === null) return;
  const key = `${event.organisationId}:${data.resourceTypeId}`;
  const known = types.get(key) ?? {
    organisationId: event.organisationId,
    resourceTypeId: data.resourceTypeId,
    freed: [],
  };
  // A reschedule's event carries the new time only: its old one could be anywhere.
  if (event.type === 'reservation.rescheduled') delete known.freed;
  else known.freed?.push({ start: data.startTime, end: data.endTime });
  types.set(key, known);
}

/** Handles one batch of events: offers settled in order, then freed time offered; answers the offers made. */
async function handleBatch(ctx: WaitlistContext, events: readonly OutboxEvent[]): Promise<number> {
  const types = new Map<string, FreedOfType>();
  for (const event of events) {
    if (!event.type.startsWith('reservation.')) continue;
    const data = event.data as Reservation;
    await settleOffer(ctx, event.type, data.id);
    noteFreed(types, event, data);
  }
  let offered = 0;
  for (const { organisationId, resourceTypeId, freed } of types.values())
    offered += await offerType(ctx, organisationId, resourceTypeId, freed);
  return offered;
}

/**
 * One run of the consumer: under the lease, the events after its position, each handled
 * (offers settled, freed time offered) before the position passes it, so a run that dies
 * midway leaves the rest to the next. `sweep` also offers every type with waiting
 * entries: what no event announces (a capacity raised, a schedule widened).
 */
async function runOnce(ctx: WaitlistContext, options: { sweep?: boolean }): Promise<OfferRun> {
  const { repo, outbox } = ctx;
  // Nobody waits and no offer is open: no event can settle or offer anything. Skip them
  // unread, without the lease's writes (an entry joining meanwhile is for a time full at
  // its join; the sweep covers the rest).
  const newest = await outbox.lastPosition();
  if (!(await repo.anyOpen())) {
    if (newest !== null) await repo.skipTo(newest, nowIso());
    return { events: 0, offered: 0 };
  }
  const claim = randomUUID();
  const leaseEnd = () => new Date(Date.now() + LEASE_MS).toISOString();
  const lease = await repo.claimLease(claim, nowIso(), leaseEnd());
  if (!lease) return { events: 0, offered: 0 };
  let position = lease.position;
  const total = { events: 0, offered: 0 };
  try {
    // Offers a run claimed but never linked to a hold (it died in between) wait again.
    for (const stale of await repo.unlinkedOffers(new Date(Date.now() - LEASE_MS).toISOString()))
      await repo.unclaimOffer(stale.id, nowIso());
    for (;;) {
      const events = await outbox.readAfter(position, EVENT_BATCH);
      if (events.length === 0) break;
      total.offered += await handleBatch(ctx, events);
      position = events[events.length - 1]!.id;
      total.events += events.length;
      if (!(await repo.advance(claim, position, leaseEnd()))) return total; // the lease was lost
      if (events.length < EVENT_BATCH) break;
    }
    if (options.sweep)
      for (const { organisationId, resourceTypeId } of await repo.typesWaiting(nowIso()))
        total.offered += await offerType(ctx, organisationId, resourceTypeId);
    return total;
  } finally {
    await repo.releaseLease(claim);
  }
}

/**
 * One run at a time on this instance, calls while it runs folded into one more (which
 * sweeps if any of them asked): a run that found the lease taken by its own instance's
 * run would answer before that run made its offers, so a caller (the job, the watcher, a
 * test) could not count on what it asked for being done when its call answers.
 */
export function createOfferConsumer(ctx: WaitlistContext): ProcessOffers {
  let sweepAsked = false;
  const coalesced = coalescing(() => {
    const sweep = sweepAsked;
    sweepAsked = false;
    return runOnce(ctx, { sweep });
  });
  return (options: { sweep?: boolean } = {}) => {
    if (options.sweep) sweepAsked = true;
    return coalesced();
  };
}
