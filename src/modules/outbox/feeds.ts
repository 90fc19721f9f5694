import type { Actor } from '../../lib/actor.js';
import type { OutboxContext } from './context.js';
import { readEvents } from './reads.js';
import type { EventFilter } from './repo.js';
import type { EventType, FeedPage, FeedQuery } from './schemas.js';

/** Events about the person's own membership: theirs to read whether or not they belong (yet, or still). */
const OWN_MEMBERSHIP: readonly EventType[] = ['membership.invited', 'membership.accepted'];

async function page(ctx: OutboxContext, query: FeedQuery, filter: EventFilter): Promise<FeedPage> {
  const items = await readEvents(ctx, query.after, query.limit, { ...filter, types: query.types });
  // Always a place to continue from: a feed is polled past its end.
  const nextCursor = items.length > 0 ? items[items.length - 1]!.id : (query.after ?? null);
  return { items, nextCursor };
}

/** The feeds people read: an organisation's, and a person's own. */
export function createFeeds(ctx: OutboxContext) {
  const { organisations } = ctx;
  return {
    async organisationFeed(actor: Actor, organisationId: number, query: FeedQuery): Promise<FeedPage> {
      await organisations.requireMembership(actor, organisationId, { can: 'readEvents' });
      return page(ctx, query, { organisationId });
    },
    async personalFeed(actor: Actor, query: FeedQuery): Promise<FeedPage> {
      const memberOf = await organisations.list(actor);
      return page(ctx, query, {
        userId: actor.userId,
        organisations: {
          ids: memberOf.map((organisation) => organisation.id),
          anyOrganisation: OWN_MEMBERSHIP,
        },
      });
    },
  };
}
