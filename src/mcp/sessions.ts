import { randomBytes } from 'node:crypto';
import { type RawBuilder, sql } from 'kysely';
import { compiledOnce, type Db, type Executor } from '../db/database.js';
import type { McpTables } from './tables.js';
import type { ResolvedAgent, SessionColumns, SessionProbe } from './types.js';

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
  /** What the credential read checks of session `id` (`sessionColumns`); undefined for an id that cannot be ours. */
  probe(id: string | undefined): SessionProbe | undefined;
  /**
   * `touch` for a request whose credential read probed the session (`agent.session`): no read of
   * its own, only the mark when stale. An agent resolved without the probe is touched as ever.
   */
  touchProbed(id: string, agent: ResolvedAgent): Promise<SessionCapabilities | undefined>;
}

/**
 * The open session a credential read checks in its own statement (one round trip for both): the
 * session the probe names, of the agent that statement reads (`agents.id`), unended and used since
 * the probe's cutoff; null columns when there is none. Two scalar subqueries on the primary key.
 */
export function sessionColumns(): SessionColumns {
  const open = (column: 'last_used_at' | 'url_elicitation') =>
    sql`(select ${sql.ref(`s.${column}`)} from mcp_sessions s where s.id = ${''} and s.agent_id = agents.id
      and s.ended_at is null and s.last_used_at >= ${''})`;
  return {
    lastUsedAt: open('last_used_at') as RawBuilder<string | null>,
    urlElicitation: open('url_elicitation'),
    parameters: (probe) => [probe.id, probe.cutoff, probe.id, probe.cutoff],
  };
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
  /** An open session's capabilities, its last-used mark written first when over a minute old. */
  const marked = async (id: string, at: string, session: { lastUsedAt: string; urlElicitation: boolean }) => {
    if (Date.parse(at) - Date.parse(session.lastUsedAt) >= SESSION_MARK_MS) await markUsed(kysely, at, id);
    return { urlElicitation: session.urlElicitation };
  };
  async function touch(id: string, agentId: number) {
    if (!SESSION_ID.test(id)) return undefined;
    const s = open(id, agentId);
    // The parameters in the order they appear in the SQL.
    const { rows } = await openSession(kysely, s.id, s.agentId, s.cutoff);
    const row = rows[0];
    if (!row) return undefined;
    return marked(s.id, s.at, { lastUsedAt: row.lastUsedAt, urlElicitation: Boolean(row.urlElicitation) });
  }
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

    touch,

    probe(id) {
      if (id === undefined || !SESSION_ID.test(id)) return undefined;
      const { at, cutoff } = open(id, 0);
      return { id, at, cutoff };
    },

    async touchProbed(id, agent) {
      const probed = agent.session;
      if (probed === undefined) return touch(id, agent.id);
      return probed && probed.id === id ? marked(id, probed.at, probed) : undefined;
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
