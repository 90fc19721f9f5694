import type { Selectable } from 'kysely';
import type { Id, JsonText, Timestamp } from '../../db/column-types.js';
import type { Executor } from '../../db/database.js';
import { idBefore, newestFirstPage } from '../../db/keyset.js';
import type { ApprovalStatus, ListApprovalsQuery } from './schemas.js';

/** A tool call waiting for (or past) its owner's decision. */
export interface AgentApprovalsTable {
  id: Id;
  agentId: number;
  /** The agent's owner: the one person who decides. */
  userId: number;
  actionKey: string;
  /** The validated arguments as JSON: exactly what runs. */
  arguments: JsonText;
  summary: string;
  /** The price the call would charge (its dry run), minor units; null when it charges nothing known. */
  amount: number | null;
  currency: string | null;
  /** The organisation the call was asked in: it runs there, whichever is active when approved. */
  organisationId: number | null;
  /** JSON `{times: [{resourceId, resourceTypeId, startTime, endTime}]}`: the reservations shown. */
  facts: JsonText | null;
  status: ApprovalStatus;
  result: JsonText | null;
  createdAt: Timestamp;
  decidedAt: Timestamp | null;
  expiresAt: Timestamp;
}

/** An MCP task following an approval (its status and result are the approval's). */
export interface AgentApprovalTasksTable {
  /** Random, base64url: the MCP `taskId`. */
  id: string;
  agentId: number;
  approvalId: number;
  createdAt: Timestamp;
  /** Past it the task is gone (not found), and the sweep deletes it. */
  expiresAt: Timestamp;
  /** When the agent cancelled it (`tasks/cancel`, which denied the approval); null otherwise. */
  cancelledAt: Timestamp | null;
}

export interface ApprovalTables {
  agentApprovals: AgentApprovalsTable;
  agentApprovalTasks: AgentApprovalTasksTable;
}

export type ApprovalTaskRow = Selectable<AgentApprovalTasksTable>;

export type ApprovalRow = Selectable<AgentApprovalsTable>;

export function createApprovalRepo(db: Executor) {
  return {
    insert(values: Omit<ApprovalRow, 'id'>): Promise<ApprovalRow> {
      return db.insertInto('agentApprovals').values(values).returningAll().executeTakeFirstOrThrow();
    },

    /** The owner's approval; another person's answers undefined, exactly like an absent one. */
    findOwned(userId: number, id: number): Promise<ApprovalRow | undefined> {
      return db
        .selectFrom('agentApprovals')
        .selectAll()
        .where('id', '=', id)
        .where('userId', '=', userId)
        .executeTakeFirst();
    },

    /** The agent's own approval; another agent's answers undefined. */
    findForAgent(agentId: number, id: number): Promise<ApprovalRow | undefined> {
      return db
        .selectFrom('agentApprovals')
        .selectAll()
        .where('id', '=', id)
        .where('agentId', '=', agentId)
        .executeTakeFirst();
    },

    /** Newest first. Throws InvalidCursorError for a foreign cursor. */
    async list(
      userId: number,
      query: ListApprovalsQuery,
    ): Promise<{ rows: ApprovalRow[]; nextCursor: string | null }> {
      let q = db.selectFrom('agentApprovals').selectAll().where('userId', '=', userId);
      if (query.status !== undefined) q = q.where('status', '=', query.status);
      if (query.cursor !== undefined) q = q.where('id', '<', idBefore(query.cursor));
      const rows = await q
        .orderBy('id', 'desc')
        .limit(query.limit + 1)
        .execute();
      const { page, nextCursor } = newestFirstPage(rows, query.limit);
      return { rows: page, nextCursor };
    },

    /**
     * Moves a pending, unexpired approval of the owner to `status`; undefined when it was
     * not pending (decided already, by this or another instance) or has expired. The
     * one statement that makes a decision happen once.
     */
    decide(
      userId: number,
      id: number,
      status: 'approved' | 'denied',
      now: string,
    ): Promise<ApprovalRow | undefined> {
      return db
        .updateTable('agentApprovals')
        .set({ status, decidedAt: now })
        .where('id', '=', id)
        .where('userId', '=', userId)
        .where('status', '=', 'pending')
        .where('expiresAt', '>', now)
        .returningAll()
        .executeTakeFirst();
    },

    /** Records what the approved call did. */
    finish(id: number, status: 'executed' | 'failed', result: string): Promise<ApprovalRow | undefined> {
      return db
        .updateTable('agentApprovals')
        .set({ status, result })
        .where('id', '=', id)
        .where('status', '=', 'approved')
        .returningAll()
        .executeTakeFirst();
    },

    /** Expires every pending approval past its time; answers them. */
    expireDue(now: string): Promise<ApprovalRow[]> {
      return db
        .updateTable('agentApprovals')
        .set({ status: 'expired', decidedAt: now })
        .where('status', '=', 'pending')
        .where('expiresAt', '<=', now)
        .returningAll()
        .execute();
    },
  };
}

export type ApprovalRepo = ReturnType<typeof createApprovalRepo>;

/** The tasks MCP clients follow approvals by. */
export function createApprovalTaskRepo(db: Executor) {
  return {
    async insert(row: ApprovalTaskRow): Promise<void> {
      await db.insertInto('agentApprovalTasks').values(row).execute();
    },

    /** The agent's unexpired task; another agent's (or an expired one) answers undefined. */
    find(agentId: number, id: string, now: string): Promise<ApprovalTaskRow | undefined> {
      return db
        .selectFrom('agentApprovalTasks')
        .selectAll()
        .where('id', '=', id)
        .where('agentId', '=', agentId)
        .where('expiresAt', '>', now)
        .executeTakeFirst();
    },

    async markCancelled(id: string, now: string): Promise<void> {
      await db.updateTable('agentApprovalTasks').set({ cancelledAt: now }).where('id', '=', id).execute();
    },

    async deleteExpired(now: string): Promise<void> {
      await db.deleteFrom('agentApprovalTasks').where('expiresAt', '<=', now).execute();
    },
  };
}
