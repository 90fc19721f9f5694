/**
 * Who is acting. Built once at the edge (the HTTP auth guard, the MCP agent
 * credential) and passed to every service method.
 *
 * A person acts with all of their own rights. An agent acts for its owner:
 * `userId` is the owner, so an agent can never exceed what the owner may do;
 * `agent.actions` are the action keys the owner allowed, and `agent.scope` is
 * the scope of the permission in use, which narrows the objects it may touch:
 * - `scope.calendarIds` absent: calendars unrestricted; present: only these
 *   calendars (and their events); an empty array allows none;
 * - `scope.groupIds` likewise for people groups. A calendar shared with the
 *   owner through a group counts only through groups the scope allows.
 * Anything outside the scope answers NOT_FOUND, exactly as if it did not exist.
 */
export interface AccessScope {
  calendarIds?: readonly number[];
  groupIds?: readonly number[];
}

export type ActorVia = 'jwt' | 'api_key' | 'agent';

export interface AgentContext {
  id: number;
  /** Action keys the owner allowed this agent. */
  actions: ReadonlySet<string>;
  /** The scope of the permission the agent acts under now. */
  scope: AccessScope;
}

export interface Actor {
  userId: number;
  via: ActorVia;
  agent?: AgentContext;
  /**
   * The organisation an approved call was asked in: tenant-scoped methods work in it, not
   * in the owner's active one (null: it was asked in none). Absent: the active one.
   */
  organisationId?: number | null;
  /**
   * The automation rule whose actions this actor performs: writes made so fire no rules again
   * (automation is one level deep). Carried here, not in an async context: on Node 20 a store
   * once entered hooks every promise of the process, one tenant's rule slowing all the others.
   */
  forRule?: number;
}

/** A person acting through a login JWT or one of their API keys. */
export function personActor(userId: number, via: 'jwt' | 'api_key' = 'jwt'): Actor {
  return { userId, via };
}

/** An agent acting for `userId` under one permission's scope. */
export function agentActor(userId: number, agent: AgentContext): Actor {
  return { userId, via: 'agent', agent };
}

/** The calendar ids the actor is limited to, or undefined when calendars are unrestricted. */
export function calendarScope(actor: Actor): readonly number[] | undefined {
  return actor.agent?.scope.calendarIds;
}

/** The group ids the actor is limited to, or undefined when groups are unrestricted. */
export function groupScope(actor: Actor): readonly number[] | undefined {
  return actor.agent?.scope.groupIds;
}

export function calendarInScope(actor: Actor, calendarId: number): boolean {
  const allowed = calendarScope(actor);
  return allowed === undefined || allowed.includes(calendarId);
}

export function groupInScope(actor: Actor, groupId: number): boolean {
  const allowed = groupScope(actor);
  return allowed === undefined || allowed.includes(groupId);
}
