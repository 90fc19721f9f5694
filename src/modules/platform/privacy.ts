import type { ExpressionBuilder } from 'kysely';
import { containsIgnoringCase } from '../../db/keyset.js';
import type { Database } from '../../db/types.js';
import {
  changed,
  countOf,
  type DataSubject,
  type PrivacyDeclaration,
  unlinked,
} from '../../privacy/declaration.js';

/**
 * Rows of the public ingestion tables that mention the person's email. These tables
 * hold IP addresses and user agents of whoever called the public routes, tied to no
 * account, so nothing in them can be attributed to a person safely (an address is
 * shared behind NAT, and anyone can post anything): they are not exported, they keep
 * only the newest INGEST_MAX_ROWS rows each, and erasure removes rows naming the email.
 */
const mentions = ({ email }: DataSubject) => ({
  frontendErrors: (eb: ExpressionBuilder<Database, 'frontendErrors'>) =>
    eb.or([
      containsIgnoringCase('message', email),
      containsIgnoringCase('stack', email),
      containsIgnoringCase('url', email),
      containsIgnoringCase('details', email),
    ]),
  securityReports: () => containsIgnoringCase('body', email),
  honeypotHits: (eb: ExpressionBuilder<Database, 'honeypotHits'>) =>
    eb.or([containsIgnoringCase('path', email), containsIgnoringCase('userAgent', email)]),
});

export const platformPrivacy: PrivacyDeclaration = {
  module: 'platform',
  tables: {
    frontend_errors: unlinked('network', 'rows mentioning the email are deleted'),
    security_reports: unlinked('network', 'rows mentioning the email are deleted'),
    honeypot_hits: unlinked('network', 'rows mentioning the email are deleted'),
  },
  categories: [
    {
      id: 'network',
      label: 'Error and security reports naming your email (with the reporting IP address and user agent)',
      purpose: 'Finding faults in the web client and defending the service against attacks',
      retention: 'The newest 10,000 reports of each kind (INGEST_MAX_ROWS); older ones are deleted',
    },
  ],
  async holdings(db, subject) {
    const m = mentions(subject);
    return {
      frontend_errors: await countOf(db.selectFrom('frontendErrors').where(m.frontendErrors)),
      security_reports: await countOf(db.selectFrom('securityReports').where(m.securityReports)),
      honeypot_hits: await countOf(db.selectFrom('honeypotHits').where(m.honeypotHits)),
    };
  },
  exports: [],
  async erase(trx, subject) {
    const m = mentions(subject);
    const errors = await trx.deleteFrom('frontendErrors').where(m.frontendErrors).executeTakeFirst();
    const reports = await trx.deleteFrom('securityReports').where(m.securityReports).executeTakeFirst();
    const hits = await trx.deleteFrom('honeypotHits').where(m.honeypotHits).executeTakeFirst();
    return {
      frontend_errors: changed(errors),
      security_reports: changed(reports),
      honeypot_hits: changed(hits),
    };
  },
};
