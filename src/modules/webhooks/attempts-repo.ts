import { type ExpressionBuilder, sql } from 'kysely';
import type { Db } from '../../db/database.js';
import type { Database } from '../../db/types.js';
import type { LaneTarget } from './lanes.js';
import { TEST_EVENT_TYPE } from './schemas.js';
import type { DeliveryRow, EndpointRow, WebhookDeliveriesTable } from './tables.js';

// Literals, not parameters: the partial indexes of migration 0051 match only a literal.
const PENDING = sql.lit('pending' as const);
const ACTIVE = sql.lit('active' as const);
const TEST = sql.lit(TEST_EVENT_TYPE);

/** The sending's side of deliveries: which endpoints have one due, claiming the next, recording its outcome. */
export function createAttemptsRepo(db: Db) {
  const pg = db.dialect === 'postgres';
  return {
    /**
     * Endpoints with a delivery they may send now (pending, its time come, no lease running;
     * an active endpoint's, or a test ping whatever the endpoint's status): the minute's scan
     * for retries come due and leases of dead instances run out. One probe of an index per
     * endpoint, however long a queue is.
     */
    async dueEndpoints(now: string): Promise<LaneTarget[]> {
      const unleased = (eb: ExpressionBuilder<Database, 'webhookDeliveries'>) =>
        eb.or([eb('claimedUntil', 'is', null), eb('claimedUntil', '<=', now)]);
      return db.kysely
        .selectFrom('webhookEndpoints as e')
        .select(['e.id as endpointId', 'e.organisationId'])
        .where((eb) =>
          eb.or([
            eb.and([
              eb('e.status', '=', ACTIVE),
              eb.exists(
                eb
                  .selectFrom('webhookDeliveries')
                  .select('id')
                  .whereRef('endpointId', '=', 'e.id')
                  .where('status', '=', PENDING)
                  .where('nextAttemptAt', '<=', now)
                  .where(unleased),
              ),
            ]),
            // Test pings, whatever the status: few, read through their own index.
            eb(
              'e.id',
              'in',
              eb
                .selectFrom('webhookDeliveries')
                .select('endpointId')
                .where('status', '=', PENDING)
                .where('eventType', '=', TEST)
                .where('nextAttemptAt', '<=', now)
                .where(unleased),
            ),
          ]),
        )
        .execute();
    },

    /**
     * Claims the endpoint's next due delivery until `leaseUntil`, unless `inFlightMax` of its
     * attempts are in flight already (leases running, on any instance): the delivery and the
     * endpoint, or undefined. Claims for one endpoint take turns and each counts the leases of
     * those before it: on PostgreSQL in `webhook_claim_next` (migration 0061, one round trip
     * with the endpoint's row locked inside it), on SQLite in one statement, atomic there.
     */
    async claimNext(
      endpointId: number,
      now: string,
      leaseUntil: string,
      inFlightMax: number,
    ): Promise<{ delivery: DeliveryRow; endpoint: EndpointRow } | undefined> {
      if (pg) {
        const claimed = sql<DeliveryRow>`webhook_claim_next(${endpointId}, ${now}, ${leaseUntil}, ${inFlightMax})`;
        const row = await db.kysely
          .selectFrom(claimed.as('d'))
          .innerJoin('webhookEndpoints as e', 'e.id', 'd.endpointId')
          .selectAll('d')
          .select(sql<unknown>`to_jsonb(e)`.as('endpoint'))
          .executeTakeFirst();
        if (!row) return undefined;
        const { endpoint, ...delivery } = row;
        return { delivery: delivery as DeliveryRow, endpoint: endpointOfJson(endpoint) };
      }
      const endpoint = await db.kysely
        .selectFrom('webhookEndpoints')
        .selectAll()
        .where('id', '=', endpointId)
        .executeTakeFirst();
      if (!endpoint) return undefined;
      const unleased = (eb: ExpressionBuilder<Database, 'webhookDeliveries'>) =>
        eb.or([eb('claimedUntil', 'is', null), eb('claimedUntil', '<=', now)]);
      let next = db.kysely
        .selectFrom('webhookDeliveries')
        .select('id')
        .where('endpointId', '=', endpointId)
        .where('status', '=', PENDING)
        .where('nextAttemptAt', '<=', now)
        .where(unleased);
      // Paused or disabled: only a test ping goes.
      if (endpoint.status !== 'active') next = next.where('eventType', '=', TEST);
      const inFlight = db.kysely
        .selectFrom('webhookDeliveries')
        .select((eb) => eb.fn.countAll<number>().as('count'))
        .where('endpointId', '=', endpointId)
        .where('claimedUntil', '>', now);
      const delivery = await db.kysely
        .updateTable('webhookDeliveries')
        .set({ claimedUntil: leaseUntil })
        .where('id', '=', next.orderBy('nextAttemptAt').orderBy('id').limit(1))
        .where('status', '=', PENDING)
        .where(unleased)
        .where(inFlight, '<', inFlightMax)
        .returningAll()
        .executeTakeFirst();
      return delivery && { delivery, endpoint };
    },

    /** Records an attempt's outcome, if the lease is still the caller's; true when it was. */
    async recordAttempt(
      id: number,
      lease: string,
      outcome: Pick<WebhookDeliveriesTable, 'status' | 'lastStatusCode' | 'lastError' | 'nextAttemptAt'> & {
        at: string;
      },
    ): Promise<boolean> {
      const result = await db.kysely
        .updateTable('webhookDeliveries')
        .set((eb) => ({
          status: outcome.status,
          attempts: eb('attempts', '+', 1),
          lastStatusCode: outcome.lastStatusCode,
          lastError: outcome.lastError,
          nextAttemptAt: outcome.nextAttemptAt,
          claimedUntil: null,
          updatedAt: outcome.at,
        }))
        .where('id', '=', id)
        .where('claimedUntil', '=', lease)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) > 0;
    },
  };
}

export type AttemptsRepo = ReturnType<typeof createAttemptsRepo>;

/**
 * An endpoint row as PostgreSQL's `to_jsonb` writes it, its keys camel-cased by the database's
 * plugin as every row's are: the timestamps are JSON text there, written as the driver writes them.
 */
function endpointOfJson(json: unknown): EndpointRow {
  const row = json as EndpointRow;
  const iso = (value: string | null) => (value === null ? null : new Date(value).toISOString());
  return {
    ...row,
    failingSince: iso(row.failingSince),
    disabledAt: iso(row.disabledAt),
    createdAt: iso(row.createdAt)!,
    updatedAt: iso(row.updatedAt)!,
  };
}
