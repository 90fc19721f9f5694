import type { Executor } from '../../db/database.js';
import {
  changed,
  countOf,
  type DataSubject,
  exportSection,
  type PrivacyDeclaration,
  personal,
} from '../../privacy/declaration.js';

const madeBy = (db: Executor, { userId }: DataSubject) =>
  db.selectFrom('feedTokens').where('feedTokens.createdById', '=', userId);

/**
 * Subscription feeds the person made: which calendar or resource, and when (never the
 * token, which is not kept). Erasure deletes them all: an erased person belongs to no
 * organisation, and a member's resource feeds end with their membership (DECISIONS.md
 * "Membership ends access").
 */
export const feedsPrivacy: PrivacyDeclaration = {
  module: 'feeds',
  tables: { feed_tokens: personal('subscription_feeds', 'every feed they made deleted') },
  categories: [
    {
      id: 'subscription_feeds',
      label: 'Calendar subscription links you made',
      purpose: 'Serving your calendars and resources to the calendar apps you subscribed',
      retention: 'Until revoked, or the calendar or resource is deleted',
    },
  ],
  async holdings(db, subject) {
    return { feed_tokens: await countOf(madeBy(db, subject)) };
  },
  exports: [
    exportSection({
      name: 'subscriptionFeeds',
      table: 'feed_tokens',
      key: ['feedTokens.id'],
      rows: (db, s) =>
        madeBy(db, s).select(['feedTokens.id', 'calendarId', 'resourceId', 'organisationId', 'createdAt']),
      record: (row) => row,
    }),
  ],
  async erase(trx, { userId }) {
    const deleted = await trx.deleteFrom('feedTokens').where('createdById', '=', userId).executeTakeFirst();
    return { feed_tokens: changed(deleted) };
  },
};
