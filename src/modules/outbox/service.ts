import type { Executor } from '../../db/database.js';
import type { Actor } from '../../lib/actor.js';
import { appendEvents } from './append.js';
import { watchForNewEvents } from './consumers.js';
import { createOutboxContext, type OutboxServiceDeps } from './context.js';
import { createFeeds } from './feeds.js';
import { lastPosition, readEvents } from './reads.js';
import { pruneEvents } from './retention.js';
import type { FeedPage, FeedQuery, NewEvent, OutboxEvent } from './schemas.js';

export type { OutboxServiceDeps, RecordMappers } from './context.js';
export { OUTBOX_RETENTION_DAYS, OUTBOX_RETENTION_JOB } from './retention.js';

/**
 * The transactional outbox (DECISIONS.md "Events, webhooks and notifications"): every
 * change writes its event with itself (`append` in the caller's transaction, or the
 * reservations triggers of migration 0023), and readers (the feeds, webhook delivery,
 * mail) read them in id order with no gaps: an id is answered only once no smaller one
 * can still appear (repo.ts `sequence`).
 */
export interface OutboxService {
  /**
   * Writes `events` through `executor`: in the caller's transaction (or statement), so
   * a change and its events commit together or not at all.
   */
  append(executor: Executor, events: readonly NewEvent[]): Promise<void>;
  /**
   * Every organisation's events after `afterId` (null: from the oldest kept), in id
   * order, up to `limit`. Gapless: an event committed before the call is answered by it
   * or was answered before, and one committed later has a larger id than any answered.
   */
  readAfter(afterId: string | null, limit: number): Promise<OutboxEvent[]>;
  /**
   * The id of the newest event a reader can be given now (null: none): a consumer with
   * nothing to do for any event moves its position here without reading them. Read it
   * before deciding there is nothing to do, so every event up to it was committed before.
   */
  lastPosition(): Promise<string | null>;
  /** An organisation's feed (OWNER, ADMIN; another organisation 404). */
  organisationFeed(actor: Actor, organisationId: number, query: FeedQuery): Promise<FeedPage>;
  /**
   * The caller's own events: those whose userId is theirs, of no organisation or of an
   * active one they belong to now (DECISIONS.md "Membership ends access"), and the
   * events of their own membership (an invitation reaches them before they belong).
   */
  personalFeed(actor: Actor, query: FeedQuery): Promise<FeedPage>;
  /**
   * Runs `consume` soon after new events are written, on each instance; one run at a
   * time (calls while it runs fold into one more). It must be safe to run on several
   * instances at once, as the stored-position consumers are. A failure is logged; the
   * next event or the consumer's minute job tries again. While `idle` (a cheap read: no
   * endpoint, nobody waiting) says it can act on no event, it runs at most every 5 s: such
   * a run only moves its position past the events, unread, and one a look was most of
   * what a booking's events cost a busy instance.
   */
  onNewEvents(
    name: string,
    consume: () => Promise<unknown>,
    options?: { idle?: () => Promise<boolean> },
  ): void;
  /** What the retention job runs: deletes events past 30 days at `now`; answers how many. */
  prune(now?: string): Promise<number>;
}

/** The outbox as a module writing events with its changes uses it. */
export type EventWriter = Pick<OutboxService, 'append'>;
/** The outbox as its consumers (webhook dispatch, mail, waitlist offers, the booking-calendar mirror) use it. */
export type OutboxConsumerPort = Pick<OutboxService, 'readAfter' | 'lastPosition' | 'onNewEvents'>;

/** The outbox service; it watches for new events as it is made (its retention job: module.ts). */
export function createOutboxService(deps: OutboxServiceDeps): OutboxService {
  const ctx = createOutboxContext(deps);
  const onNewEvents = watchForNewEvents(ctx);
  return {
    append: (executor, events) => appendEvents(ctx, executor, events),
    readAfter: (afterId, limit) => readEvents(ctx, afterId, limit, {}),
    lastPosition: () => lastPosition(ctx),
    ...createFeeds(ctx),
    onNewEvents,
    prune: (now) => pruneEvents(ctx, now),
  };
}
