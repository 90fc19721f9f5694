import { AsyncLocalStorage } from 'node:async_hooks';
import type { Db } from '../../db/database.js';
import { InvalidCursorError } from '../../db/keyset.js';
import { type Actor, agentActor, calendarInScope, calendarScope } from '../../lib/actor.js';
import {
  conflict,
  DomainError,
  forbidden,
  invalidCursor,
  notFound,
  validationFailed,
} from '../../lib/errors.js';
import { nowIso } from '../../lib/time.js';
import { PROFILE_ACTION, type ResolvedAgent } from '../../mcp/types.js';
import type { CalendarService } from '../calendars/service.js';
import type { Event } from '../events/schemas.js';
import type { EventService } from '../events/service.js';
import type { Task } from '../tasks/schemas.js';
import type { TaskService } from '../tasks/service.js';
import { createAutomationRepo, type RuleValues } from './repo.js';
import {
  type ActionResult,
  type AuditEntry,
  type AutomationTrigger,
  type CreateRuleInput,
  type EventTag,
  type ListAuditQuery,
  RULE_MAX_ACTIONS,
  type Rule,
  type RuleAction,
  type RuleConditions,
  type TriggerRuleInput,
  type UpdateRuleInput,
} from './schemas.js';

/** What a rule runs on: the triggering event or task, or nothing (a manual run without one). */
export type Subject = { type: 'event'; event: Event } | { type: 'task'; task: Task } | null;

export interface SyncedEventOptions {
  /** Only these rules (among the user's enabled `event.synced` rules); absent: all of them. */
  selectedRuleIds?: readonly number[];
}

const invalid = (path: string, message: string) =>
  validationFailed(`Invalid rule: ${path}: ${message}`, [{ path, message }]);

const EVENT_ACTIONS = new Set<RuleAction['type']>(['add_reminder', 'tag_event']);

/**
 * The action an agent needs for each rule action: a rule acting for an agent does what
 * the agent itself could do with its tools, nothing more (tagging changes the event).
 */
export const RULE_ACTION_KEYS: Readonly<Record<RuleAction['type'], string>> = {
  create_task: 'tasks.create',
  add_reminder: 'calendar.events.update',
  tag_event: 'calendar.events.update',
};

/** Who a rule's actions act as: a person (the actor itself), or an agent as it is now. */
type RunAs =
  | { kind: 'person' }
  | { kind: 'agent'; agent: ResolvedAgent }
  | { kind: 'inactive'; reason: string };
const EVENT_TRIGGERS = new Set<AutomationTrigger>(['event.created', 'event.synced']);

/** A rule pinned to a calendar outside the actor's scope is, for that actor, a rule that does not exist. */
const ruleInScope = (actor: Actor, rule: Rule) =>
  rule.conditions.calendarId === undefined || calendarInScope(actor, rule.conditions.calendarId);

const titleOf = (subject: Subject) =>
  subject?.type === 'event' ? subject.event.title : subject?.type === 'task' ? subject.task.title : null;

function matches(conditions: RuleConditions, subject: Subject): boolean {
  if (conditions.titleContains !== undefined) {
    const title = titleOf(subject);
    if (title === null || !title.toLowerCase().includes(conditions.titleContains.toLowerCase())) return false;
  }
  if (conditions.calendarId !== undefined)
    return subject?.type === 'event' && subject.event.calendarId === conditions.calendarId;
  return true;
}

const render = (text: string, subject: Subject) => text.replaceAll('{{title}}', titleOf(subject) ?? '');

/** What an audit entry says about a failure: the client-facing message, never internals. */
function describeFailure(error: unknown): string {
  if (error instanceof DomainError) return `${error.code}: ${error.message}`;
  return 'INTERNAL: the action failed unexpectedly';
}

function requireEvent(subject: Subject): Event {
  if (subject?.type !== 'event')
    throw new DomainError('VALIDATION_FAILED', 'This action needs an event to act on');
  return subject.event;
}

export type AutomationService = ReturnType<typeof createAutomationService>;

