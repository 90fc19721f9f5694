import { randomUUID } from 'node:crypto';
import { inTransaction } from '../../db/database.js';
import { decryptSecret } from '../../lib/crypto.js';
import { nowIso } from '../../lib/time.js';
import type { WebhooksContext } from './context.js';
import { createLanes, type LaneTarget } from './lanes.js';
import type { DeliveryRow, EndpointRow } from './repo.js';
import { backoffMs, RETRY_WINDOW_MS } from './retry-schedule.js';
import { TEST_EVENT_TYPE } from './schemas.js';
import { sealContext } from './secrets.js';
import { type SendOutcome, sendSigned } from './sender.js';
import { webhookView } from './views.js';

/**
 * How long a claimed attempt is nobody else's: well past the send timeout (at most 10 s), so
 * a lease runs out only when its instance died mid-attempt (then another sends it again).
 */
const LEASE_MS = 60_000;
/** Attempts in flight per endpoint, across instances (DECISIONS.md "What the review found, decided"). */
export const IN_FLIGHT_PER_ENDPOINT = 2;
/**
 * Deliveries one lane claims at once and sends one after another: the claim's round trip is
 * paid once per batch. A busy service answers every round trip late (its requests come first),
 * and an endpoint's two lanes could not keep up with 200 events a second paying one per attempt.
 */
const CLAIM_BATCH = 10;
/** Room left in a lease for one more attempt of the batch: a send's timeout and this margin. */
const LEASE_MARGIN_MS = 5_000;
/**
 * Requests in flight per instance. One organisation holds at most 40 (20 endpoints, 2 each),
 * so it takes five organisations' endpoints that never answer to fill it; past it, turns go
 * round-robin by organisation (lanes.ts).
 */
const LANES_PER_INSTANCE = 200;

/** The sending: this instance's lanes, and the attempts they make. */
export interface Sending {
  deliverDue(): Promise<number>;
  /** Starts these endpoints' lanes on this instance. */
  wake(targets: LaneTarget[]): void;
  close(): Promise<void>;
}

/** Attempts at claimed deliveries, their outcomes recorded, and the endpoints failing 3 days disabled. */
export function createSending(ctx: WebhooksContext): Sending {
  const { db, config, log, outbox, repo } = ctx;
  const allowPrivate = config.webhookAllowPrivate;
  const key = config.encryptionKey;

  /** One attempt at a claimed delivery: the signed request and what came of it. */
  function send(row: DeliveryRow, endpoint: EndpointRow): Promise<SendOutcome> {
    return sendSigned(
      {
        url: endpoint.url,
        messageId: row.eventId,
        secret: decryptSecret(key, endpoint.secretSealed, sealContext(endpoint.id)),
        body: row.payload,
        at: new Date(),
      },
      { allowPrivate, timeoutMs: config.webhookTimeoutMs },
    );
  }

  /** An attempt's outcome recorded (if the lease is still ours), and the endpoint's health with it. */
  async function record(row: DeliveryRow, endpoint: EndpointRow, outcome: SendOutcome): Promise<void> {
    const lease = row.claimedUntil!;
    const isTest = row.eventType === TEST_EVENT_TYPE;
    const at = nowIso();
    if (outcome.ok) {
      await repo.recordAttempt(row.id, lease, {
        status: 'succeeded',
        lastStatusCode: outcome.statusCode,
        lastError: null,
        nextAttemptAt: null,
        at,
      });
      // As read at the claim: a failure recorded since is cleared by the next success. The
      // claim's row is shared by its batch, so only the batch's first success writes.
      if (!isTest && endpoint.failingSince !== null) {
        endpoint.failingSince = null;
        await repo.markHealthy(endpoint.id);
      }
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
          data: webhookView(row),
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

  /**
   * Claims up to `size` of the endpoint's due deliveries, if it may have one more lane in
   * flight, and sends them one after another: answers how many attempts it made (0: none it
   * may take) and whether the last failed.
   * A success is recorded while the next attempt runs; a failure is recorded before anything
   * else (it may disable the endpoint) and ends the batch. The batch ends early, its rest let
   * go, when the lease has no room for another attempt or `handOn` says others wait for a lane.
   */
  async function sendBatch(
    endpointId: number,
    size: number,
    handOn: () => boolean,
  ): Promise<{ attempts: number; failed: boolean }> {
    const now = Date.now();
    const leaseUntil = now + LEASE_MS;
    const slot = randomUUID();
    const claimed = await repo.claimBatch({
      endpointId,
      now: new Date(now).toISOString(),
      leaseUntil: new Date(leaseUntil).toISOString(),
      slot,
      inFlightMax: IN_FLIGHT_PER_ENDPOINT,
      batch: size,
    });
    if (!claimed) return { attempts: 0, failed: false };
    const { deliveries, endpoint } = claimed;
    const recording: Promise<void>[] = [];
    let made = 0;
    try {
      for (const row of deliveries) {
        const roomLeft = Date.now() + config.webhookTimeoutMs + LEASE_MARGIN_MS < leaseUntil;
        if (made > 0 && (!roomLeft || handOn())) break;
        const outcome = await send(row, endpoint);
        made += 1;
        if (outcome.ok) {
          // Caught at once, not when awaited: a rejection left unhandled while the next
          // attempt runs would end the process. Unrecorded, the delivery is sent again once
          // its lease runs out (at least once).
          recording.push(
            record(row, endpoint, outcome).catch((error: unknown) =>
              log?.warn({ err: error, webhookId: endpointId }, 'webhook attempt not recorded'),
            ),
          );
          continue;
        }
        await repo.release(unsent(deliveries, made), row.claimedUntil!, slot);
        await record(row, endpoint, outcome);
        return { attempts: made, failed: true };
      }
      await repo.release(unsent(deliveries, made), deliveries[0]!.claimedUntil!, slot);
      return { attempts: made, failed: false };
    } finally {
      await Promise.all(recording);
    }
  }

  const lanes = createLanes({
    perEndpoint: IN_FLIGHT_PER_ENDPOINT,
    capacity: LANES_PER_INSTANCE,
    batch: CLAIM_BATCH,
    sendBatch,
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

  return { deliverDue, wake: (targets) => lanes.wake(targets), close: () => lanes.close() };
}

/** The ids of a batch's deliveries after the first `sent`. */
const unsent = (deliveries: readonly DeliveryRow[], sent: number): number[] =>
  deliveries.slice(sent).map((row) => row.id);
