import { type Actor, calendarScope } from '../../lib/actor.js';
import { nowIso } from '../../lib/time.js';
import { type AutomationContext, invalid, requireRule, ruleInScope } from './context.js';
import type { RuleValues } from './repo.js';
import {
  type AutomationTrigger,
  type CreateRuleInput,
  RULE_MAX_ACTIONS,
  type Rule,
  type RuleAction,
  type RuleConditions,
  type UpdateRuleInput,
} from './schemas.js';
import type { AutomationService } from './service.js';

const EVENT_ACTIONS = new Set<RuleAction['type']>(['add_reminder', 'tag_event']);
const EVENT_TRIGGERS = new Set<AutomationTrigger>(['event.created', 'event.synced']);

/** Checks the parts of a rule together; references must be the actor's (404 otherwise). */
async function checkRule(
  { calendars, tasks }: AutomationContext,
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

type Rules = Pick<AutomationService, 'listRules' | 'getRule' | 'createRule' | 'updateRule' | 'deleteRule'>;

/** Writing and reading rules: each write is checked whole against the actor's reach. */
export function createRules(ctx: AutomationContext): Rules {
  const { repo } = ctx;
  return {
    async listRules(actor: Actor): Promise<Rule[]> {
      return (await repo.listRules(actor.userId)).filter((rule) => ruleInScope(actor, rule));
    },

    getRule: (actor, ruleId) => requireRule(ctx, actor, ruleId),

    async createRule(actor: Actor, input: CreateRuleInput): Promise<Rule> {
      const checked = await checkRule(ctx, actor, input.trigger, input.conditions ?? {}, input.actions);
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

    async updateRule(actor: Actor, ruleId: number, input: UpdateRuleInput): Promise<Rule> {
      const current = await requireRule(ctx, actor, ruleId);
      const trigger = input.trigger ?? current.trigger;
      const checked = await checkRule(
        ctx,
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

    async deleteRule(actor: Actor, ruleId: number): Promise<void> {
      await requireRule(ctx, actor, ruleId);
      await repo.deleteRule(ruleId);
    },
  };
}
