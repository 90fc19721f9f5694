import type { SelectQueryBuilder } from 'kysely';
import type { Executor } from '../db/database.js';
import type { Database } from '../db/types.js';
import {
  changed,
  countOf,
  type DataSubject,
  exportSection,
  type PrivacyDeclaration,
  personal,
} from '../privacy/declaration.js';

/** The ids of a person's agents, as a subquery: the agents module's read port (`userAgentIds`). */
export type AgentIdsOf = (
  db: Executor,
  userId: number,
) => SelectQueryBuilder<Database, 'agents', { id: number }>;

/**
 * MCP sessions of the person's agents, found through `agentIdsOf` (the runtime imports no
 * module; src/privacy-declarations.ts hands the port over). mcp_sessions has no foreign key to
 * agents, so erasure must delete the rows itself.
 */
export function mcpPrivacy(agentIdsOf: AgentIdsOf): PrivacyDeclaration {
  const held = (db: Executor, { userId }: DataSubject) =>
    db.selectFrom('mcpSessions').where('mcpSessions.agentId', 'in', agentIdsOf(db, userId));
  return {
    module: 'mcp',
    tables: {
      mcp_sessions: personal('agent_sessions', 'deleted'),
    },
    categories: [
      {
        id: 'agent_sessions',
        label: "Your agents' MCP sessions: protocol version, start, last use, end",
        purpose: 'Serving the MCP hosts your agents connect through',
        retention: 'Until your account is erased; sessions end after 24 hours without use',
      },
    ],
    async holdings(db, subject) {
      return { mcp_sessions: await countOf(held(db, subject)) };
    },
    exports: [
      exportSection({
        name: 'mcpSessions',
        table: 'mcp_sessions',
        key: ['mcpSessions.id'],
        rows: (db, s) =>
          held(db, s).select([
            'mcpSessions.id',
            'agentId',
            'protocolVersion',
            'createdAt',
            'lastUsedAt',
            'endedAt',
          ]),
        // The session id is left out: it names a live session to anyone holding the agent's credential.
        record: ({ id: _id, ...row }) => row,
      }),
    ],
    async erase(trx, subject) {
      const result = await trx
        .deleteFrom('mcpSessions')
        .where('agentId', 'in', agentIdsOf(trx, subject.userId))
        .executeTakeFirst();
      return { mcp_sessions: changed(result) };
    },
  };
}
