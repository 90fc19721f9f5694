import assert from 'node:assert/strict';
import type { FastifyInstance } from 'fastify';
import type { SignedInUser } from '../../helpers/app.js';
import { as, expectStatus } from '../../helpers/http.js';

export interface FeedEvent {
  id: string;
  type: string;
  occurredAt: string;
  organisationId: number | null;
  userId: number | null;
  data: Record<string, unknown> & { id: number };
}

/**
 * A reader of one feed (an organisation's, or the caller's own) from where it stands: each
 * `next()` answers every event after the last one read, following nextCursor to the end.
 */
export function feedReader(app: FastifyInstance, user: SignedInUser, path: string) {
  let cursor: string | null = null;
  return {
    async next(): Promise<FeedEvent[]> {
      const events: FeedEvent[] = [];
      for (;;) {
        const query = cursor === null ? '?limit=200' : `?limit=200&after=${cursor}`;
        const page = expectStatus(await as(app, user).get(`${path}${query}`), 200) as {
          items: FeedEvent[];
          nextCursor: string | null;
        };
        events.push(...page.items);
        if (page.items.length > 0) assert.equal(page.nextCursor, page.items[page.items.length - 1]!.id);
        cursor = page.nextCursor;
        if (page.items.length < 200) return events;
      }
    },
    /** Runs `change` and answers the types of the events it wrote (nothing else may write meanwhile). */
    async around(change: () => Promise<unknown>): Promise<{ types: string[]; events: FeedEvent[] }> {
      await this.next(); // what came before is not the change's
      await change();
      const events = await this.next();
      return { types: events.map((event) => event.type), events };
    },
  };
}
