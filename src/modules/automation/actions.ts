import { type Actor, agentActor } from '../../lib/actor.js';
import { DomainError, forbidden } from '../../lib/errors.js';
import { nowIso } from '../../lib/time.js';
import { PROFILE_ACTION, type ResolvedAgent } from '../../mcp/types.js';
import type { Event } from '../events/schemas.js';
import type { AutomationContext, Subject } from './context.js';
import type { Rule, RuleAction } from './schemas.js';

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
export type RunAs =
  | { kind: 'person' }
  | { kind: 'agent'; agent: ResolvedAgent }
  | { kind: 'inactive'; reason: string };

export const titleOf = (subject: Subject) =>
  subject?.type === 'event' ? subject.event.title : subject?.type === 'task' ? subject.task.title : null;

const render = (text: string, subject: Subject) => text.replaceAll('{{title}}', titleOf(subject) ?? '');

function requireEvent(subject: Subject): Event {
  if (subject?.type !== 'event')
    throw new DomainError('VALIDATION_FAILED', 'This action needs an event to act on');
  return subject.event;
}

/**
 * A rule an agent wrote acts as that agent, read again now: a paused or disabled agent's
 * rules do not run, and each action needs the agent's own permission for it, under that
 * permission's scope (DECISIONS.md "Agents acting safely"). An agent cannot borrow its
 * owner's rights by planting a rule, nor by rewriting one (an update makes it the agent's).
 */
export async function runAsOf({ agents }: AutomationContext, actor: Actor, rule: Rule): Promise<RunAs> {
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

/** The Actor for one rule action, naming its rule: the agent under that action's own permission and scope, or refused. */
export function actorFor(actor: Actor, runAs: RunAs, rule: Rule, action: RuleAction): Actor {
  if (runAs.kind !== 'agent') return { ...actor, forRule: rule.id };
  const key = RULE_ACTION_KEYS[action.type];
  const permission = runAs.agent.permissions.find((p) => p.actionKey === key);
  if (!permission)
    throw forbidden(`The agent this rule acts for may not ${key}, so the rule may not ${action.type} either`);
  const actions = new Set([...runAs.agent.permissions.map((p) => p.actionKey), PROFILE_ACTION]);
  return {
    ...agentActor(runAs.agent.userId, { id: runAs.agent.id, actions, scope: permission.scope }),
    forRule: rule.id,
  };
}

/** Does one action of a rule, as `actor`; answers what it made (a task's id) for the audit entry. */
export async function perform(
  { repo, tasks, events, calendars }: AutomationContext,
  actor: Actor,
  rule: Rule,
  action: RuleAction,
  subject: Subject,
  runAt: number,
) {
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
