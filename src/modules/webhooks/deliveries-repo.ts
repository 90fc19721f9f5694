import type { Db, Executor } from '../../db/database.js';
import type { DeliveryRow, NewDelivery } from './tables.js';

/** Deliveries as their endpoint's management reads and changes them, their failing and their purge. */
export function createDeliveriesRepo(db: Db) {
  return {
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

export type DeliveriesRepo = ReturnType<typeof createDeliveriesRepo>;
