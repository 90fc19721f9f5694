import type { Executor } from '../../db/database.js';
import {
  changed,
  countOf,
  type DataSubject,
  exportSection,
  json,
  type PrivacyDeclaration,
  personal,
} from '../../privacy/declaration.js';
import { userAgentIds } from './ports.js';

const ownAgents = (db: Executor, { userId }: DataSubject) => userAgentIds(db, userId);

const held = (db: Executor, subject: DataSubject) => ({
  agents: db.selectFrom('agents').where('agents.userId', '=', subject.userId),
  permissions: db
    .selectFrom('agentPermissions')
    .where('agentPermissions.agentId', 'in', ownAgents(db, subject)),
  keys: db.selectFrom('agentKeys').where('agentKeys.agentId', 'in', ownAgents(db, subject)),
  activity: db.selectFrom('agentActivity').where('agentActivity.agentId', 'in', ownAgents(db, subject)),
  policies: db.selectFrom('agentPolicies').where('agentPolicies.agentId', 'in', ownAgents(db, subject)),
  usage: db.selectFrom('agentUsage').where('agentUsage.agentId', 'in', ownAgents(db, subject)),
  usageWindows: db
    .selectFrom('agentUsageWindows')
    .where('agentUsageWindows.agentId', 'in', ownAgents(db, subject)),
});

/**
 * Agents act for the person, so they and everything they hold are the person's.
 * Erasure deletes them with their keys: every agent credential (static key, OAuth access
 * token) stops verifying; the oauth module erases their refresh tokens first.
 * Exports never carry a key hash.
 */
