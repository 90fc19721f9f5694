import type { Actor } from '../../lib/actor.js';
import { DomainError } from '../../lib/errors.js';
import { nowIso } from '../../lib/time.js';
import { actorFor, perform, runAsOf, titleOf } from './actions.js';
import { type AutomationContext, ruleInScope, type Subject } from './context.js';
import type { ActionResult, AuditEntry, AutomationTrigger, Rule, RuleConditions } from './schemas.js';

function matches(conditions: RuleConditions, subject: Subject): boolean {
  if (conditions.titleContains !== undefined) {
    const title = titleOf(subject);
    if (title === null || !title.toLowerCase().includes(conditions.titleContains.toLowerCase())) return false;
  }
  if (conditions.calendarId !== undefined)
    return subject?.type === 'event' && subject.event.calendarId === conditions.calendarId;
  return true;
}

/** What an audit entry says about a failure: the client-facing message, never internals. */
function describeFailure(error: unknown): string {
  if (error instanceof DomainError) return `${error.code}: ${error.message}`;
  return 'INTERNAL: the action failed unexpectedly';
}

/**
 * Runs one rule on a subject and records the run. A rule whose conditions do not
 * match is recorded as `skipped` only when `recordSkipped` (manual runs).
 */
export async function execute(
  ctx: AutomationContext,
  actor: Actor,
  rule: Rule,
  trigger: AutomationTrigger,
  subject: Subject,
  recordSkipped: boolean,
): Promise<AuditEntry | null> {
  const record = (outcome: AuditEntry['outcome'], error: string | null, results: ActionResult[]) =>
    ctx.repo.insertAudit(
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
  const runAs = await runAsOf(ctx, actor, rule);
  if (runAs.kind === 'inactive') return record('skipped', runAs.reason, []);

  const results: ActionResult[] = [];
  let failure: string | null = null;
  const runAt = Date.now();
  for (const [i, action] of rule.actions.entries()) {
    if (failure !== null) {
      results.push({ type: action.type, outcome: 'not_run' });
      continue;
    }
    try {
      results.push({
        type: action.type,
        outcome: 'succeeded',
        ...(await perform(ctx, actorFor(actor, runAs, rule, action), rule, action, subject, runAt)),
      });
    } catch (error) {
      const message = describeFailure(error);
      failure = `actions.${i} (${action.type}): ${message}`;
      results.push({ type: action.type, outcome: 'failed', error: message });
    }
  }
  return record(failure === null ? 'succeeded' : 'failed', failure, results);
}

/**
 * Runs rules one after another; nothing they do, not even a failed audit write, reaches the caller.
 * Rules the actor cannot see are left out (their calendar condition could not match its subject anyway).
 */
export async function runAll(
  ctx: AutomationContext,
  actor: Actor,
  rules: readonly Rule[],
  trigger: AutomationTrigger,
  subject: Subject,
) {
  const entries: AuditEntry[] = [];
  for (const rule of rules) {
    if (!ruleInScope(actor, rule)) continue;
    try {
      const entry = await execute(ctx, actor, rule, trigger, subject, false);
      if (entry) entries.push(entry);
    } catch {
      // Only the audit write itself can land here; the triggering write stands.
    }
  }
  return entries;
}

/** Fires a trigger for the actor's user; a no-op inside a running rule (no loops). */
export async function dispatch(
  ctx: AutomationContext,
  actor: Actor,
  trigger: AutomationTrigger,
  subject: Subject,
): Promise<AuditEntry[]> {
  if (actor.forRule !== undefined) return [];
  try {
    return await runAll(ctx, actor, await ctx.repo.listEnabled(actor.userId, trigger), trigger, subject);
  } catch {
    return [];
  }
}
