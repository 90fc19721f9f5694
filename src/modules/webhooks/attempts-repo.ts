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
     * Claims up to `batch` of the endpoint's next due deliveries for one lane, leased until
     * `leaseUntil` under `slot`, unless `inFlightMax` lanes hold a claim of it already (leases
     * running, on any instance): the deliveries in the order they are due and the endpoint,
     * or undefined. Claims for one endpoint take turns and each counts the claims before it:
     * on PostgreSQL in `webhook_claim_batch` (migration 0063, one round trip with the
     * endpoint's row locked inside it), on SQLite in one statement, atomic there.
     */
    async claimBatch(claim: {
      endpointId: number;
      now: string;
      leaseUntil: string;
      slot: string;
      inFlightMax: number;
      batch: number;
    }): Promise<{ deliveries: DeliveryRow[]; endpoint: EndpointRow } | undefined> {
      const { endpointId, now, leaseUntil, slot, inFlightMax, batch } = claim;
      if (pg) {
        const claimed = sql<DeliveryRow>`webhook_claim_batch(${endpointId}, ${now}, ${leaseUntil}, ${slot}, ${inFlightMax}, ${batch})`;
        const rows = await db.kysely
          .selectFrom(claimed.as('d'))
          .innerJoin('webhookEndpoints as e', 'e.id', 'd.endpointId')
          .selectAll('d')
          .select(sql<unknown>`to_jsonb(e)`.as('endpoint'))
          .execute();
        if (rows.length === 0) return undefined;
        const endpoint = endpointOfJson(rows[0]!.endpoint);
        const deliveries = rows.map(({ endpoint: _endpoint, ...delivery }) => delivery as DeliveryRow);
        return { deliveries: inDueOrder(deliveries), endpoint };
      }
      const endpoint = await db.kysely
        .selectFrom('webhookEndpoints')
        .selectAll()
        .where('id', '=', endpointId)
        .executeTakeFirst();
      if (!endpoint) return undefined;
      const unleased = (eb: ExpressionBuilder<Database, 'webhookDeliveries'>) =>
        eb.or([eb('claimedUntil', 'is', null), eb('claimedUntil', '<=', now)]);
      let due = db.kysely
        .selectFrom('webhookDeliveries')
        .select('id')
        .where('endpointId', '=', endpointId)
        .where('status', '=', PENDING)
        .where('nextAttemptAt', '<=', now)
        .where(unleased);
      // Paused or disabled: only a test ping goes.
      if (endpoint.status !== 'active') due = due.where('eventType', '=', TEST);
      const claimsInFlight = db.kysely
        .selectFrom('webhookDeliveries')
        .select(sql<number>`count(distinct coalesce(claim_slot, id))`.as('count'))
        .where('endpointId', '=', endpointId)
        .where('claimedUntil', '>', now);
      const deliveries = await db.kysely
        .updateTable('webhookDeliveries')
        .set({ claimedUntil: leaseUntil, claimSlot: slot })
        .where('id', 'in', due.orderBy('nextAttemptAt').orderBy('id').limit(batch))
        .where('status', '=', PENDING)
        .where(unleased)
        .where(claimsInFlight, '<', inFlightMax)
        .returningAll()
        .execute();
      return deliveries.length > 0 ? { deliveries: inDueOrder(deliveries), endpoint } : undefined;
    },

    /** Lets a claim's unsent deliveries go (the lane hands its turn on): due again for any lane. */
    async release(ids: readonly number[], lease: string, slot: string): Promise<void> {
      if (ids.length === 0) return;
      await db.kysely
        .updateTable('webhookDeliveries')
        .set({ claimedUntil: null, claimSlot: null })
        .where('id', 'in', [...ids])
        .where('claimedUntil', '=', lease)
        .where('claimSlot', '=', slot)
        .execute();
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
          claimSlot: null,
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

/** Deliveries in the order they came due (the order an update's `returning` does not promise). */
const inDueOrder = (rows: DeliveryRow[]): DeliveryRow[] =>
  rows.sort((a, b) =>
    a.nextAttemptAt! < b.nextAttemptAt! ? -1 : a.nextAttemptAt! > b.nextAttemptAt! ? 1 : a.id - b.id,
  );

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
