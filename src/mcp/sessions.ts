import { randomBytes } from 'node:crypto';
import { compiledOnce, type Db, type Executor } from '../db/database.js';
import type { McpTables } from './tables.js';

declare module '../db/types.js' {
  interface Database extends McpTables {}
}

/** A session unused for this long is over (404), as if it had been deleted. */
export const SESSION_IDLE_MS = 24 * 60 * 60 * 1000;
/** How stale a session's last-used mark may get before a request writes it again. */
const SESSION_MARK_MS = 60 * 1000;

/** 24 random bytes in base64url: 192 bits, 32 characters. */
const newSessionId = () => randomBytes(24).toString('base64url');
/** Anything else cannot be one of ours: answered 404 without a database round trip. */
const SESSION_ID = /^[A-Za-z0-9_-]{16,128}$/;

/** What a session's `initialize` declared that later requests need. */
export interface SessionCapabilities {
  /** The client takes URL-mode elicitation (asked through it when a call needs approval). */
  urlElicitation: boolean;
}

export interface McpSessionStore {
  newId(): string;
  create(
    session: { id: string; agentId: number; protocolVersion: string } & SessionCapabilities,
  ): Promise<void>;
  /**
   * Marks the session used (at most once a minute) and answers its capabilities when it is open, belongs to
   * `agentId` and was used within the idle limit; undefined otherwise (unknown, ended, idle,
   * another agent's).
   */
  touch(id: string, agentId: number): Promise<SessionCapabilities | undefined>;
  /** Ends an open session of `agentId` (DELETE); false when there was none to end. */
  end(id: string, agentId: number): Promise<boolean>;
}

export function createSessionStore(db: Db, now: () => Date = () => new Date()): McpSessionStore {
  const kysely = db.kysely;
  const open = (id: string, agentId: number) => {
    const at = now();
    const cutoff = new Date(at.getTime() - SESSION_IDLE_MS).toISOString();
    return { at: at.toISOString(), cutoff, id, agentId };
  };
  // Built and compiled once: they run on every request of a session, and Kysely's
  // build-and-compile costs more than the database's execution of them (bench/mcp.ts).
  // The check reads the database, so any instance sharing it serves the session; the mark
  // is a write, so it is made only when the last one is over a minute old (as API keys are).
  const openSession = compiledOnce(() =>
    kysely
      .selectFrom('mcpSessions')
      .select(['urlElicitation', 'lastUsedAt'])
      .where('id', '=', '')
      .where('agentId', '=', 0)
      .where('endedAt', 'is', null)
      .where('lastUsedAt', '>=', ''),
  );
  const markUsed = compiledOnce(() =>
    kysely.updateTable('mcpSessions').set({ lastUsedAt: '' }).where('id', '=', ''),
  );
  return {
    newId: newSessionId,

    async create({ id, agentId, protocolVersion, urlElicitation }) {
      const at = now().toISOString();
      await kysely
        .insertInto('mcpSessions')
        .values({
          id,
          agentId,
          protocolVersion,
          createdAt: at,
          lastUsedAt: at,
          endedAt: null,
          urlElicitation,
        })
        .execute();
    },

    async touch(id, agentId) {
      if (!SESSION_ID.test(id)) return undefined;
      const s = open(id, agentId);
      // The parameters in the order they appear in the SQL.
      const { rows } = await openSession(kysely, s.id, s.agentId, s.cutoff);
      const row = rows[0];
      if (!row) return undefined;
      if (Date.parse(s.at) - Date.parse(row.lastUsedAt) >= SESSION_MARK_MS)
        await markUsed(kysely, s.at, s.id);
      return { urlElicitation: Boolean(row.urlElicitation) };
    },

    async end(id, agentId) {
      if (!SESSION_ID.test(id)) return false;
      const s = open(id, agentId);
      const result = await kysely
        .updateTable('mcpSessions')
        .set({ endedAt: s.at })
        .where('id', '=', s.id)
        .where('agentId', '=', s.agentId)
        .where('endedAt', 'is', null)
        .where('lastUsedAt', '>=', s.cutoff)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) === 1;
    },
  };
}

/**
 * Ends every open MCP session of an agent. The agents module calls it when the agent
 * is disabled (in the same transaction when it has one); its credentials stop
 * verifying at the same moment, so the sessions could not be used anyway.
 */
export async function endAgentSessions(executor: Executor, agentId: number, at = new Date()): Promise<void> {
  await executor
    .updateTable('mcpSessions')
    .set({ endedAt: at.toISOString() })
    .where('agentId', '=', agentId)
    .where('endedAt', 'is', null)
    .execute();
}
