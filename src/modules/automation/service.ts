import type { Actor } from '../../lib/actor.js';
import type { Event } from '../events/schemas.js';
import type { Task } from '../tasks/schemas.js';
import { createAuditReads } from './audit.js';
import type { AutomationServiceDeps } from './context.js';
import { createAutomationRepo } from './repo.js';
import { createRules } from './rules.js';
import { createRuns, type SyncedEventOptions } from './runs.js';
import type {
  AuditEntry,
  CreateRuleInput,
  EventTag,
  ListAuditQuery,
  Rule,
  TriggerRuleInput,
  UpdateRuleInput,
} from './schemas.js';

export { RULE_ACTION_KEYS } from './actions.js';
export type { AutomationServiceDeps, Subject } from './context.js';
export type { SyncedEventOptions } from './runs.js';

/**
 * Automation rules (`automation_manager`): when a trigger fires for a user, their
 * enabled rules for it whose conditions match run their actions, in order, as the
 * actor whose write fired the trigger (same user, same agent scope). Rules run after
 * the triggering write has committed; each run is written to the audit log, and a
 * failing rule never fails the write that fired it.
 *
 * No loops: writes made by a rule's actions never fire triggers again: the actor they
 * act as names the rule (`Actor.forRule`), and every trigger hook is given the actor of
 * the write. Automation is one level deep.
 *
 * Agent scope (`calendarIds`; rules hold no group):
 * - a rule whose `conditions.calendarId` is outside it does not exist for the agent:
 *   it cannot be written, read, changed, deleted or run (404), nor run on its writes;
 * - an event-fired rule the agent writes must name one of its calendars: unpinned, it
 *   would run on the owner's events in every calendar and copy them into tasks;
 * - actions act as the triggering actor, so they reach only events it may reach;
 * - the audit log hides runs of hidden rules and runs on events outside the scope or
 *   deleted (their calendar is no longer known); event tags are read through their event.
 */
export interface AutomationService {
  /** The actor's rules, those pinned to a calendar outside its scope left out. */
  listRules(actor: Actor): Promise<Rule[]>;
  /** One of the actor's rules (404 when absent or outside its scope). */
  getRule(actor: Actor, ruleId: number): Promise<Rule>;
  /** Writes a new rule, checked whole; an agent's rule runs as that agent. */
  createRule(actor: Actor, input: CreateRuleInput): Promise<Rule>;
  /** Changes the given fields; the merged rule is checked again. */
  updateRule(actor: Actor, ruleId: number, input: UpdateRuleInput): Promise<Rule>;
  /** Deletes the rule; its audit entries and event tags stay. */
  deleteRule(actor: Actor, ruleId: number): Promise<void>;
  /**
   * Runs a rule now, whatever its trigger, on the given event (one the actor can
   * read) or task (the actor's), or on nothing. A disabled rule is 409 CONFLICT.
   * Always recorded (`skipped` when the conditions do not match); answers the entry.
   */
  trigger(actor: Actor, ruleId: number, input?: TriggerRuleInput): Promise<AuditEntry>;
  /** The audit log of rule runs, newest first by cursor, within the actor's calendar scope. */
  listAudit(actor: Actor, query: ListAuditQuery): Promise<{ items: AuditEntry[]; nextCursor: string | null }>;
  /** Tags `tag_event` put on an event the actor can read. */
  listEventTags(actor: Actor, eventId: number): Promise<EventTag[]>;
  /**
   * For calendar sync (`triggerAutomationRules`): runs the user's enabled
   * `event.synced` rules (only `selectedRuleIds` among them when given) on an event
   * it has written and committed. Answers the audit entries of the rules that ran.
   */
  runForSyncedEvent(actor: Actor, eventId: number, options?: SyncedEventOptions): Promise<AuditEntry[]>;
  /** Wired to the events service: an event the actor created (not one imported by sync). */
  onEventCreated(actor: Actor, event: Event): Promise<void>;
  /** Wired to the tasks service: a task of the actor became done. */
  onTaskCompleted(actor: Actor, task: Task): Promise<void>;
}

/**
 * Wires the use cases: writing rules (rules.ts), running them (runs.ts, execution.ts,
 * actions.ts) and reading what they did (audit.ts).
 */
export function createAutomationService(deps: AutomationServiceDeps): AutomationService {
  const ctx = {
    ...deps,
    repo: createAutomationRepo(deps.db.kysely),
  };
  return { ...createRules(ctx), ...createRuns(ctx), ...createAuditReads(ctx) };
}
