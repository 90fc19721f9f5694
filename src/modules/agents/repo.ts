import { type Selectable, sql } from 'kysely';
import {
  committedWithOthers,
  compiledOnce,
  type Dialect,
  type Executor,
  precompiled,
} from '../../db/database.js';
import { idBefore, newestFirstPage } from '../../db/keyset.js';
import type { AgentPoliciesTable, AgentStatus, AgentsTable, UsageKind } from '../../db/tables/agents.js';
import type { AccessScope } from '../../lib/actor.js';
import type { ActivityItem, ActivityQuery, AgentKey } from './schemas.js';

export type AgentRow = Selectable<AgentsTable>;

export interface StoredPermission {
  actionKey: string;
  /** null: unrestricted within the owner's rights. */
  scope: AccessScope | null;
}

const keyColumns = ['id', 'label', 'prefix', 'createdAt', 'lastUsedAt', 'revokedAt'] as const;
const activityColumns = [
  'id',
  'actionKey',
  'outcome',
  'errorCode',
  'durationMs',
  'arguments',
  'targetIds',
  'approvalId',
  'createdAt',
] as const;

export type PolicyRow = Selectable<AgentPoliciesTable>;

/** Amounts of each kind of daily limit. */
export type UsageTotals = Record<UsageKind, number>;

/** What the agent's uses add up to in the 24 hours before `since`; null before the first count. */
export interface UsageWindow {
  since: string | null;
  used: UsageTotals;
}
/** Rows one statement of the retention purge deletes; it repeats until a batch comes back short. */
const PURGE_BATCH = 5_000;

function parseScope(text: string | null): AccessScope | null {
  return text === null ? null : (JSON.parse(text) as AccessScope);
}

/** The permissions `permissionsJson` read. */
function parsePermissions(json: string): StoredPermission[] {
  const pairs = JSON.parse(json) as Array<[string, string | null]>;
  return pairs.map(([actionKey, scope]) => ({ actionKey, scope: parseScope(scope) }));
}

/**
 * An agent's permissions as one JSON text of `[actionKey, scope]` pairs in id order, read in the
 * statement that reads the agent: the key lookup of every MCP request is then one round trip.
 */
const permissionsJson = (dialect: Dialect) =>
  dialect === 'postgres'
    ? sql<string>`(select coalesce(json_agg(json_build_array(p.action_key, p.scope) order by p.id), '[]')::text
        from agent_permissions p where p.agent_id = agents.id)`
    : sql<string>`(select json_group_array(json_array(p.action_key, p.scope))
        from (select action_key, scope from agent_permissions where agent_id = agents.id order by id) p)`;

