import { sql } from 'kysely';
import type { Db, Executor } from '../../db/database.js';
import type { EndpointRow, WebhookEndpointsTable } from './tables.js';

/** First key of the advisory lock that serialises endpoint creation per organisation ("whep"). */
const ENDPOINT_LIMIT_LOCK = 0x77686570;

/** Webhook endpoints: what their management reads and writes, and their health as the sending finds it. */
export function createEndpointsRepo(db: Db) {
  const pg = db.dialect === 'postgres';
  return {
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
  };
}

export type EndpointsRepo = ReturnType<typeof createEndpointsRepo>;
