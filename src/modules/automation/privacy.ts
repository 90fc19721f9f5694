import type { Executor } from '../../db/database.js';
import {
  bool,
  changed,
  countOf,
  type DataSubject,
  exportSection,
  json,
  type PrivacyDeclaration,
  personal,
} from '../../privacy/declaration.js';
import { ownedEventIds } from '../events/ports.js';

const ownRules = (db: Executor, { userId }: DataSubject) =>
  db.selectFrom('automationRules').select('automationRules.id').where('automationRules.ownerId', '=', userId);
const ownEvents = (db: Executor, { userId }: DataSubject) => ownedEventIds(db, userId);

const held = (db: Executor, subject: DataSubject) => ({
  rules: db.selectFrom('automationRules').where('automationRules.ownerId', '=', subject.userId),
  audit: db.selectFrom('automationAudit').where('automationAudit.ownerId', '=', subject.userId),
  // Tags on the person's events, and tags their rules put anywhere.
  tags: db
    .selectFrom('eventTags')
    .where((eb) =>
      eb.or([
        eb('eventTags.eventId', 'in', ownEvents(db, subject)),
        eb('eventTags.ruleId', 'in', ownRules(db, subject)),
      ]),
    ),
});

/** Automation rules, their run log, and the tags they put on events. */
export const automationPrivacy: PrivacyDeclaration = {
  module: 'automation',
  tables: {
    automation_rules: personal('automation', 'deleted'),
    automation_audit: personal('automation', 'deleted'),
    event_tags: personal('automation', 'deleted'),
  },
  categories: [
    {
      id: 'automation',
      label: 'Automation rules, the log of their runs, and the tags they put on events',
      purpose: 'Running the rules you set up and showing you what they did',
      retention: 'Until you delete them or your account is erased',
    },
  ],
  async holdings(db, subject) {
    const q = held(db, subject);
    return {
      automation_rules: await countOf(q.rules),
      automation_audit: await countOf(q.audit),
      event_tags: await countOf(q.tags),
    };
  },
  exports: [
    exportSection({
      name: 'automationRules',
      table: 'automation_rules',
      key: ['automationRules.id'],
      rows: (db, s) =>
        held(db, s).rules.select([
          'automationRules.id',
          'name',
          'enabled',
          'trigger',
          'conditions',
          'actions',
          'createdAt',
          'updatedAt',
        ]),
      record: (row) => ({
        ...row,
        enabled: bool(row.enabled),
        conditions: json(row.conditions),
        actions: json(row.actions),
      }),
    }),
    exportSection({
      name: 'automationAudit',
      table: 'automation_audit',
      key: ['automationAudit.id'],
      rows: (db, s) =>
        held(db, s).audit.select([
          'automationAudit.id',
          'ruleId',
          'ruleName',
          'trigger',
          'subjectType',
          'subjectId',
          'outcome',
          'error',
          'actions',
          'createdAt',
        ]),
      record: (row) => ({ ...row, actions: json(row.actions) }),
    }),
    exportSection({
      name: 'eventTags',
      table: 'event_tags',
      key: ['eventTags.id'],
      rows: (db, s) =>
        held(db, s).tags.select([
          'eventTags.id',
          'eventTags.eventId',
          'label',
          'ruleId',
          'eventTags.createdAt',
        ]),
    }),
  ],
  async erase(trx, subject) {
    const tags = await trx
      .deleteFrom('eventTags')
      .where((eb) =>
        eb.or([eb('eventId', 'in', ownEvents(trx, subject)), eb('ruleId', 'in', ownRules(trx, subject))]),
      )
      .executeTakeFirst();
    const audit = await trx
      .deleteFrom('automationAudit')
      .where('ownerId', '=', subject.userId)
      .executeTakeFirst();
    const rules = await trx
      .deleteFrom('automationRules')
      .where('ownerId', '=', subject.userId)
      .executeTakeFirst();
    return { event_tags: changed(tags), automation_audit: changed(audit), automation_rules: changed(rules) };
  },
};
