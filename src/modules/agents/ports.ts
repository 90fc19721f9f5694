import type { Executor } from '../../db/database.js';

/**
 * Read ports: what other modules may read of the agents tables, as query fragments they
 * compose into their own statements (so a read stays one statement and the tables stay here).
 */

/** The ids of the person's agents that can act for them (every one not disabled). */
export function actingAgentIds(db: Executor, userId: number) {
  return db
    .selectFrom('agents')
    .select('agents.id')
    .where('agents.userId', '=', userId)
    .where('agents.status', '!=', 'disabled');
}

/** The ids of every agent of the person, disabled ones too. */
export function userAgentIds(db: Executor, userId: number) {
  return db.selectFrom('agents').select('agents.id').where('agents.userId', '=', userId);
}