export const agentsPrivacy: PrivacyDeclaration = {
  module: 'agents',
  tables: {
    agents: personal('agents', 'deleted'),
    agent_permissions: personal('agents', 'deleted'),
    agent_keys: personal('agents', 'deleted (every key stops working)'),
    agent_activity: personal('agent_activity', 'deleted'),
    agent_policies: personal('agents', 'deleted'),
    agent_usage: personal('agent_activity', 'deleted'),
    agent_usage_windows: personal('agent_activity', 'deleted'),
  },
  categories: [
    {
      id: 'agents',
      label: 'AI agents acting for you: names, permissions, keys (only hashes of the secrets)',
      purpose: 'Letting the agents you approve act for you within the permissions you gave them',
      retention: 'Until your account is erased; disabled agents are kept as history',
    },
    {
      id: 'agent_activity',
      label:
        "Your agents' tool calls: action, arguments (contact details and secrets redacted), what they touched, outcome, duration, time; and what they used of their daily limits",
      purpose: 'Showing you what your agents did for you, and holding them to the limits you set',
      retention: 'AGENT_ACTIVITY_RETENTION_DAYS (default 90 days); limit uses 2 days',
    },
  ],
  async holdings(db, subject) {
    const q = held(db, subject);
    return {
      agents: await countOf(q.agents),
      agent_permissions: await countOf(q.permissions),
      agent_keys: await countOf(q.keys),
      agent_activity: await countOf(q.activity),
      agent_policies: await countOf(q.policies),
      agent_usage: await countOf(q.usage),
      agent_usage_windows: await countOf(q.usageWindows),
    };
  },
  exports: [
    exportSection({
      name: 'agents',
      table: 'agents',
      key: ['agents.id'],
      rows: (db, s) =>
        held(db, s).agents.select([
          'agents.id',
          'name',
          'description',
          'status',
          'permissionGroupId',
          'oauthClientId',
          'createdAt',
          'updatedAt',
          'lastUsedAt',
        ]),
    }),
    exportSection({
      name: 'agentPermissions',
      table: 'agent_permissions',
      key: ['agentPermissions.id'],
      rows: (db, s) =>
        held(db, s).permissions.select(['agentPermissions.id', 'agentId', 'actionKey', 'scope']),
      record: (row) => ({ ...row, scope: json(row.scope) }),
    }),
    exportSection({
      name: 'agentKeys',
      table: 'agent_keys',
      // One agent at a time: (agent_id, id) is indexed.
      partition: { column: 'agentKeys.agentId', values: ownAgents },
      key: ['agentKeys.id'],
      rows: (db) =>
        db
          .selectFrom('agentKeys')
          .select(['agentKeys.id', 'agentId', 'label', 'prefix', 'createdAt', 'lastUsedAt', 'revokedAt']),
    }),
    exportSection({
      name: 'agentActivity',
      table: 'agent_activity',
      // One agent at a time: (agent_id, id) is indexed.
      partition: { column: 'agentActivity.agentId', values: ownAgents },
      key: ['agentActivity.id'],
      rows: (db) =>
        db
          .selectFrom('agentActivity')
          .select([
            'agentActivity.id',
            'agentId',
            'actionKey',
            'outcome',
            'errorCode',
            'durationMs',
            'arguments',
            'targetIds',
            'approvalId',
            'createdAt',
          ]),
      record: (row) => ({ ...row, arguments: json(row.arguments), targetIds: json(row.targetIds) }),
    }),
    exportSection({
      name: 'agentPolicies',
      table: 'agent_policies',
      key: ['agentPolicies.agentId'],
      rows: (db, s) =>
        held(db, s).policies.select([
          'agentPolicies.agentId',
          'requireApproval',
          'approvalOverAmount',
          'bookingsPerDay',
          'cancellationsPerDay',
          'spendPerDay',
          'updatedAt',
        ]),
    }),
    exportSection({
      name: 'agentUsage',
      table: 'agent_usage',
      key: ['agentUsage.id'],
      rows: (db, s) => held(db, s).usage.select(['agentUsage.id', 'agentId', 'kind', 'amount', 'createdAt']),
    }),
    exportSection({
      name: 'agentUsageWindows',
      table: 'agent_usage_windows',
      key: ['agentUsageWindows.agentId'],
      rows: (db, s) =>
        held(db, s).usageWindows.select([
          'agentUsageWindows.agentId',
          'since',
          'bookingUsed',
          'cancellationUsed',
          'spendUsed',
        ]),
    }),
  ],
  async erase(trx, subject) {
    const agents = ownAgents(trx, subject);
    const keys = await trx.deleteFrom('agentKeys').where('agentId', 'in', agents).executeTakeFirst();
    const activity = await trx.deleteFrom('agentActivity').where('agentId', 'in', agents).executeTakeFirst();
    const policies = await trx.deleteFrom('agentPolicies').where('agentId', 'in', agents).executeTakeFirst();
    const usage = await trx.deleteFrom('agentUsage').where('agentId', 'in', agents).executeTakeFirst();
    const usageWindows = await trx
      .deleteFrom('agentUsageWindows')
      .where('agentId', 'in', agents)
      .executeTakeFirst();
    const permissions = await trx
      .deleteFrom('agentPermissions')
      .where('agentId', 'in', agents)
      .executeTakeFirst();
    const deleted = await trx.deleteFrom('agents').where('userId', '=', subject.userId).executeTakeFirst();
    return {
      agent_keys: changed(keys),
      agent_activity: changed(activity),
      agent_policies: changed(policies),
      agent_usage: changed(usage),
      agent_usage_windows: changed(usageWindows),
      agent_permissions: changed(permissions),
      agents: changed(deleted),
    };
  },
  async delegates(db, subject) {
    const rows = await held(db, subject)
      .agents.where('agents.status', '!=', 'disabled')
      .select((eb) => [
        'agents.id',
        'agents.name',
        'agents.status',
        'agents.permissionGroupId',
        'agents.oauthClientId',
        'agents.createdAt',
        'agents.lastUsedAt',
        eb
          .selectFrom('agentKeys')
          .select((k) => k.fn.countAll<number>().as('n'))
          .whereRef('agentKeys.agentId', '=', 'agents.id')
          .where('agentKeys.revokedAt', 'is', null)
          .as('liveKeys'),
      ])
      .orderBy('agents.id')
      .execute();
    return { agents: rows.map((row) => ({ ...row, liveKeys: Number(row.liveKeys ?? 0) })) };
  },
};
