import { inTransaction } from '../../db/database.js';
import { decryptSecret } from '../../lib/crypto.js';
import { nowIso } from '../../lib/time.js';
import type { WebhooksContext } from './context.js';
import { createLanes, type LaneTarget } from './lanes.js';
import type { DeliveryRow, EndpointRow } from './repo.js';
import { backoffMs, RETRY_WINDOW_MS } from './retry-schedule.js';
import { TEST_EVENT_TYPE } from './schemas.js';
import { sealContext } from './secrets.js';
import { sendSigned } from './sender.js';
import { webhookView } from './views.js';

/**
 * How long a claimed attempt is nobody else's: well past the send timeout (at most 10 s), so
 * a lease runs out only when its instance died mid-attempt (then another sends it again).
 */
const LEASE_MS = 60_000;
/** Attempts in flight per endpoint, across instances (DECISIONS.md "What the review found, decided"). */
export const IN_FLIGHT_PER_ENDPOINT = 2;
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

  return { deliverDue, wake: (targets) => lanes.wake(targets), close: () => lanes.close() };
}