/**
 * Automation rules (`automation_manager`): when a trigger fires for a user, their
 * enabled rules for it whose conditions match run their actions, in order, as the
 * actor whose write fired the trigger (same user, same agent scope). Rules run after
 * the triggering write has committed; each run is written to the audit log, and a
 * failing rule never fails the write that fired it.
 *
 * No loops: writes made while a rule's actions run never fire triggers again (the
 * running rule is carried in an AsyncLocalStorage context, so this holds for any
 * write path the actions take). Automation is one level deep.
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
export function createAutomationService({
  db,
  calendars,
  events,
  tasks,
  agents,
}: {
  db: Db;
  calendars: CalendarService;
  events: EventService;
  tasks: TaskService;
  /** The agents directory, read when a rule runs (absent: rules never act for an agent's rights). */
  agents?: () => { resolveAgent(agentId: number): Promise<ResolvedAgent | null> };
}) {
  const repo = createAutomationRepo(db.kysely);
  const runningRule = new AsyncLocalStorage<number>();

  async function requireRule(actor: Actor, ruleId: number): Promise<Rule> {
    const found = await repo.findRule(actor.userId, ruleId);
    if (!found || !ruleInScope(actor, found)) throw notFound('Rule');
    return found;
  }

  /** Checks the parts of a rule together; references must be the actor's (404 otherwise). */
  async function checkRule(
    actor: Actor,
    trigger: AutomationTrigger,
    conditions: RuleConditions,
    actions: readonly RuleAction[],
  ): Promise<Pick<RuleValues, 'conditions' | 'actions'>> {
    if (actions.length < 1 || actions.length > RULE_MAX_ACTIONS)
      throw invalid('actions', `1..${RULE_MAX_ACTIONS} actions`);
    const checked: RuleConditions = {};
    if (conditions.titleContains !== undefined) {
      const text = conditions.titleContains.trim();
      if (!text) throw invalid('conditions.titleContains', 'must not be empty');
      checked.titleContains = text;
    }
    if (conditions.calendarId !== undefined) {
      if (trigger === 'task.completed')
        throw invalid('conditions.calendarId', 'a task.completed rule has no event, so no calendar');
      await calendars.requireReadable(actor, conditions.calendarId);
      checked.calendarId = conditions.calendarId;
    } else if (EVENT_TRIGGERS.has(trigger) && calendarScope(actor) !== undefined) {
      throw invalid(
        'conditions.calendarId',
        'this access is limited to particular calendars: a rule fired by events must name one of them',
      );
    }
    actions.forEach((action, i) => {
      if (trigger === 'task.completed' && EVENT_ACTIONS.has(action.type))
        throw invalid(`actions.${i}`, `${action.type} acts on an event; a task.completed rule has none`);
    });
    await tasks.requireOwnedLabels(
      actor,
      actions.flatMap((action) => (action.type === 'create_task' ? (action.task.labelIds ?? []) : [])),
    );
    return {
      conditions: checked,
      actions: actions.map((action) =>
        action.type === 'tag_event' ? { ...action, label: action.label.trim() } : action,
      ),
    };
  }

  /**
   * A rule an agent wrote acts as that agent, read again now: a paused or disabled agent's
   * rules do not run, and each action needs the agent's own permission for it, under that
   * permission's scope (DECISIONS.md "Agents acting safely"). An agent cannot borrow its
   * owner's rights by planting a rule, nor by rewriting one (an update makes it the agent's).
   */
  async function runAsOf(actor: Actor, rule: Rule): Promise<RunAs> {
    // A rule its owner wrote does what the owner wrote, within the scope of whoever runs it.
    const agentId = rule.createdByAgentId;
    if (agentId === null) return { kind: 'person' };
    const agent = agents ? await agents().resolveAgent(agentId) : null;
    if (agent?.status !== 'active' || agent.userId !== actor.userId)
      return {
        kind: 'inactive',
        reason: `The agent ${agentId} this rule acts for is ${agent?.status ?? 'disabled'}: the rule does not run`,
      };
    return { kind: 'agent', agent };
  }

  /** The Actor for one rule action: the agent under that action's own permission and scope, or refused. */
  function actorFor(actor: Actor, runAs: RunAs, action: RuleAction): Actor {
    if (runAs.kind !== 'agent') return actor;
    const key = RULE_ACTION_KEYS[action.type];
    const permission = runAs.agent.permissions.find((p) => p.actionKey === key);
    if (!permission)
      throw forbidden(
        `The agent this rule acts for may not ${key}, so the rule may not ${action.type} either`,
      );
    const actions = new Set([...runAs.agent.permissions.map((p) => p.actionKey), PROFILE_ACTION]);
    return agentActor(runAs.agent.userId, { id: runAs.agent.id, actions, scope: permission.scope });
  }

  async function perform(actor: Actor, rule: Rule, action: RuleAction, subject: Subject, runAt: number) {
    switch (action.type) {
      case 'create_task': {
        const template = action.task;
        const base = subject?.type === 'event' ? Date.parse(subject.event.startTime) : runAt;
        const task = await tasks.create(actor, {
          title: render(template.title, subject),
          notes: template.notes == null ? null : render(template.notes, subject),
          priority: template.priority ?? 'normal',
          status: template.status ?? 'todo',
          dueAt:
            template.dueOffsetMinutes === undefined
              ? null
              : new Date(base + template.dueOffsetMinutes * 60_000).toISOString(),
          labelIds: template.labelIds ?? [],
          checklist: template.checklist ?? [],
        });
        return { taskId: task.id };
      }
      case 'add_reminder': {
        const current = await events.get(actor, requireEvent(subject).id);
        await events.update(actor, current.id, {
          reminders: [...current.reminders, { minutes: action.minutes, method: action.method ?? 'popup' }],
        });
        return {};
      }
      case 'tag_event': {
        const current = await events.get(actor, requireEvent(subject).id);
        await calendars.requireOwned(actor, current.calendarId, 'Event');
        await repo.insertTag(current.id, action.label, rule.id, nowIso());
        return {};
      }
    }
  }

  /**
   * Runs one rule on a subject and records the run. A rule whose conditions do not
   * match is recorded as `skipped` only when `recordSkipped` (manual runs).
   */
  async function execute(
    actor: Actor,
    rule: Rule,
    trigger: AutomationTrigger,
    subject: Subject,
    recordSkipped: boolean,
  ): Promise<AuditEntry | null> {
    const record = (outcome: AuditEntry['outcome'], error: string | null, results: ActionResult[]) =>
      repo.insertAudit(
        {
          ownerId: actor.userId,
          ruleId: rule.id,
          ruleName: rule.name,
          trigger,
          subjectType: subject?.type ?? null,
          subjectId:
            subject?.type === 'event' ? subject.event.id : subject?.type === 'task' ? subject.task.id : null,
          outcome,
          error,
          actions: results,
        },
        nowIso(),
      );
    if (!matches(rule.conditions, subject)) return recordSkipped ? record('skipped', null, []) : null;
    const runAs = await runAsOf(actor, rule);
    if (runAs.kind === 'inactive') return record('skipped', runAs.reason, []);

    const results: ActionResult[] = [];
    let failure: string | null = null;
    const runAt = Date.now();
    await runningRule.run(rule.id, async () => {
      for (const [i, action] of rule.actions.entries()) {
        if (failure !== null) {
          results.push({ type: action.type, outcome: 'not_run' });
          continue;
        }
        try {
          results.push({
            type: action.type,
            outcome: 'succeeded',
            ...(await perform(actorFor(actor, runAs, action), rule, action, subject, runAt)),
          });
        } catch (error) {
          const message = describeFailure(error);
          failure = `actions.${i} (${action.type}): ${message}`;
          results.push({ type: action.type, outcome: 'failed', error: message });
        }
      }
    });
    return record(failure === null ? 'succeeded' : 'failed', failure, results);
  }

  /**
   * Runs rules one after another; nothing they do, not even a failed audit write, reaches the caller.
   * Rules the actor cannot see are left out (their calendar condition could not match its subject anyway).
   */
  async function runAll(actor: Actor, rules: readonly Rule[], trigger: AutomationTrigger, subject: Subject) {
    const entries: AuditEntry[] = [];
    for (const rule of rules) {
      if (!ruleInScope(actor, rule)) continue;
      try {
        const entry = await execute(actor, rule, trigger, subject, false);
        if (entry) entries.push(entry);
      } catch {
        // Only the audit write itself can land here; the triggering write stands.
      }
    }
    return entries;
  }

  /** Fires a trigger for the actor's user; a no-op inside a running rule (no loops). */
  async function dispatch(actor: Actor, trigger: AutomationTrigger, subject: Subject): Promise<AuditEntry[]> {
    if (runningRule.getStore() !== undefined) return [];
    try {
      return await runAll(actor, await repo.listEnabled(actor.userId, trigger), trigger, subject);
    } catch {
      return [];
    }
  }

  return {
    async listRules(actor: Actor): Promise<Rule[]> {
      return (await repo.listRules(actor.userId)).filter((rule) => ruleInScope(actor, rule));
    },

    getRule: requireRule,

    async createRule(actor: Actor, input: CreateRuleInput): Promise<Rule> {
      const checked = await checkRule(actor, input.trigger, input.conditions ?? {}, input.actions);
      return repo.insertRule(
        actor.userId,
        {
          name: input.name.trim(),
          enabled: input.enabled ?? true,
          trigger: input.trigger,
          ...checked,
          createdByAgentId: actor.agent?.id ?? null,
        },
        nowIso(),
      );
    },

    /** Changes the given fields; the merged rule is checked again. */
    async updateRule(actor: Actor, ruleId: number, input: UpdateRuleInput): Promise<Rule> {
      const current = await requireRule(actor, ruleId);
      const trigger = input.trigger ?? current.trigger;
      const checked = await checkRule(
        actor,
        trigger,
        input.conditions === undefined ? current.conditions : (input.conditions ?? {}),
        input.actions ?? current.actions,
      );
      return repo.updateRule(
        ruleId,
        {
          ...(input.name !== undefined ? { name: input.name.trim() } : {}),
          ...(input.enabled !== undefined ? { enabled: input.enabled } : {}),
          trigger,
          ...checked,
          // What an agent rewrites runs as that agent: it cannot borrow its owner's rule for more rights.
          ...(actor.agent ? { createdByAgentId: actor.agent.id } : {}),
        },
        nowIso(),
      );
    },

    /** Deletes the rule; its audit entries and event tags stay. */
    async deleteRule(actor: Actor, ruleId: number): Promise<void> {
      await requireRule(actor, ruleId);
      await repo.deleteRule(ruleId);
    },

    /**
     * Runs a rule now, whatever its trigger, on the given event (one the actor can
     * read) or task (the actor's), or on nothing. A disabled rule is 409 CONFLICT.
     * Always recorded (`skipped` when the conditions do not match); answers the entry.
     */
    async trigger(actor: Actor, ruleId: number, input: TriggerRuleInput = {}): Promise<AuditEntry> {
      const rule = await requireRule(actor, ruleId);
      if (!rule.enabled) throw conflict('CONFLICT', 'This rule is disabled; enable it before running it');
      if (input.eventId !== undefined && input.taskId !== undefined)
        throw invalid('taskId', 'give eventId or taskId, not both');
      const subject: Subject =
        input.eventId !== undefined
          ? { type: 'event', event: await events.get(actor, input.eventId) }
          : input.taskId !== undefined
            ? { type: 'task', task: await tasks.get(actor, input.taskId) }
            : null;
      return (await execute(actor, rule, 'manual', subject, true))!;
    },

    async listAudit(
      actor: Actor,
      query: ListAuditQuery,
    ): Promise<{ items: AuditEntry[]; nextCursor: string | null }> {
      const calendarIds = calendarScope(actor);
      const limits = calendarIds && {
        calendarIds,
        hiddenRuleIds: (await repo.listRules(actor.userId))
          .filter((rule) => !ruleInScope(actor, rule))
          .map((rule) => rule.id),
      };
      try {
        return await repo.listAudit(actor.userId, query, limits);
      } catch (error) {
        if (error instanceof InvalidCursorError) throw invalidCursor();
        throw error;
      }
    },

    /** Tags `tag_event` put on an event the actor can read. */
    async listEventTags(actor: Actor, eventId: number): Promise<EventTag[]> {
      await events.get(actor, eventId);
      return repo.listTags(eventId);
    },

    /**
     * For calendar sync (`triggerAutomationRules`): runs the user's enabled
     * `event.synced` rules (only `selectedRuleIds` among them when given) on an event
     * it has written and committed. Answers the audit entries of the rules that ran.
     */
    async runForSyncedEvent(
      actor: Actor,
      eventId: number,
      options: SyncedEventOptions = {},
    ): Promise<AuditEntry[]> {
      const event = await events.get(actor, eventId);
      if (runningRule.getStore() !== undefined) return [];
      let rules = await repo.listEnabled(actor.userId, 'event.synced');
      if (options.selectedRuleIds !== undefined) {
        const wanted = new Set(options.selectedRuleIds);
        rules = rules.filter((rule) => wanted.has(rule.id));
      }
      return runAll(actor, rules, 'event.synced', { type: 'event', event });
    },

    /** Wired to the events service: an event the actor created (not one imported by sync). */
    async onEventCreated(actor: Actor, event: Event): Promise<void> {
      if (event.external) return;
      await dispatch(actor, 'event.created', { type: 'event', event });
    },

    /** Wired to the tasks service: a task of the actor became done. */
    async onTaskCompleted(actor: Actor, task: Task): Promise<void> {
      await dispatch(actor, 'task.completed', { type: 'task', task });
    },
  };
}
