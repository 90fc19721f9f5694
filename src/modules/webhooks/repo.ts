import { type ExpressionBuilder, type Generated, type Selectable, sql } from 'kysely';
import type { JsonText, Timestamp } from '../../db/column-types.js';
import type { Db, Executor } from '../../db/database.js';
import type { Database } from '../../db/types.js';
import type { LaneTarget } from './lanes.js';
import { type DeliveryStatus, TEST_EVENT_TYPE, type WebhookStatus } from './schemas.js';

export interface WebhookEndpointsTable {
  id: Generated<number>;
  organisationId: number;
  url: string;
  /** JSON array of event types. */
  events: JsonText;
  description: string | null;
  status: WebhookStatus;
  /** `encryptSecret(ENCRYPTION_KEY, secret, 'webhook:<id>')`: read back only to sign. */
  secretSealed: string;
  failingSince: Timestamp | null;
  disabledAt: Timestamp | null;
  createdAt: Timestamp;
  updatedAt: Timestamp;
}

export interface WebhookDispatchPositionsTable {
  consumer: string;
  lastEventId: string | null;
  updatedAt: Timestamp;
}

export interface WebhookDeliveriesTable {
  id: Generated<number>;
  endpointId: number;
  organisationId: number;
  eventId: string;
  eventType: string;
  userId: number | null;
  /** The exact body every attempt sends. */
  payload: JsonText;
  status: DeliveryStatus;
  attempts: Generated<number>;
  lastStatusCode: number | null;
  lastError: string | null;
  nextAttemptAt: Timestamp | null;
  /** Automatic retries stop after this (3 days after creation or a manual retry). */
  retryUntil: Timestamp;
  /** The lease of the attempt in flight: nobody else claims it before then. */
  claimedUntil: Timestamp | null;
  createdAt: Timestamp;
  updatedAt: Timestamp;
}

export interface WebhookTables {
  webhookEndpoints: WebhookEndpointsTable;
  webhookDispatchPositions: WebhookDispatchPositionsTable;
  webhookDeliveries: WebhookDeliveriesTable;
}

export type EndpointRow = Selectable<WebhookEndpointsTable>;
export type DeliveryRow = Selectable<WebhookDeliveriesTable>;
export type NewDelivery = Omit<
  WebhookDeliveriesTable,
  'id' | 'attempts' | 'lastStatusCode' | 'lastError' | 'claimedUntil'
>;

/** The dispatcher's row in webhook_dispatch_positions. */
const DISPATCHER = 'dispatcher';
// Literals, not parameters: the partial indexes of migration 0051 match only a literal.
const PENDING = sql.lit('pending' as const);
const ACTIVE = sql.lit('active' as const);
const TEST = sql.lit(TEST_EVENT_TYPE);
/** First key of the advisory lock that serialises endpoint creation per organisation ("whep"). */
const ENDPOINT_LIMIT_LOCK = 0x77686570;

