import { sql } from 'kysely';
import { compiledOnce, type Executor, precompiled } from '../../db/database.js';
import type { UsageKind } from './tables.js';

/** Amounts of each kind of daily limit. */
export type UsageTotals = Record<UsageKind, number>;

/** What the agent's uses add up to in the 24 hours before `since`; null before the first count. */
export interface UsageWindow {
  since: string | null;
  used: UsageTotals;
}

/** One unit a call would use of a daily limit. */
export interface LimitUse {
  kind: UsageKind;
  amount: number;
  limit: number;
}

/** What `agent_usage_reserve_calls` answers of a call: the inserted ids, or the refusing kind, its limit and when it frees. */
type ReserveRow = {
  reservedIds: number[] | null;
  refusedKind: UsageKind | null;
  refusedLimit: number | null;
  freesAt: string | null;
};

/** The uses counted against agents' daily limits (`agent_usage`) and each agent's window of them. */
export function createAgentUsageRepo(db: Executor) {
  // Counting a daily limit (every call a limit counts): the window's row, made when missing and
  // locked; the uses between two instants, by kind; a use; the window moved.
  const lockWindowRow = precompiled(() =>
    db
      .insertInto('agentUsageWindows')
      .values({ agentId: 0 })
      .onConflict((oc) =>
        oc.column('agentId').doUpdateSet((eb) => ({ since: eb.ref('agentUsageWindows.since') })),
      )
      .returning(['since', 'bookingUsed', 'cancellationUsed', 'spendUsed']),
  );
  const selectUseSums = precompiled(() =>
    db
      .selectFrom('agentUsage')
      .select((eb) => ['kind', eb.fn.sum<number>('amount').as('amount')])
      .where('agentId', '=', 0)
      .where('createdAt', '>', '')
      .where('createdAt', '<=', '')
      .groupBy('kind'),
  );
  const updateWindowRow = compiledOnce(() =>
    db
      .updateTable('agentUsageWindows')
      .set({ since: '', bookingUsed: 0, cancellationUsed: 0, spendUsed: 0 })
      .where('agentId', '=', 0),
  );
  const insertUse = precompiled(() =>
    db
      .insertInto('agentUsage')
      .values({ agentId: 0, kind: 'booking', amount: 0, createdAt: '' })
      .returning('id'),
  );

  // PostgreSQL: the functions of migration 0079, each one autocommitted statement.
  // Spelled `with ... select` rather than a lone `select`, which the read-replica routing takes
  // for a read (src/db/read-replica.ts): these write, so they go to the primary and count as a write.
  const reserveCallsStatement = compiledOnce(() => {
    const p = Array.from({ length: 4 }, () => null as unknown);
    const query = sql<ReserveRow>`with counted as (select * from agent_usage_reserve_calls(${p[0]},
        ${p[1]}::jsonb, ${p[2]}::timestamptz, ${p[3]}::timestamptz) with ordinality)
      select reserved_ids, refused_kind, refused_limit, frees_at from counted order by ordinality`;
    return { compile: () => query.compile(db) };
  });
  const releaseAtOnceStatement = compiledOnce(() => {
    const p = Array.from({ length: 2 }, () => null as unknown);
    const query = sql`with released as (select agent_usage_release(${p[0]}, ${p[1]}::integer[]))
      select 1 from released`;
    return { compile: () => query.compile(db) };
  });

  return {
    /**
     * PostgreSQL: counts the uses of each of `calls` (one agent's) against the agent's window,
     * in order, in one statement, its own transaction: the window's row is locked for that
     * statement and its commit only. `since` is `now` less a day. One row a call, in order.
     */
    async reserveCalls(
      agentId: number,
      calls: readonly (readonly LimitUse[])[],
      since: string,
      now: string,
    ): Promise<ReserveRow[]> {
      const { rows } = await reserveCallsStatement(db, agentId, JSON.stringify(calls), since, now);
      return rows;
    },

    /** PostgreSQL: gives the uses `ids` of the agent back in one statement, its own transaction. */
    async releaseAtOnce(agentId: number, ids: readonly number[]): Promise<void> {
      await releaseAtOnceStatement(db, agentId, ids);
    },

    /**
     * Counting of daily limits in the transaction `trx`, with this repo's statements compiled
     * once (a repo built per transaction would compile them on every counted call).
     */
    counting(trx: Executor) {
      return {
        /**
         * The agent's usage window, made when it has none, and locked: a write to its row holds
         * the row lock on PostgreSQL until the transaction ends, and takes SQLite's write lock
         * before anything is read, so no other instance counts between this read and its writes.
         */
        async lockWindow(agentId: number): Promise<UsageWindow> {
          const [row] = await lockWindowRow(trx, agentId);
          return {
            since: row!.since,
            used: { booking: row!.bookingUsed, cancellation: row!.cancellationUsed, spend: row!.spendUsed },
          };
        },

        /** What the uses made after `after` and up to `upTo` add up to, by kind. */
        async sumUses(agentId: number, after: string, upTo: string): Promise<UsageTotals> {
          const totals: UsageTotals = { booking: 0, cancellation: 0, spend: 0 };
          for (const row of await selectUseSums(trx, agentId, after, upTo))
            totals[row.kind] = Number(row.amount);
          return totals;
        },

        async saveWindow(agentId: number, window: UsageWindow & { since: string }): Promise<void> {
          const { booking, cancellation, spend } = window.used;
          await updateWindowRow(trx, window.since, booking, cancellation, spend, agentId);
        },

        /** The uses of one kind since `since`, oldest first: read only when a limit refuses. */
        usageSince(agentId: number, kind: UsageKind, since: string) {
          return trx
            .selectFrom('agentUsage')
            .select(['id', 'amount', 'createdAt'])
            .where('agentId', '=', agentId)
            .where('kind', '=', kind)
            .where('createdAt', '>', since)
            .orderBy('createdAt')
            .orderBy('id')
            .execute();
        },

        async insertUsage(agentId: number, kind: UsageKind, amount: number, now: string): Promise<number> {
          const [row] = await insertUse(trx, agentId, kind, amount, now);
          return row!.id;
        },

        /** Deletes uses of the agent; answers what they were. */
        deleteUsage(agentId: number, ids: readonly number[]) {
          return trx
            .deleteFrom('agentUsage')
            .where('agentId', '=', agentId)
            .where('id', 'in', ids)
            .returning(['kind', 'amount', 'createdAt'])
            .execute();
        },
      };
    },

    async purgeUsage(before: string): Promise<void> {
      await db.deleteFrom('agentUsage').where('createdAt', '<', before).execute();
    },
  };
}

export type AgentUsageRepo = ReturnType<typeof createAgentUsageRepo>;
/** The counting statements of one transaction. */
export type UsageCounting = ReturnType<AgentUsageRepo['counting']>;
