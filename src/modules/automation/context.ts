import type { Db } from '../../db/database.js';
import { type Actor, calendarInScope } from '../../lib/actor.js';
import { notFound, validationFailed } from '../../lib/errors.js';
import type { ResolvedAgent } from '../../mcp/types.js';
import type { CalendarService } from '../calendars/service.js';
import type { Event } from '../events/schemas.js';
import type { EventService } from '../events/service.js';
import type { Task } from '../tasks/schemas.js';
import type { TaskService } from '../tasks/service.js';
import type { createAutomationRepo } from './repo.js';
import type { Rule } from './schemas.js';

/** What a rule runs on: the triggering event or task, or nothing (a manual run without one). */
export type Subject = { type: 'event'; event: Event } | { type: 'task'; task: Task } | null;

export interface AutomationServiceDeps {
  db: Db;
  calendars: CalendarService;
  events: EventService;
  tasks: TaskService;
  /** The agents directory, read when a rule runs (absent: rules never act for an agent's rights). */
  agents?: () => { resolveAgent(agentId: number): Promise<ResolvedAgent | null> };
}

/** What every automation use case is built from. */
export interface AutomationContext extends AutomationServiceDeps {
  repo: ReturnType<typeof createAutomationRepo>;
}

export const invalid = (path: string, message: string) =>
  validationFailed(`Invalid rule: ${path}: ${message}`, [{ path, message }]);

/** A rule pinned to a calendar outside the actor's scope is, for that actor, a rule that does not exist. */
export const ruleInScope = (actor: Actor, rule: Rule) =>
  rule.conditions.calendarId === undefined || calendarInScope(actor, rule.conditions.calendarId);

export async function requireRule({ repo }: AutomationContext, actor: Actor, ruleId: number): Promise<Rule> {
  const found = await repo.findRule(actor.userId, ruleId);
  if (!found || !ruleInScope(actor, found)) throw notFound('Rule');
  return found;
}