export function createWebhooksRepo(db: Db) {
  const pg = db.dialect === 'postgres';

  let positionMade = false;
  return {
    // ---- endpoints ----

    /**
     * PostgreSQL: holds creation for this organisation to the end of the transaction, so
     * two concurrent creates cannot both count 19 and make 21. SQLite has one writer.
     */
    async lockOrganisationEndpoints(trx: Executor, organisationId: number): Promise<void> {
      if (pg)
        await sql`select pg_advisory_xact_lock(${sql.lit(ENDPOINT_LIMIT_LOCK)}, ${organisationId})`.execute(
          trx,
        );
    },

    async countEndpoints(executor: Executor, organisationId: number): Promise<number> {
      const row = await executor
        .selectFrom('webhookEndpoints')
        .select((eb) => eb.fn.countAll<number>().as('count'))
        .where('organisationId', '=', organisationId)
        .executeTakeFirstOrThrow();
      return Number(row.count);
    },

    async insertEndpoint(
      executor: Executor,
      values: Omit<WebhookEndpointsTable, 'id' | 'failingSince' | 'disabledAt'>,
    ): Promise<EndpointRow> {
      return executor
        .insertInto('webhookEndpoints')
        .values({ ...values, failingSince: null, disabledAt: null })
        .returningAll()
        .executeTakeFirstOrThrow();
    },

    async listEndpoints(organisationId: number): Promise<EndpointRow[]> {
      return db.kysely
        .selectFrom('webhookEndpoints')
        .selectAll()
        .where('organisationId', '=', organisationId)
        .orderBy('id')
        .execute();
    },

    async findEndpoint(
      executor: Executor,
      organisationId: number,
      id: number,
    ): Promise<EndpointRow | undefined> {
      return executor
        .selectFrom('webhookEndpoints')
        .selectAll()
        .where('organisationId', '=', organisationId)
        .where('id', '=', id)
        .executeTakeFirst();
    },

    async updateEndpoint(
      executor: Executor,
      id: number,
      patch: Partial<Omit<WebhookEndpointsTable, 'id' | 'organisationId' | 'createdAt'>>,
    ): Promise<EndpointRow | undefined> {
      return executor
        .updateTable('webhookEndpoints')
        .set(patch)
        .where('id', '=', id)
        .returningAll()
        .executeTakeFirst();
    },

    async deleteEndpoint(organisationId: number, id: number): Promise<boolean> {
      const result = await db.kysely
        .deleteFrom('webhookEndpoints')
        .where('organisationId', '=', organisationId)
        .where('id', '=', id)
        .executeTakeFirst();
      return Number(result.numDeletedRows) > 0;
    },

    /** Whether any organisation has an active endpoint (none: the dispatcher has nothing to do). */
    async anyActiveEndpoint(): Promise<boolean> {
      const row = await db.kysely
        .selectFrom('webhookEndpoints')
        .select('id')
        .where('status', '=', 'active')
        .limit(1)
        .executeTakeFirst();
      return row !== undefined;
    },

    /** Active endpoints of these organisations (the dispatcher's targets). */
    async activeEndpoints(organisationIds: readonly number[]): Promise<EndpointRow[]> {
      if (organisationIds.length === 0) return [];
      return db.kysely
        .selectFrom('webhookEndpoints')
        .selectAll()
        .where('organisationId', 'in', [...organisationIds])
        .where('status', '=', 'active')
        .execute();
    },

    /** A failure: remembers when failing began (kept while it goes on). */
    async markFailing(id: number, at: string): Promise<EndpointRow | undefined> {
      await db.kysely
        .updateTable('webhookEndpoints')
        .set({ failingSince: at })
        .where('id', '=', id)
        .where('failingSince', 'is', null)
        .execute();
      return db.kysely.selectFrom('webhookEndpoints').selectAll().where('id', '=', id).executeTakeFirst();
    },

    async markHealthy(id: number): Promise<void> {
      await db.kysely
        .updateTable('webhookEndpoints')
        .set({ failingSince: null })
        .where('id', '=', id)
        .where('failingSince', 'is not', null)
        .execute();
    },

    /** Disables an active or paused endpoint; answers it when this call did (once across instances). */
    disable(executor: Executor, id: number, at: string): Promise<EndpointRow | undefined> {
      return executor
        .updateTable('webhookEndpoints')
        .set({ status: 'disabled', disabledAt: at, updatedAt: at })
        .where('id', '=', id)
        .where('status', '!=', 'disabled')
        .returningAll()
        .executeTakeFirst();
    },

    // ---- the dispatcher's position ----

    /** The dispatcher's position (null: nothing dispatched yet), its row made on first use. */
    async readPosition(now: string): Promise<{ position: string | null; anyActiveEndpoint: boolean }> {
      // The row is made once per process (a write on every run would cost every run a write).
      if (!positionMade) {
        await db.kysely
          .insertInto('webhookDispatchPositions')
          .values({ consumer: DISPATCHER, lastEventId: null, updatedAt: now })
          .onConflict((oc) => oc.column('consumer').doNothing())
          .execute();
        positionMade = true;
      }
      // With whether any endpoint is active, in the same round trip: each waits for a pooled
      // connection behind the requests of the moment.
      const row = await db.kysely
        .selectFrom('webhookDispatchPositions')
        .select((eb) => [
          'lastEventId',
          eb
            .exists(eb.selectFrom('webhookEndpoints').select('id').where('status', '=', 'active'))
            .as('anyActive'),
        ])
        .where('consumer', '=', DISPATCHER)
        .executeTakeFirstOrThrow();
      return { position: row.lastEventId, anyActiveEndpoint: Boolean(row.anyActive) };
    },

    /**
     * Moves the position from `from` to `to` if it is still at `from` (compare and set):
     * false when another dispatcher moved it first. On PostgreSQL a concurrent one waits
     * for this row and then finds it moved.
     */
    async advancePosition(trx: Executor, from: string | null, to: string, now: string): Promise<boolean> {
      const result = await trx
        .updateTable('webhookDispatchPositions')
        .set({ lastEventId: to, updatedAt: now })
        .where('consumer', '=', DISPATCHER)
        .where('lastEventId', from === null ? 'is' : '=', from)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) > 0;
    },

    // ---- deliveries ----

    /** Inserts deliveries; one that exists for its (endpoint, event) is left as it is. */
    async insertDeliveries(executor: Executor, rows: readonly NewDelivery[]): Promise<void> {
      if (rows.length === 0) return;
      await executor
        .insertInto('webhookDeliveries')
        .values([...rows])
        .onConflict((oc) => oc.columns(['endpointId', 'eventId']).doNothing())
        .execute();
    },

    /** Inserts one delivery (a test ping's, its event id new) and answers it. */
    async insertDelivery(row: NewDelivery): Promise<DeliveryRow> {
      return db.kysely.insertInto('webhookDeliveries').values(row).returningAll().executeTakeFirstOrThrow();
    },

    /** A page of an endpoint's deliveries, newest first, after delivery id `before`. */
    async pageDeliveries(endpointId: number, before: number | null, limit: number): Promise<DeliveryRow[]> {
      let q = db.kysely.selectFrom('webhookDeliveries').selectAll().where('endpointId', '=', endpointId);
      if (before !== null) q = q.where('id', '<', before);
      return q.orderBy('id', 'desc').limit(limit).execute();
    },

    async findDelivery(organisationId: number, id: number): Promise<DeliveryRow | undefined> {
      return db.kysely
        .selectFrom('webhookDeliveries')
        .selectAll()
        .where('organisationId', '=', organisationId)
        .where('id', '=', id)
        .executeTakeFirst();
    },

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

    /** A manual retry: pending now, with a fresh retry window; refused while an attempt is in flight. */
    async requeue(id: number, now: string, retryUntil: string): Promise<DeliveryRow | undefined> {
      return db.kysely
        .updateTable('webhookDeliveries')
        .set({ status: 'pending', nextAttemptAt: now, retryUntil, updatedAt: now })
        .where('id', '=', id)
        .where((eb) => eb.or([eb('claimedUntil', 'is', null), eb('claimedUntil', '<=', now)]))
        .returningAll()
        .executeTakeFirst();
    },

    /** Pending deliveries of a disabled endpoint stop: failed, nothing scheduled. */
    async failPending(executor: Executor, endpointId: number, at: string, reason: string): Promise<void> {
      await executor
        .updateTable('webhookDeliveries')
        .set({ status: 'failed', nextAttemptAt: null, lastError: reason, updatedAt: at })
        .where('endpointId', '=', endpointId)
        .where('status', '=', 'pending')
        .where((eb) => eb.or([eb('claimedUntil', 'is', null), eb('claimedUntil', '<=', at)]))
        .execute();
    },

    /** Deletes up to `limit` deliveries created before `cutoff`; answers how many. */
    async deleteBefore(cutoff: string, limit: number): Promise<number> {
      const result = await db.kysely
        .deleteFrom('webhookDeliveries')
        .where('id', 'in', (eb) =>
          eb.selectFrom('webhookDeliveries').select('id').where('createdAt', '<', cutoff).limit(limit),
        )
        .executeTakeFirst();
      return Number(result.numDeletedRows);
    },
  };
}

export type WebhooksRepo = ReturnType<typeof createWebhooksRepo>;

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
