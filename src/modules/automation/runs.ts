import type { Actor } from '../../lib/actor.js';
import { conflict } from '../../lib/errors.js';
import type { Event } from '../events/schemas.js';
import type { Task } from '../tasks/schemas.js';
import { type AutomationContext, invalid, requireRule, type Subject } from './context.js';
import { dispatch, execute, runAll } from './execution.js';
import type { AuditEntry, TriggerRuleInput } from './schemas.js';
import type { AutomationService } from './service.js';

export interface SyncedEventOptions {
  /** Only these rules (among the user's enabled `event.synced` rules); absent: all of them. */
  selectedRuleIds?: readonly number[];
}

type Runs = Pick<AutomationService, 'trigger' | 'runForSyncedEvent' | 'onEventCreated' | 'onTaskCompleted'>;

/** Running rules: by hand, for calendar sync, and on the events and tasks services' writes. */
export function createRuns(ctx: AutomationContext): Runs {
  const { repo, events, tasks } = ctx;
  return {
    async trigger(actor: Actor, ruleId: number, input: TriggerRuleInput = {}): Promise<AuditEntry> {
      const rule = await requireRule(ctx, actor, ruleId);
      if (!rule.enabled) throw conflict('CONFLICT', 'This rule is disabled; enable it before running it');
      if (input.eventId !== undefined && input.taskId !== undefined)
        throw invalid('taskId', 'give eventId or taskId, not both');
      const subject: Subject =
        input.eventId !== undefined
          ? { type: 'event', event: await events.get(actor, input.eventId) }
          : input.taskId !== undefined
            ? { type: 'task', task: await tasks.get(actor, input.taskId) }
            : null;
      return (await execute(ctx, actor, rule, 'manual', subject, true))!;
    },

    async runForSyncedEvent(
      actor: Actor,
      eventId: number,
      options: SyncedEventOptions = {},
    ): Promise<AuditEntry[]> {
      const event = await events.get(actor, eventId);
      if (actor.forRule !== undefined) return [];
      let rules = await repo.listEnabled(actor.userId, 'event.synced');
      if (options.selectedRuleIds !== undefined) {
        const wanted = new Set(options.selectedRuleIds);
        rules = rules.filter((rule) => wanted.has(rule.id));
      }
      return runAll(ctx, actor, rules, 'event.synced', { type: 'event', event });
    },

    async onEventCreated(actor: Actor, event: Event): Promise<void> {
      if (event.external) return;
      await dispatch(ctx, actor, 'event.created', { type: 'event', event });
    },

    async onTaskCompleted(actor: Actor, task: Task): Promise<void> {
      await dispatch(ctx, actor, 'task.completed', { type: 'task', task });
    },
  };
}
