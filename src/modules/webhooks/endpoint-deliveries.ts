import { randomBytes } from 'node:crypto';
import type { Actor } from '../../lib/actor.js';
import { decodeCursor, encodeCursor } from '../../lib/cursor.js';
import { conflict, DomainError, invalidCursor, notFound } from '../../lib/errors.js';
import { nowIso } from '../../lib/time.js';
import type { WebhooksContext } from './context.js';
import { endpointOf } from './endpoints.js';
import { wakeDelivery } from './jobs.js';
import { RETRY_WINDOW_MS } from './retry-schedule.js';
import { type DeliveriesQuery, type Delivery, type DeliveryPage, TEST_EVENT_TYPE } from './schemas.js';
import type { WebhooksService } from './service.js';
import { deliveryView } from './views.js';

/** Test pings per endpoint a minute (DECISIONS.md "What the review found, decided"). */
export const TEST_PINGS_PER_MINUTE = 10;

/** An endpoint's deliveries as its managers see them: the test ping, the log, a manual retry. */
export function createEndpointDeliveries(
  ctx: WebhooksContext,
): Pick<WebhooksService, 'test' | 'deliveries' | 'retry'> {
  const { jobs, repo, store } = ctx;

  return {
    async test(actor: Actor, organisationId: number, webhookId: number): Promise<Delivery> {
      const endpoint = await endpointOf(ctx, actor, organisationId, webhookId);
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
      await wakeDelivery(jobs);
      return deliveryView(row);
    },

    async deliveries(
      actor: Actor,
      organisationId: number,
      webhookId: number,
      query: DeliveriesQuery,
    ): Promise<DeliveryPage> {
      const endpoint = await endpointOf(ctx, actor, organisationId, webhookId);
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

    async retry(
      actor: Actor,
      organisationId: number,
      webhookId: number,
      deliveryId: number,
    ): Promise<Delivery> {
      const endpoint = await endpointOf(ctx, actor, organisationId, webhookId);
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
      await wakeDelivery(jobs);
      return deliveryView(row);
    },
  };
}
