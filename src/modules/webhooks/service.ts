import { randomBytes } from 'node:crypto';
import { lookup } from 'node:dns/promises';
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../../config.js';
import { type Db, inTransaction } from '../../db/database.js';
import type { JobQueue } from '../../jobs/queue.js';
import type { Actor } from '../../lib/actor.js';
import { decryptSecret, encryptSecret } from '../../lib/crypto.js';
import { decodeCursor, encodeCursor } from '../../lib/cursor.js';
import type { EphemeralStore } from '../../lib/ephemeral-store.js';
import {
  conflict,
  DomainError,
  invalidCursor,
  invalidField,
  notFound,
  validationFailed,
} from '../../lib/errors.js';
import { ipLiteralOf, isPublicAddress } from '../../lib/public-address.js';
import { nowIso } from '../../lib/time.js';
import type { OrganisationsService } from '../organisations/service.js';
import type { EventWriter, OutboxConsumerPort } from '../outbox/service.js';
import { createLanes, type LaneTarget } from './lanes.js';
import { createWebhooksRepo, type DeliveryRow, type EndpointRow, type NewDelivery } from './repo.js';
import {
  type CreateWebhookInput,
  type DeliveriesQuery,
  type Delivery,
  type DeliveryPage,
  isEventType,
  MAX_ENDPOINTS_PER_ORGANISATION,
  TEST_EVENT_TYPE,
  type UpdateWebhookInput,
  URL_MAX,
  type Webhook,
  type WebhookWithSecret,
} from './schemas.js';
import { sendSigned } from './sender.js';

/** Turns new outbox events into deliveries, then sends what is due. */
export const WEBHOOK_DISPATCH_JOB = 'webhooks.dispatch';
/** Sends the deliveries that are due (after a test ping, a manual retry, a reactivation). */
export const WEBHOOK_DELIVER_JOB = 'webhooks.deliver';
/** Deletes deliveries past the retention. */
export const WEBHOOK_PURGE_JOB = 'webhooks.purge';

const DAY_MS = 86_400_000;
/** Automatic retries of a delivery go on this long; an endpoint failing this long is disabled. */
export const RETRY_WINDOW_MS = 3 * DAY_MS;
/** The first retry waits this long; each next one twice as long, up to MAX_BACKOFF_MS. */
export const FIRST_BACKOFF_MS = 30_000;
export const MAX_BACKOFF_MS = 6 * 60 * 60_000;
/**
 * How long a claimed attempt is nobody else's: well past the send timeout (at most 10 s), so
 * a lease runs out only when its instance died mid-attempt (then another sends it again).
 */
const LEASE_MS = 60_000;
/** Outbox events one dispatch transaction takes. */
const DISPATCH_BATCH = 200;
/** Attempts in flight per endpoint, across instances (DECISIONS.md "What the review found, decided"). */
export const IN_FLIGHT_PER_ENDPOINT = 2;
/**
 * Requests in flight per instance. One organisation holds at most 40 (20 endpoints, 2 each),
 * so it takes five organisations' endpoints that never answer to fill it; past it, turns go
 * round-robin by organisation (lanes.ts).
 */
const LANES_PER_INSTANCE = 200;
/** Test pings per endpoint a minute (DECISIONS.md "What the review found, decided"). */
export const TEST_PINGS_PER_MINUTE = 10;
/** The delivery log lives as long as the outbox keeps its events. */
const RETENTION_MS = 30 * DAY_MS;
const PURGE_BATCH = 5_000;

/** The wait before attempt number `attempts + 1`, after `attempts` failed ones. */
export function backoffMs(attempts: number): number {
  return Math.min(FIRST_BACKOFF_MS * 2 ** Math.max(0, attempts - 1), MAX_BACKOFF_MS);
}

/** A fresh signing secret: `whsec_` and 32 random bytes, base64 (the Standard Webhooks form). */
const newSecret = () => `whsec_${randomBytes(32).toString('base64')}`;
/** Binds a sealed secret to its endpoint: copied onto another row it does not decrypt. */
const sealContext = (endpointId: number) => `webhook:${endpointId}`;

