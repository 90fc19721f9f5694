import type { Executor } from '../../db/database.js';
import {
  changed,
  countOf,
  type DataSubject,
  exportSection,
  json,
  noPersonalData,
  type PrivacyDeclaration,
  personal,
} from '../../privacy/declaration.js';

const own = (db: Executor, { userId }: Pick<DataSubject, 'userId'>) =>
  db.selectFrom('agentApprovals').where('agentApprovals.userId', '=', userId);

/**
 * Approvals are the person's: calls their agents asked them to approve, with the stored
 * arguments (a booking's customer details among them) and what the call answered.
 * Exported whole and deleted on erasure, before the agents they belong to.
 */
export const approvalsPrivacy: PrivacyDeclaration = {
  module: 'approvals',
  tables: {
    agent_approvals: personal('agent_approvals', 'deleted'),
    agent_approval_tasks: noPersonalData(
      'An MCP task handle: a random id, the approval it follows and its times; erased with that approval',
    ),
  },
  categories: [
    {
      id: 'agent_approvals',
      label: 'Calls your agents asked you to approve: the call, its summary, your decision and its result',
      purpose: 'Letting you decide before your agents book, cancel or pay, and showing what then happened',
      retention: 'Until your account is erased',
    },
  ],
  async holdings(db, subject) {
    return { agent_approvals: await countOf(own(db, subject)) };
  },
  exports: [
    exportSection({
      name: 'agentApprovals',
      table: 'agent_approvals',
      key: ['agentApprovals.id'],
      rows: (db, s) =>
        own(db, s).select([
          'agentApprovals.id',
          'agentId',
          'actionKey',
          'arguments',
          'summary',
          'amount',
          'currency',
          'organisationId',
          'facts',
          'status',
          'result',
          'createdAt',
          'decidedAt',
          'expiresAt',
        ]),
      record: (row) => ({
        ...row,
        arguments: json(row.arguments),
        facts: json(row.facts),
        result: json(row.result),
      }),
    }),
  ],
  async erase(trx, { userId }) {
    // A task is a handle on an approval (its random id, times): it goes with it.
    await trx
      .deleteFrom('agentApprovalTasks')
      .where('approvalId', 'in', own(trx, { userId }).select('agentApprovals.id'))
      .execute();
    const deleted = await trx.deleteFrom('agentApprovals').where('userId', '=', userId).executeTakeFirst();
    return { agent_approvals: changed(deleted) };
  },
};
