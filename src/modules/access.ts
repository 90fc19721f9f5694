/**
 * Who is acting, for every service method that reads or writes a user's own
 * data (calendars, events, people groups, and the modules built on them).
 *
 * A person calling over HTTP is `{ userId }`: their full rights. An agent acts
 * for its owner with the owner's `userId` plus the `scope` of the permission it
 * used, so it can never exceed what the owner may do, and inside that only
 * the listed objects:
 * - `scope` absent: no restriction beyond the user's own rights;
 * - `scope.calendarIds` absent: calendars unrestricted; present: only these
 *   calendars (and their events); an empty array allows none;
 * - `scope.groupIds` likewise for people groups. A calendar shared with the user
 *   through a group counts only through groups the scope allows.
 * Anything outside the scope answers 404 `NOT_FOUND`, exactly as if it did not exist.
 */
export interface AccessScope {
  calendarIds?: readonly number[];
  groupIds?: readonly number[];
}

export interface Actor {
  userId: number;
  scope?: AccessScope;
}

/** The actor of a signed-in person: all of their own rights. */
export function userActor(userId: number): Actor {
  return { userId };
}

/** The calendar ids the actor is limited to, or undefined when calendars are unrestricted. */
export function calendarScope(actor: Actor): readonly number[] | undefined {
  return actor.scope?.calendarIds;
}

/** The group ids the actor is limited to, or undefined when groups are unrestricted. */
export function groupScope(actor: Actor): readonly number[] | undefined {
  return actor.scope?.groupIds;
}

export function calendarInScope(actor: Actor, calendarId: number): boolean {
  const allowed = calendarScope(actor);
  return allowed === undefined || allowed.includes(calendarId);
}

export function groupInScope(actor: Actor, groupId: number): boolean {
  const allowed = groupScope(actor);
  return allowed === undefined || allowed.includes(groupId);
}