export function createAgentRepo(db: Executor, dialect: Dialect) {
  // The lookup of every MCP request authenticated by a static key: the key, its agent, and
  // the agent's permissions, in one statement.
  const selectLiveKey = precompiled(() =>
    db
      .selectFrom('agentKeys')
      .innerJoin('agents', 'agents.id', 'agentKeys.agentId')
      .selectAll('agents')
      .select(['agentKeys.id as keyId', 'agentKeys.lastUsedAt as keyLastUsedAt'])
      .select(permissionsJson(dialect).as('permissionsJson'))
      .where('agentKeys.keyHash', '=', '')
      .where('agentKeys.revokedAt', 'is', null)
      // A literal, so the key hash stays the only parameter of the precompiled query.
      .where('agents.status', '!=', sql.lit('disabled')),
  );
  // An owner's agent with its permissions: the agent's own profile tool, and the owner's read.
  const selectOwnedWithPermissions = precompiled(() =>
    db
      .selectFrom('agents')
      .selectAll('agents')
      .select(permissionsJson(dialect).as('permissionsJson'))
      .where('agents.id', '=', 0)
      .where('agents.userId', '=', 0),
  );
  // The policy of every writing tool call.
  const selectPolicy = precompiled(() => db.selectFrom('agentPolicies').selectAll().where('agentId', '=', 0));
  const selectPermissions = precompiled(() =>
    db.selectFrom('agentPermissions').select(['actionKey', 'scope']).where('agentId', '=', 0).orderBy('id'),
  );
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
  // The record of every tool call (parameters in the order of these columns).
  const insertActivity = compiledOnce(() =>
    db.insertInto('agentActivity').values({
      agentId: 0,
      actionKey: '',
      outcome: 'ok',
      errorCode: null,
      durationMs: 0,
      arguments: null,
      targetIds: null,
      approvalId: null,
      createdAt: '',
    }),
  );

  return {
    async insert(values: {
      userId: number;
      name: string;
      description: string | null;
      permissionGroupId: string | null;
      oauthClientId: string | null;
      now: string;
    }): Promise<AgentRow> {
      const { now, ...agent } = values;
      return db
        .insertInto('agents')
        .values({
          ...agent,
          status: 'active',
          createdAt: now,
          updatedAt: now,
          lastUsedAt: null,
        })
        .returningAll()
        .executeTakeFirstOrThrow();
    },

    /** The owner's agent; another user's answers undefined, exactly like an absent one. */
    findOwned(userId: number, id: number): Promise<AgentRow | undefined> {
      return db
        .selectFrom('agents')
        .selectAll()
        .where('id', '=', id)
        .where('userId', '=', userId)
        .executeTakeFirst();
    },

    findById(id: number): Promise<AgentRow | undefined> {
      return db.selectFrom('agents').selectAll().where('id', '=', id).executeTakeFirst();
    },

    findByOAuthClient(userId: number, clientId: string): Promise<AgentRow | undefined> {
      return db
        .selectFrom('agents')
        .selectAll()
        .where('userId', '=', userId)
        .where('oauthClientId', '=', clientId)
        .executeTakeFirst();
    },

    listForUser(userId: number): Promise<AgentRow[]> {
      return db.selectFrom('agents').selectAll().where('userId', '=', userId).orderBy('id').execute();
    },

    /**
     * Changes the agent unless it is disabled (undefined then), so a change racing a
     * DELETE can never revive it; `evenIfDisabled` for disabling and OAuth reactivation.
     */
    update(
      id: number,
      values: {
        name?: string;
        description?: string | null;
        status?: AgentStatus;
        permissionGroupId?: string | null;
      },
      now: string,
      options: { evenIfDisabled?: boolean } = {},
    ): Promise<AgentRow | undefined> {
      return db
        .updateTable('agents')
        .set({ ...values, updatedAt: now })
        .where('id', '=', id)
        .$if(!options.evenIfDisabled, (qb) => qb.where('status', '!=', 'disabled'))
        .returningAll()
        .executeTakeFirst();
    },

    async touch(id: number, now: string): Promise<void> {
      await db.updateTable('agents').set({ lastUsedAt: now }).where('id', '=', id).execute();
    },

    async isGlobalAdmin(userId: number): Promise<boolean> {
      const row = await db
        .selectFrom('users')
        .select('isGlobalAdmin')
        .where('id', '=', userId)
        .executeTakeFirst();
      return Boolean(row?.isGlobalAdmin);
    },

    // Permissions

    async permissionsOf(agentId: number): Promise<StoredPermission[]> {
      const rows = await selectPermissions(db, agentId);
      return rows.map((row) => ({ actionKey: row.actionKey, scope: parseScope(row.scope) }));
    },

    /** The permissions of many agents in one query (the list). */
    async permissionsOfMany(agentIds: readonly number[]): Promise<Map<number, StoredPermission[]>> {
      const byAgent = new Map<number, StoredPermission[]>(agentIds.map((id) => [id, []]));
      if (agentIds.length === 0) return byAgent;
      const rows = await db
        .selectFrom('agentPermissions')
        .select(['agentId', 'actionKey', 'scope'])
        .where('agentId', 'in', agentIds)
        .orderBy('id')
        .execute();
      for (const row of rows)
        byAgent.get(row.agentId)?.push({ actionKey: row.actionKey, scope: parseScope(row.scope) });
      return byAgent;
    },

    /** Replaces the whole set; run it in a transaction with the agent's update. */
    async replacePermissions(agentId: number, permissions: readonly StoredPermission[]): Promise<void> {
      await db.deleteFrom('agentPermissions').where('agentId', '=', agentId).execute();
      if (permissions.length === 0) return;
      await db
        .insertInto('agentPermissions')
        .values(
          permissions.map((p) => ({
            agentId,
            actionKey: p.actionKey,
            scope: p.scope === null ? null : JSON.stringify(p.scope),
          })),
        )
        .execute();
    },

    // Keys

    insertKey(values: { agentId: number; label: string; prefix: string; keyHash: string; now: string }) {
      return db
        .insertInto('agentKeys')
        .values({
          agentId: values.agentId,
          label: values.label,
          prefix: values.prefix,
          keyHash: values.keyHash,
          createdAt: values.now,
        })
        .returning(['id', 'label', 'prefix', 'createdAt'])
        .executeTakeFirstOrThrow();
    },

    listKeys(agentId: number): Promise<AgentKey[]> {
      return db
        .selectFrom('agentKeys')
        .select(keyColumns)
        .where('agentId', '=', agentId)
        .orderBy('id')
        .execute();
    },

    /** Revokes one key of the agent if still live; answers the key, or undefined when the agent has none such. */
    async revokeKey(agentId: number, keyId: number, now: string): Promise<AgentKey | undefined> {
      await db
        .updateTable('agentKeys')
        .set({ revokedAt: now })
        .where('id', '=', keyId)
        .where('agentId', '=', agentId)
        .where('revokedAt', 'is', null)
        .execute();
      return db
        .selectFrom('agentKeys')
        .select(keyColumns)
        .where('id', '=', keyId)
        .where('agentId', '=', agentId)
        .executeTakeFirst();
    },

    async revokeAllKeys(agentId: number, now: string): Promise<void> {
      await db
        .updateTable('agentKeys')
        .set({ revokedAt: now })
        .where('agentId', '=', agentId)
        .where('revokedAt', 'is', null)
        .execute();
    },

    /** The live key with this hash and its agent (not disabled), in one query. */
    async findLiveKey(keyHash: string) {
      const [row] = await selectLiveKey(db, keyHash);
      if (!row) return undefined;
      const { keyId, keyLastUsedAt, permissionsJson, ...agent } = row;
      return {
        keyId,
        keyLastUsedAt,
        agent: agent as AgentRow,
        permissions: parsePermissions(permissionsJson),
      };
    },

    /** The owner's agent with its permissions, in one statement; another user's answers undefined. */
    async findOwnedWithPermissions(userId: number, id: number) {
      const [row] = await selectOwnedWithPermissions(db, id, userId);
      if (!row) return undefined;
      const { permissionsJson, ...agent } = row;
      return { agent: agent as AgentRow, permissions: parsePermissions(permissionsJson) };
    },

    async touchKey(id: number, now: string): Promise<void> {
      await db.updateTable('agentKeys').set({ lastUsedAt: now }).where('id', '=', id).execute();
    },

    // OAuth refresh tokens

    /** Revokes every outstanding refresh token of the agent; answers how many. */
    async revokeRefreshTokens(agentId: number, now: string): Promise<number> {
      const result = await db
        .updateTable('oauthRefreshTokens')
        .set({ revokedAt: now })
        .where('agentId', '=', agentId)
        .where('revokedAt', 'is', null)
        .executeTakeFirst();
      return Number(result.numUpdatedRows);
    },

    // Policy

    async policyOf(agentId: number): Promise<PolicyRow | undefined> {
      const [row] = await selectPolicy(db, agentId);
      return row;
    },

    async upsertPolicy(row: PolicyRow): Promise<void> {
      const { agentId, ...values } = row;
      await db
        .insertInto('agentPolicies')
        .values(row)
        .onConflict((oc) => oc.column('agentId').doUpdateSet(values))
        .execute();
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

    // Activity

    async insertActivity(values: {
      agentId: number;
      actionKey: string;
      outcome: 'ok' | 'error';
      errorCode: string | null;
      durationMs: number;
      arguments: string | null;
      targetIds: string | null;
      approvalId: number | null;
      now: string;
    }): Promise<void> {
      const call = values;
      await committedWithOthers(db, (executor) =>
        insertActivity(
          executor,
          call.agentId,
          call.actionKey,
          call.outcome,
          call.errorCode,
          call.durationMs,
          call.arguments,
          call.targetIds,
          call.approvalId,
          call.now,
        ),
      );
    },

    /** Deletes activity older than `before`, a batch at a time; answers how many. */
    async purgeActivity(before: string): Promise<number> {
      let total = 0;
      for (;;) {
        const result = await db
          .deleteFrom('agentActivity')
          .where(
            'id',
            'in',
            db.selectFrom('agentActivity').select('id').where('createdAt', '<', before).limit(PURGE_BATCH),
          )
          .executeTakeFirst();
        const deleted = Number(result.numDeletedRows);
        total += deleted;
        if (deleted < PURGE_BATCH) return total;
      }
    },

    /** Newest first, by id. Throws InvalidCursorError for a foreign cursor. */
    async listActivity(
      agentId: number,
      query: ActivityQuery,
    ): Promise<{ items: ActivityItem[]; nextCursor: string | null }> {
      let q = db.selectFrom('agentActivity').select(activityColumns).where('agentId', '=', agentId);
      if (query.actionKey !== undefined) q = q.where('actionKey', '=', query.actionKey);
      if (query.outcome !== undefined) q = q.where('outcome', '=', query.outcome);
      if (query.from !== undefined) q = q.where('createdAt', '>=', query.from);
      if (query.to !== undefined) q = q.where('createdAt', '<', query.to);
      if (query.cursor !== undefined) q = q.where('id', '<', idBefore(query.cursor));
      const rows = await q
        .orderBy('id', 'desc')
        .limit(query.limit + 1)
        .execute();
      const { page, nextCursor } = newestFirstPage(rows, query.limit);
      const items = page.map((row) => ({
        ...row,
        arguments: row.arguments === null ? null : (JSON.parse(row.arguments) as Record<string, unknown>),
        targetIds: row.targetIds === null ? [] : (JSON.parse(row.targetIds) as number[]),
      }));
      return { items, nextCursor };
    },
  };
}

export type AgentRepo = ReturnType<typeof createAgentRepo>;
