import type { Selectable } from 'kysely';
import type { Executor } from '../../db/database.js';
import { idBefore, newestFirstPage } from '../../db/keyset.js';
import { eventIdsInCalendars } from '../events/ports.js';
import type {
  ActionResult,
  AuditEntry,
  AuditOutcome,
  AutomationTrigger,
  EventTag,
  ListAuditQuery,
  Rule,
  RuleAction,
  RuleConditions,
} from './schemas.js';
import type { AutomationAuditTable, AutomationRulesTable, AutomationSubjectType } from './tables.js';

export interface RuleValues {
  name: string;
  enabled: boolean;
  trigger: AutomationTrigger;
  conditions: RuleConditions;
  actions: RuleAction[];
  /** The agent that wrote it (null: the owner); absent in an update: unchanged. */
  createdByAgentId?: number | null;
}

export interface AuditValues {
  ownerId: number;
  ruleId: number;
  ruleName: string;
  trigger: AutomationTrigger;
  subjectType: AutomationSubjectType | null;
  subjectId: number | null;
  outcome: AuditOutcome;
  error: string | null;
  actions: ActionResult[];
}

/**
 * What an actor limited to some calendars may see of the audit log: runs on no event,
 * or on an event of these calendars; never runs of the hidden rules.
 */
export interface AuditLimits {
  calendarIds: readonly number[];
  hiddenRuleIds: readonly number[];
}

function toRule(row: Selectable<AutomationRulesTable>): Rule {
  return {
    id: row.id,
    name: row.name,
    enabled: Boolean(row.enabled),
    trigger: row.trigger,
    conditions: JSON.parse(row.conditions) as RuleConditions,
    actions: JSON.parse(row.actions) as RuleAction[],
    createdByAgentId: row.createdByAgentId ?? null,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}

function toAuditEntry(row: Selectable<AutomationAuditTable>): AuditEntry {
  return {
    id: row.id,
    ruleId: row.ruleId,
    ruleName: row.ruleName,
    trigger: row.trigger,
    subjectType: row.subjectType,
    subjectId: row.subjectId,
    outcome: row.outcome,
    error: row.error,
    actions: JSON.parse(row.actions) as ActionResult[],
    createdAt: row.createdAt,
  };
}

function toColumns(values: Partial<RuleValues>) {
  const { conditions, actions, ...rest } = values;
  return {
    ...rest,
    ...(conditions !== undefined ? { conditions: JSON.stringify(conditions) } : {}),
    ...(actions !== undefined ? { actions: JSON.stringify(actions) } : {}),
  };
}

export function createAutomationRepo(db: Executor) {
  return {
    async insertRule(ownerId: number, values: RuleValues, now: string): Promise<Rule> {
      const row = await db
        .insertInto('automationRules')
        .values({
          ownerId,
          ...values,
          conditions: JSON.stringify(values.conditions),
          actions: JSON.stringify(values.actions),
          createdAt: now,
          updatedAt: now,
        })
        .returningAll()
        .executeTakeFirstOrThrow();
      return toRule(row);
    },

    async listRules(ownerId: number): Promise<Rule[]> {
      const rows = await db
        .selectFrom('automationRules')
        .selectAll()
        .where('ownerId', '=', ownerId)
        .orderBy('name')
        .orderBy('id')
        .execute();
      return rows.map(toRule);
    },

    /** The owner's enabled rules for a trigger, in id order (the order they run in). */
    async listEnabled(ownerId: number, trigger: AutomationTrigger): Promise<Rule[]> {
      const rows = await db
        .selectFrom('automationRules')
        .selectAll()
        .where('ownerId', '=', ownerId)
        .where('trigger', '=', trigger)
        .where('enabled', '=', true)
        .orderBy('id')
        .execute();
      return rows.map(toRule);
    },

    async findRule(ownerId: number, id: number): Promise<Rule | undefined> {
      const row = await db
        .selectFrom('automationRules')
        .selectAll()
        .where('ownerId', '=', ownerId)
        .where('id', '=', id)
        .executeTakeFirst();
      return row && toRule(row);
    },

    async updateRule(id: number, values: Partial<RuleValues>, now: string): Promise<Rule> {
      const row = await db
        .updateTable('automationRules')
        .set({ ...toColumns(values), updatedAt: now })
        .where('id', '=', id)
        .returningAll()
        .executeTakeFirstOrThrow();
      return toRule(row);
    },

    async deleteRule(id: number): Promise<void> {
      // Its audit entries and tags stay, without the rule id (set null).
      await db.deleteFrom('automationRules').where('id', '=', id).execute();
    },

    async insertAudit(values: AuditValues, now: string): Promise<AuditEntry> {
      const row = await db
        .insertInto('automationAudit')
        .values({ ...values, actions: JSON.stringify(values.actions), createdAt: now })
        .returningAll()
        .executeTakeFirstOrThrow();
      return toAuditEntry(row);
    },

    /** Newest first, by id, within `limits` when given. Throws InvalidCursorError for a foreign cursor. */
    async listAudit(ownerId: number, query: ListAuditQuery, limits?: AuditLimits) {
      let q = db.selectFrom('automationAudit').selectAll().where('ownerId', '=', ownerId);
      if (limits) {
        const { calendarIds, hiddenRuleIds } = limits;
        // An event subject counts only while it exists in one of the calendars.
        q = q.where((eb) =>
          eb.or([
            eb('subjectType', 'is', null),
            eb('subjectType', '!=', 'event'),
            ...(calendarIds.length > 0 ? [eb('subjectId', 'in', eventIdsInCalendars(db, calendarIds))] : []),
          ]),
        );
        if (hiddenRuleIds.length > 0)
          q = q.where((eb) => eb.or([eb('ruleId', 'is', null), eb('ruleId', 'not in', hiddenRuleIds)]));
      }
      if (query.ruleId !== undefined) q = q.where('ruleId', '=', query.ruleId);
      if (query.outcome !== undefined) q = q.where('outcome', '=', query.outcome);
      if (query.cursor !== undefined) q = q.where('id', '<', idBefore(query.cursor));
      const rows = await q
        .orderBy('id', 'desc')
        .limit(query.limit + 1)
        .execute();
      const { page, nextCursor } = newestFirstPage(rows, query.limit);
      return { items: page.map(toAuditEntry), nextCursor };
    },

    /** Tags the event; a tag it already has stays as it is. */
    async insertTag(eventId: number, label: string, ruleId: number, now: string): Promise<void> {
      await db
        .insertInto('eventTags')
        .values({ eventId, label, ruleId, createdAt: now })
        .onConflict((oc) => oc.columns(['eventId', 'label']).doNothing())
        .execute();
    },

    listTags(eventId: number): Promise<EventTag[]> {
      return db
        .selectFrom('eventTags')
        .select(['label', 'ruleId', 'createdAt'])
        .where('eventId', '=', eventId)
        .orderBy('label')
        .execute();
    },
  };
}
