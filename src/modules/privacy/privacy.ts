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

const held = (db: Executor, { userId }: DataSubject) => ({
  requests: db.selectFrom('dataSubjectRequests').where('dataSubjectRequests.userId', '=', userId),
  consents: db.selectFrom('consentDecisions').where('consentDecisions.userId', '=', userId),
  acceptances: db.selectFrom('policyAcceptances').where('policyAcceptances.userId', '=', userId),
});

/**
 * The privacy module's own tables. Erasure deletes consent and acceptance histories
 * and keeps the person's requests without anything personal (no user, reason, email
 * or note): with the audit trail they are the operator's proof that the person's
 * rights were served.
 */
export const privacyPrivacy: PrivacyDeclaration = {
  module: 'privacy',
  tables: {
    data_subject_requests: personal(
      'privacy_requests',
      'kept as proof without the link to you, the reason, the email and the note',
    ),
    consent_decisions: personal('consents', 'deleted'),
    policy_acceptances: personal('consents', 'deleted'),
    privacy_audit: noPersonalData('What happened to each request: actions, request ids and row counts only'),
  },
  categories: [
    {
      id: 'consents',
      label: 'Consent decisions and privacy-policy acceptances, with the IP address and user agent of each',
      purpose: 'Proving what you agreed to, when, and to which version',
      retention: 'Until your account is erased',
    },
    {
      id: 'privacy_requests',
      label: 'Your access, export and erasure requests',
      purpose: 'Serving your data-protection rights and proving they were served',
      retention: 'Until your account is erased; then kept without anything that identifies you',
    },
  ],
  async holdings(db, subject) {
    const q = held(db, subject);
    return {
      data_subject_requests: await countOf(q.requests),
      consent_decisions: await countOf(q.consents),
      policy_acceptances: await countOf(q.acceptances),
    };
  },
  exports: [
    exportSection({
      name: 'privacyRequests',
      table: 'data_subject_requests',
      key: ['dataSubjectRequests.id'],
      rows: (db, s) =>
        held(db, s).requests.select([
          'dataSubjectRequests.id',
          'requestType',
          'status',
          'reason',
          'confirmEmail',
          'resolution',
          'createdAt',
          'updatedAt',
          'startedAt',
          'completedAt',
        ]),
    }),
    exportSection({
      name: 'consentHistory',
      table: 'consent_decisions',
      key: ['consentDecisions.id'],
      rows: (db, s) =>
        held(db, s).consents.select([
          'consentDecisions.id',
          'consentType',
          'decision',
          'policyVersion',
          'source',
          'ipAddress',
          'userAgent',
          'metadata',
          'decidedAt',
        ]),
      record: (row) => ({ ...row, metadata: json(row.metadata) }),
    }),
    exportSection({
      name: 'policyAcceptances',
      table: 'policy_acceptances',
      key: ['policyAcceptances.id'],
      rows: (db, s) =>
        held(db, s).acceptances.select([
          'policyAcceptances.id',
          'version',
          'ipAddress',
          'userAgent',
          'acceptedAt',
        ]),
    }),
  ],
  async erase(trx, { userId }, now) {
    const consents = await trx.deleteFrom('consentDecisions').where('userId', '=', userId).executeTakeFirst();
    const acceptances = await trx
      .deleteFrom('policyAcceptances')
      .where('userId', '=', userId)
      .executeTakeFirst();
    const requests = await trx
      .updateTable('dataSubjectRequests')
      .set({ userId: null, reason: null, confirmEmail: null, resolution: null, updatedAt: now })
      .where('userId', '=', userId)
      .executeTakeFirst();
    return {
      consent_decisions: changed(consents),
      policy_acceptances: changed(acceptances),
      data_subject_requests: changed(requests),
    };
  },
};
