import type { Kysely, Migration } from 'kysely';

/**
 * An agent's permissions in the order they were given, with what a read takes of them: through
 * 0006's (agent, action key) index SQLite sorted them by id in a temporary tree and looked each
 * row up; read from this index alone it does neither (a quarter less for an agent with 34
 * permissions). (The credential read of every MCP call aggregated them here until 0081.)
 */
export function agentPermissionsInOrder(): Migration {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createIndex('agent_permissions_agent_order_idx')
        .on('agent_permissions')
        .columns(['agent_id', 'id', 'action_key', 'scope'])
        .execute();
    },
  };
}
