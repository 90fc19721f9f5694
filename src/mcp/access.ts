import { type AccessScope, type Actor, agentActor } from '../lib/actor.js';
import { PROFILE_ACTION, type ResolvedAgent } from './types.js';

/** An agent as resource providers see it: each action carries its own scope. */
export interface AgentAccess {
  agent: ResolvedAgent;
  /** The Actor for one action (its permission's scope), or null when the agent may not perform it. */
  actorFor(actionKey: string): Actor | null;
}

/** The scope an agent acts under for one action; null when the action is not permitted. */
function scopeFor(
  agent: ResolvedAgent,
  alwaysAllowed: ReadonlySet<string>,
  actionKey: string,
): AccessScope | null {
  const permission = agent.permissions.find((p) => p.actionKey === actionKey);
  if (permission) return permission.scope;
  // The profile (and the rest always allowed) touch no calendar or group, so their scope allows none.
  return alwaysAllowed.has(actionKey) || actionKey === PROFILE_ACTION
    ? { calendarIds: [], groupIds: [] }
    : null;
}

/** The agent's access; `alwaysAllowed` are the actions it has whatever its permissions (ToolCatalogue). */
export function agentAccess(agent: ResolvedAgent, alwaysAllowed: ReadonlySet<string>): AgentAccess {
  const actions = new Set([...agent.permissions.map((p) => p.actionKey), PROFILE_ACTION]);
  return {
    agent,
    actorFor(actionKey) {
      const scope = scopeFor(agent, alwaysAllowed, actionKey);
      return scope ? agentActor(agent.userId, { id: agent.id, actions, scope }) : null;
    },
  };
}
