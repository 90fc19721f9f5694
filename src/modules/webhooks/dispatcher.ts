import { inTransaction } from '../../db/database.js';
import { nowIso } from '../../lib/time.js';
import type { OutboxEvent } from '../outbox/schemas.js';
import type { WebhooksContext } from './context.js';
import type { LaneTarget } from './lanes.js';
import type { EndpointRow, NewDelivery } from './repo.js';
import { RETRY_WINDOW_MS } from './retry-schedule.js';

/** Outbox events one dispatch transaction takes. */
const DISPATCH_BATCH = 200;

/** What dispatching answers: the counts, and the endpoints that got deliveries. */
export interface Dispatched {
  events: number;
  deliveries: number;
  targets: LaneTarget[];
}

/** The dispatcher: new outbox events turned into deliveries. */
export interface Dispatcher {
  dispatchAll(): Promise<Dispatched>;
  dispatch(): Promise<{ events: number; deliveries: number }>;
}

/**
 * One delivery per (event, active endpoint of its organisation subscribed to its type, created
 * before it occurred), each pending from `now`; and the endpoints they go to.
 */
function deliveriesOf(
  events: readonly OutboxEvent[],
  endpoints: ReadonlyArray<{ row: EndpointRow; events: Set<string> }>,
  now: string,
): { rows: NewDelivery[]; targets: Map<number, LaneTarget> } {
  const retryUntil = new Date(Date.parse(now) + RETRY_WINDOW_MS).toISOString();
  const rows: NewDelivery[] = [];
  const targets = new Map<number, LaneTarget>();
  for (const event of events) {
    for (const endpoint of endpoints) {
      if (endpoint.row.organisationId !== event.organisationId || !endpoint.events.has(event.type)) continue;
      if (event.occurredAt < endpoint.row.createdAt) continue;
      targets.set(endpoint.row.id, {
        endpointId: endpoint.row.id,
        organisationId: endpoint.row.organisationId,
      });
      rows.push({
        endpointId: endpoint.row.id,
        organisationId: endpoint.row.organisationId,
        eventId: event.id,
        eventType: event.type,
        userId: event.userId,
        payload: JSON.stringify(event),
        status: 'pending',
        nextAttemptAt: now,
        retryUntil,
        createdAt: now,
        updatedAt: now,
      });
    }
  }
  return { rows, targets };
}

export function createDispatcher(ctx: WebhooksContext): Dispatcher {
  const { db, outbox, repo } = ctx;

  /**
   * Turns the outbox events after the dispatcher's position into deliveries (deliveriesOf).
   * The deliveries and the new position commit together, the position only
   * if still where this run read it, so two instances never both dispatch an event and
   * a crash dispatches it again (the unique (endpoint, event) absorbs a repeat).
   */
  async function dispatchOnce(): Promise<Dispatched & { more: boolean }> {
    const now = nowIso();
    const { position, anyActiveEndpoint } = await repo.readPosition(now);
    // With no active endpoint anywhere, no event can make a delivery: skip them unread.
    if (!anyActiveEndpoint) {
      const newest = await outbox.lastPosition();
      if (newest !== null && newest !== position)
        await repo.advancePosition(db.kysely, position, newest, now);
      return { events: 0, deliveries: 0, targets: [], more: false };
    }
    const events = await outbox.readAfter(position, DISPATCH_BATCH);
    if (events.length === 0) return { events: 0, deliveries: 0, targets: [], more: false };
    const organisationIds = [
      ...new Set(events.flatMap((event) => (event.organisationId === null ? [] : [event.organisationId]))),
    ];
    const endpoints = (await repo.activeEndpoints(organisationIds)).map((row) => ({
      row,
      events: new Set(JSON.parse(row.events) as string[]),
    }));
    const { rows, targets } = deliveriesOf(events, endpoints, now);
    const last = events[events.length - 1]!.id;
    const moved = await inTransaction(db.kysely, async (trx) => {
      if (!(await repo.advancePosition(trx, position, last, now))) return false;
      await repo.insertDeliveries(trx, rows);
      return true;
    });
    if (!moved) return { events: 0, deliveries: 0, targets: [], more: false };
    return {
      events: events.length,
      deliveries: rows.length,
      targets: [...targets.values()],
      more: events.length === DISPATCH_BATCH,
    };
  }

  /** Dispatches every new event; answers the counts and the endpoints that got deliveries. */
  async function dispatchAll(): Promise<{ events: number; deliveries: number; targets: LaneTarget[] }> {
    const total = { events: 0, deliveries: 0, targets: [] as LaneTarget[] };
    for (;;) {
      const round = await dispatchOnce();
      total.events += round.events;
      total.deliveries += round.deliveries;
      total.targets.push(...round.targets);
      if (!round.more) return total;
    }
  }

  async function dispatch(): Promise<{ events: number; deliveries: number }> {
    const { events, deliveries } = await dispatchAll();
    return { events, deliveries };
  }

  return { dispatchAll, dispatch };
}
