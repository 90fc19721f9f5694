import { z } from 'zod';
import { entityId, page } from '../../http/schemas.js';
import { defineTool } from '../../mcp/types.js';
import {
  auditEntry,
  createRuleBody,
  eventTag,
  listAuditQuery,
  rule,
  triggerRuleBody,
  updateRuleBody,
} from './schemas.js';
import type { AutomationService } from './service.js';

const ruleRef = { ruleId: entityId };

/** MCP tools of automation: rules, manual runs, the audit log and event tags, within the agent's calendar scope. */
export const automationTools = [
  defineTool({
    actionKey: 'automation.rules.list',
    title: 'List automation rules',
    description: 'Your automation rules, by name, with trigger, conditions and actions.',
    catalogue: {
      description: "The owner's automation rules.",
      risk: 'read',
      scopeKinds: ['calendar'],
    },
    input: z.strictObject({}),
    output: z.object({ rules: z.array(rule) }),
    run: async (automation: AutomationService, actor) => ({ rules: await automation.listRules(actor) }),
  }),
  defineTool({
    actionKey: 'automation.rules.get',
    title: 'Read automation rule',
    description: 'One automation rule of yours.',
    catalogue: {
      description: 'One automation rule.',
      risk: 'read',
      scopeKinds: ['calendar'],
    },
    input: z.strictObject(ruleRef),
    output: rule,
    run: (automation: AutomationService, actor, { ruleId }) => automation.getRule(actor, ruleId),
  }),
  defineTool({
    actionKey: 'automation.rules.create',
    title: 'Create automation rule',
    description:
      'A new rule: a trigger, optional conditions, and 1..10 actions run in order. When your access is limited to some calendars, an event-fired rule must name one of them in conditions.calendarId.',
    catalogue: {
      description: 'A new rule: trigger, conditions, actions.',
      risk: 'write',
      scopeKinds: ['calendar'],
    },
    input: createRuleBody,
    output: rule,
    run: (automation: AutomationService, actor, input) => automation.createRule(actor, input),
  }),
  defineTool({
    actionKey: 'automation.rules.update',
    title: 'Update automation rule',
    description:
      'Changes the given fields of a rule, or enables/disables it; conditions and actions are replaced as a whole and the merged rule is checked again.',
    catalogue: {
      description: 'Changes or enables/disables a rule.',
      risk: 'write',
      scopeKinds: ['calendar'],
    },
    input: z.strictObject({ ...ruleRef, ...updateRuleBody.shape }),
    output: rule,
    run: (automation: AutomationService, actor, { ruleId, ...changes }) =>
      automation.updateRule(actor, ruleId, changes),
  }),
  defineTool({
    actionKey: 'automation.rules.delete',
    title: 'Delete automation rule',
    description: 'Deletes a rule of yours; its audit entries and event tags stay.',
    catalogue: {
      description: 'Deletes a rule; its audit entries stay.',
      risk: 'destructive',
      scopeKinds: ['calendar'],
    },
    input: z.strictObject(ruleRef),
    output: z.object({ deleted: z.literal(true) }),
    run: async (automation: AutomationService, actor, { ruleId }) => {
      await automation.deleteRule(actor, ruleId);
      return { deleted: true as const };
    },
  }),
  defineTool({
    actionKey: 'automation.rules.trigger',
    title: 'Run automation rule',
    description:
      'Runs an enabled rule now, whatever its trigger, on an event you can read (eventId), a task of yours (taskId), or nothing; give at most one. Answers the audit entry of the run (skipped when the conditions do not match).',
    catalogue: {
      description: 'Runs a rule now, optionally on an event or task.',
      risk: 'write',
      scopeKinds: ['calendar'],
    },
    input: triggerRuleBody.safeExtend(ruleRef),
    output: auditEntry,
    run: (automation: AutomationService, actor, { ruleId, ...input }) =>
      automation.trigger(actor, ruleId, input),
  }),
  defineTool({
    actionKey: 'automation.audit.list',
    title: 'Read automation audit',
    description:
      'What your rules did, newest first, optionally for one rule or outcome, one page at a time: pass nextCursor as cursor for the next page.',
    catalogue: {
      description: 'What rules did, newest first, one page at a time.',
      risk: 'read',
      scopeKinds: ['calendar'],
    },
    input: listAuditQuery,
    output: page(auditEntry),
    run: (automation: AutomationService, actor, query) => automation.listAudit(actor, query),
  }),
  defineTool({
    actionKey: 'automation.eventTags.list',
    title: 'Read event tags',
    description: 'The tags automation rules (tag_event actions) put on an event you can read.',
    catalogue: {
      description: 'Tags automation rules put on an event.',
      risk: 'read',
      scopeKinds: ['calendar'],
    },
    input: z.strictObject({ eventId: entityId }),
    output: z.object({ tags: z.array(eventTag) }),
    run: async (automation: AutomationService, actor, { eventId }) => ({
      tags: await automation.listEventTags(actor, eventId),
    }),
  }),
];