export interface WebhooksServiceDeps {
  db: Db;
  config: Config;
  jobs: JobQueue;
  log?: FastifyBaseLogger;
  /** Counts test pings per endpoint (shared across instances when Redis is configured). */
  store: Pick<EphemeralStore, 'hit'>;
  organisations: Pick<OrganisationsService, 'requireMembership'>;
  /** The outbox: read by the dispatcher, which it runs soon after new events; webhook.disabled written to it. */
  outbox: OutboxConsumerPort & EventWriter;
}

export type WebhooksService = ReturnType<typeof createWebhooksService>;

/**
 * Signed webhooks (DECISIONS.md "Events, webhooks and notifications"): endpoints and
 * their secrets, a dispatcher that turns outbox events into one delivery per matching
 * endpoint, and workers that send them (Standard Webhooks signatures) with exponential
 * backoff for up to 3 days. All sending is on the job queue, never a request's path.
 */
export function createWebhooksService(deps: WebhooksServiceDeps) {
  const { db, config, jobs, log, organisations, outbox, store } = deps;
  const repo = createWebhooksRepo(db);
  const allowPrivate = config.webhookAllowPrivate;
  const key = config.encryptionKey;

  const view = (row: EndpointRow): Webhook => ({
    id: row.id,
    url: row.url,
    events: (JSON.parse(row.events) as string[]).filter(isEventType),
    description: row.description,
    status: row.status,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
    disabledAt: row.disabledAt,
  });

  const deliveryView = (row: DeliveryRow): Delivery => ({
    id: row.id,
    webhookId: row.endpointId,
    eventId: row.eventId,
    eventType: row.eventType,
    status: row.status,
    attempts: Number(row.attempts),
    lastStatusCode: row.lastStatusCode,
    lastError: row.lastError,
    nextAttemptAt: row.status === 'pending' ? row.nextAttemptAt : null,
    createdAt: row.createdAt,
  });

  const manage = (actor: Actor, organisationId: number) =>
    organisations.requireMembership(actor, organisationId, { can: 'manageWebhooks' });

  async function endpointOf(actor: Actor, organisationId: number, webhookId: number): Promise<EndpointRow> {
    await manage(actor, organisationId);
    const row = await repo.findEndpoint(db.kysely, organisationId, webhookId);
    if (!row) throw notFound('Webhook');
    return row;
  }

  /** The rules of an endpoint URL (https, length, a public address): the URL, or a 400 naming why. */
  async function checkedUrl(text: string): Promise<string> {
    const refuse = (message: string) => invalidField('url', message);
    if (text.length > URL_MAX) throw refuse(`must be at most ${URL_MAX} characters`);
    let url: URL;
    try {
      url = new URL(text);
    } catch {
      throw refuse('is not a valid URL');
    }
    if (url.protocol !== 'https:' && !(allowPrivate && url.protocol === 'http:'))
      throw refuse('must use https');
    if (url.username || url.password) throw refuse('must not contain user information');
    if (url.hash || text.includes('#')) throw refuse('must not contain a fragment');
    if (!allowPrivate) {
      const literal = ipLiteralOf(url);
      if (literal) {
        if (!isPublicAddress(literal)) throw refuse('must be on a public address');
      } else {
        let addresses: Array<{ address: string }>;
        try {
          addresses = await lookup(url.hostname, { all: true, verbatim: true });
        } catch {
          throw refuse('its host does not resolve');
        }
        if (addresses.length === 0) throw refuse('its host does not resolve');
        if (addresses.some((a) => !isPublicAddress(a.address)))
          throw refuse('must resolve to public addresses only');
      }
    }
    return url.toString();
  }

  function checkedEvents(events: readonly string[]): string[] {
    const unknown = events.filter((type) => !isEventType(type));
    if (unknown.length > 0) throw invalidField('events', `unknown event type(s): ${unknown.join(', ')}`);
    return [...new Set(events)];
  }

  const normalDescription = (text: string | null | undefined) => (text ? text : null);

  // ---- delivery ----

  /** One attempt at a claimed delivery, and its outcome recorded (if the lease is still ours). */
  async function attempt(row: DeliveryRow, endpoint: EndpointRow): Promise<void> {
    const lease = row.claimedUntil!;
    const isTest = row.eventType === TEST_EVENT_TYPE;
    const outcome = await sendSigned(
      {
        url: endpoint.url,
        messageId: row.eventId,
        secret: decryptSecret(key, endpoint.secretSealed, sealContext(endpoint.id)),
        body: row.payload,
        at: new Date(),
      },
      { allowPrivate, timeoutMs: config.webhookTimeoutMs },
    );
    const at = nowIso();
    if (outcome.ok) {
      await repo.recordAttempt(row.id, lease, {
        status: 'succeeded',
        lastStatusCode: outcome.statusCode,
        lastError: null,
        nextAttemptAt: null,
        at,
      });
      // As read at the claim: a failure recorded since is cleared by the next success.
      if (!isTest && endpoint.failingSince !== null) await repo.markHealthy(endpoint.id);
      return;
    }
    const next = Date.now() + backoffMs(Number(row.attempts) + 1);
    const until = Date.parse(row.retryUntil);
    // The last retry falls on the window's end; a test ping is tried once.
    const nextAttemptAt =
      isTest || Date.now() >= until ? null : new Date(Math.min(next, until)).toISOString();
    const recorded = await repo.recordAttempt(row.id, lease, {
      status: nextAttemptAt ? 'pending' : 'failed',
      lastStatusCode: outcome.statusCode,
      lastError: outcome.error,
      nextAttemptAt,
      at,
    });
    if (!recorded || isTest) return;
    // Failing since the window start (creation or manual retry) of the first delivery it
    // failed after its last success: that delivery's last retry, at its window's end, finds 3 days.
    const failing = await repo.markFailing(endpoint.id, new Date(until - RETRY_WINDOW_MS).toISOString());
    if (failing?.failingSince && Date.now() - Date.parse(failing.failingSince) >= RETRY_WINDOW_MS)
      await disable(failing, at);
  }

  /**
   * After 3 days of failures: disabled, its pending deliveries failed (each can be retried
   * once it is active again), and `webhook.disabled` written with it: other endpoints and
   * the feed learn of it, and the organisation's owners are mailed (the mail module).
   */
  async function disable(endpoint: EndpointRow, at: string): Promise<void> {
    const disabled = await inTransaction(db.kysely, async (trx) => {
      const row = await repo.disable(trx, endpoint.id, at);
      if (!row) return false;
      await repo.failPending(trx, endpoint.id, at, 'the endpoint was disabled after 3 days of failures');
      await outbox.append(trx, [
        {
          type: 'webhook.disabled',
          occurredAt: at,
          organisationId: row.organisationId,
          userId: null,
          data: view(row),
        },
      ]);
      return true;
    });
    if (!disabled) return;
    log?.warn(
      { webhookId: endpoint.id, organisationId: endpoint.organisationId },
      'webhook endpoint disabled after 3 days of failed deliveries',
    );
  }

  /** Claims the endpoint's next due delivery, if it may have one more in flight, and sends it. */
  async function sendNext(endpointId: number): Promise<boolean> {
    const now = Date.now();
    const claimed = await repo.claimNext(
      endpointId,
      new Date(now).toISOString(),
      new Date(now + LEASE_MS).toISOString(),
      IN_FLIGHT_PER_ENDPOINT,
    );
    if (!claimed) return false;
    await attempt(claimed.delivery, claimed.endpoint);
    return true;
  }

  const lanes = createLanes({
    perEndpoint: IN_FLIGHT_PER_ENDPOINT,
    capacity: LANES_PER_INSTANCE,
    sendNext,
    ...(log ? { log } : {}),
  });

  /**
   * Sends every delivery due now (retries come due, leases of dead instances run out), each
   * endpoint on its own lanes; resolves once this instance's lanes are all done and answers
   * how many attempts they made meanwhile.
   */
  async function deliverDue(): Promise<number> {
    const before = lanes.attempts;
    lanes.wake(await repo.dueEndpoints(nowIso()));
    await lanes.idle();
    return lanes.attempts - before;
  }

  /**
   * Turns the outbox events after the dispatcher's position into deliveries: one per
   * (event, active endpoint of its organisation subscribed to its type, created before
   * it occurred). The deliveries and the new position commit together, the position only
   * if still where this run read it, so two instances never both dispatch an event and
   * a crash dispatches it again (the unique (endpoint, event) absorbs a repeat).
   */
  async function dispatchOnce(): Promise<{
    events: number;
    deliveries: number;
    targets: LaneTarget[];
    more: boolean;
  }> {
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
    const retryUntil = new Date(Date.parse(now) + RETRY_WINDOW_MS).toISOString();
    const rows: NewDelivery[] = [];
    const targets = new Map<number, LaneTarget>();
    for (const event of events) {
      for (const endpoint of endpoints) {
        if (endpoint.row.organisationId !== event.organisationId || !endpoint.events.has(event.type))
          continue;
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

  async function purge(now = Date.now()): Promise<number> {
    const cutoff = new Date(now - RETENTION_MS).toISOString();
    let deleted = 0;
    for (;;) {
      const batch = await repo.deleteBefore(cutoff, PURGE_BATCH);
      deleted += batch;
      if (batch < PURGE_BATCH) return deleted;
    }
  }

  const wakeDelivery = () => jobs.send(WEBHOOK_DELIVER_JOB, {}, { singletonKey: 'due' });

  // Retries are the deliveries' own schedule (next_attempt_at), so a failed send is no job failure.
  jobs.work(
    WEBHOOK_DISPATCH_JOB,
    async () => {
      await dispatch();
      await deliverDue();
    },
    { retryLimit: 0, deduplicate: true },
  );
  jobs.every(WEBHOOK_DISPATCH_JOB, 1);
  jobs.work(WEBHOOK_DELIVER_JOB, async () => void (await deliverDue()), { retryLimit: 0, deduplicate: true });
  jobs.work(WEBHOOK_PURGE_JOB, async () => void (await purge()), { retryLimit: 0, deduplicate: true });
  jobs.every(WEBHOOK_PURGE_JOB, 60);
  // New deliveries start their endpoints' lanes on this instance at once; the sending never
  // holds up the dispatching, and one endpoint's sending never holds up another's.
  outbox.onNewEvents(
    'webhooks',
    async () => {
      lanes.wake((await dispatchAll()).targets);
    },
    { idle: async () => !(await repo.anyActiveEndpoint()) },
  );

  return {
    async create(
      actor: Actor,
      organisationId: number,
      input: CreateWebhookInput,
    ): Promise<WebhookWithSecret> {
      await manage(actor, organisationId);
      const url = await checkedUrl(input.url);
      const events = checkedEvents(input.events);
      const secret = newSecret();
      const now = nowIso();
      const row = await inTransaction(db.kysely, async (trx) => {
        await repo.lockOrganisationEndpoints(trx, organisationId);
        if ((await repo.countEndpoints(trx, organisationId)) >= MAX_ENDPOINTS_PER_ORGANISATION)
          throw validationFailed(
            `An organisation may have at most ${MAX_ENDPOINTS_PER_ORGANISATION} webhook endpoints; delete one first`,
          );
        const inserted = await repo.insertEndpoint(trx, {
          organisationId,
          url,
          events: JSON.stringify(events),
          description: normalDescription(input.description),
          status: 'active',
          secretSealed: '',
          createdAt: now,
          updatedAt: now,
        });
        // Sealed once the id is known: the id is part of what the seal authenticates.
        return (await repo.updateEndpoint(trx, inserted.id, {
          secretSealed: encryptSecret(key, secret, sealContext(inserted.id)),
        }))!;
      });
      return { ...view(row), secret };
    },

    async list(actor: Actor, organisationId: number): Promise<{ items: Webhook[] }> {
      await manage(actor, organisationId);
      return { items: (await repo.listEndpoints(organisationId)).map(view) };
    },

    async get(actor: Actor, organisationId: number, webhookId: number): Promise<Webhook> {
      return view(await endpointOf(actor, organisationId, webhookId));
    },

    async update(
      actor: Actor,
      organisationId: number,
      webhookId: number,
      input: UpdateWebhookInput,
    ): Promise<Webhook> {
      const current = await endpointOf(actor, organisationId, webhookId);
      const url = input.url === undefined ? undefined : await checkedUrl(input.url);
      const events = input.events === undefined ? undefined : checkedEvents(input.events);
      const reactivated = input.status === 'active' && current.status !== 'active';
      const row = await repo.updateEndpoint(db.kysely, current.id, {
        ...(url === undefined ? {} : { url }),
        ...(events === undefined ? {} : { events: JSON.stringify(events) }),
        ...(input.description === undefined ? {} : { description: normalDescription(input.description) }),
        ...(input.status === undefined ? {} : { status: input.status }),
        // Active again: its failures start over.
        ...(reactivated ? { failingSince: null, disabledAt: null } : {}),
        updatedAt: nowIso(),
      });
      if (!row) throw notFound('Webhook');
      if (reactivated) await wakeDelivery();
      return view(row);
    },

    async delete(actor: Actor, organisationId: number, webhookId: number): Promise<void> {
      await manage(actor, organisationId);
      if (!(await repo.deleteEndpoint(organisationId, webhookId))) throw notFound('Webhook');
    },

    /** A new secret, answered this once; the old one signs nothing from now on. */
    async rotateSecret(actor: Actor, organisationId: number, webhookId: number): Promise<WebhookWithSecret> {
      const current = await endpointOf(actor, organisationId, webhookId);
      const secret = newSecret();
      const row = await repo.updateEndpoint(db.kysely, current.id, {
        secretSealed: encryptSecret(key, secret, sealContext(current.id)),
        updatedAt: nowIso(),
      });
      if (!row) throw notFound('Webhook');
      return { ...view(row), secret };
    },

    /** Queues a `webhook.test` event to this endpoint only (whatever its status); answers its delivery. */
    async test(actor: Actor, organisationId: number, webhookId: number): Promise<Delivery> {
      const endpoint = await endpointOf(actor, organisationId, webhookId);
      const { count, resetInSeconds } = await store.hit(`webhook-test:${endpoint.id}`, 60);
      if (count > TEST_PINGS_PER_MINUTE)
        throw new DomainError(
          'RATE_LIMITED',
          `At most ${TEST_PINGS_PER_MINUTE} test pings a minute per endpoint; try again in ${resetInSeconds} s`,
          undefined,
          resetInSeconds,
        );
      const now = nowIso();
      const eventId = `test_${randomBytes(12).toString('hex')}`;
      const event = {
        id: eventId,
        type: TEST_EVENT_TYPE,
        occurredAt: now,
        organisationId,
        userId: actor.userId,
        data: { webhookId: endpoint.id },
      };
      const row = await repo.insertDelivery({
        endpointId: endpoint.id,
        organisationId,
        eventId,
        eventType: TEST_EVENT_TYPE,
        // A ping carries no personal data: nobody's delivery for privacy.
        userId: null,
        payload: JSON.stringify(event),
        status: 'pending',
        nextAttemptAt: now,
        retryUntil: now,
        createdAt: now,
        updatedAt: now,
      });
      await wakeDelivery();
      return deliveryView(row);
    },

    async deliveries(
      actor: Actor,
      organisationId: number,
      webhookId: number,
      query: DeliveriesQuery,
    ): Promise<DeliveryPage> {
      const endpoint = await endpointOf(actor, organisationId, webhookId);
      let before: number | null = null;
      if (query.cursor !== undefined) {
        const decoded = decodeCursor(query.cursor);
        if (decoded?.length !== 1 || typeof decoded[0] !== 'number') throw invalidCursor();
        before = decoded[0];
      }
      const rows = await repo.pageDeliveries(endpoint.id, before, query.limit + 1);
      const items = rows.slice(0, query.limit).map(deliveryView);
      const nextCursor = rows.length > query.limit ? encodeCursor([items[items.length - 1]!.id]) : null;
      return { items, nextCursor };
    },

    /** Sends a delivery again (failed, succeeded or waiting), with a fresh 3-day window. */
    async retry(
      actor: Actor,
      organisationId: number,
      webhookId: number,
      deliveryId: number,
    ): Promise<Delivery> {
      const endpoint = await endpointOf(actor, organisationId, webhookId);
      const found = await repo.findDelivery(organisationId, deliveryId);
      if (!found || found.endpointId !== endpoint.id) throw notFound('Delivery');
      const now = Date.now();
      const row = await repo.requeue(
        found.id,
        new Date(now).toISOString(),
        new Date(now + (found.eventType === TEST_EVENT_TYPE ? 0 : RETRY_WINDOW_MS)).toISOString(),
      );
      if (!row)
        throw conflict('CONFLICT', 'An attempt at this delivery is in flight; try again once it ends');
      await wakeDelivery();
      return deliveryView(row);
    },

    /** Dispatches new outbox events into deliveries (what the dispatch job runs). */
    dispatch,
    /** Sends the deliveries due now (what the delivery job runs); answers how many were attempted. */
    deliverDue,
    /** Deletes deliveries older than 30 days at `now`. */
    purge,
    /** Starts no attempt more; resolves once those in flight have ended (the app's close). */
    close: () => lanes.close(),
  };
}
