import type { Generated } from 'kysely';
import type { Bool, Id, JsonText, Timestamp } from '../../db/column-types.js';

export type AutomationTrigger = 'event.created' | 'event.synced' | 'task.completed' | 'manual';

export type AutomationOutcome = 'succeeded' | 'failed' | 'skipped';

export type AutomationSubjectType = 'event' | 'task';

export interface AutomationRulesTable {
  id: Id;
  ownerId: number;
  name: string;
  enabled: Bool;
  trigger: AutomationTrigger;
  /** JSON object `{titleContains?, calendarId?}`; `{}` matches everything. */
  conditions: JsonText;
  /** JSON array of actions (`create_task`, `add_reminder`, `tag_event`). */
  actions: JsonText;
  /** The agent that wrote the rule: it runs as that agent (its actions and scope then), never as the owner. */
  createdByAgentId: Generated<number | null>;
  createdAt: Timestamp;
  updatedAt: Timestamp;
}

/** One row per rule run. The rule's name is kept, so the log outlives the rule. */
export interface AutomationAuditTable {
  id: Id;
  ownerId: number;
  ruleId: number | null;
  ruleName: string;
  trigger: AutomationTrigger;
  subjectType: AutomationSubjectType | null;
  subjectId: number | null;
  outcome: AutomationOutcome;
  error: string | null;
  /** JSON array of per-action results. */
  actions: JsonText;
  createdAt: Timestamp;
}

/** Labels the `tag_event` action put on events; one per (event, label). */
export interface EventTagsTable {
  id: Id;
  eventId: number;
  label: string;
  ruleId: number | null;
  createdAt: Timestamp;
}

/** The tables this module owns (declared into Database by its module.ts). */
export interface AutomationTables {
  automationRules: AutomationRulesTable;
  automationAudit: AutomationAuditTable;
  eventTags: EventTagsTable;
}
