import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../../config.js';
import type { Db, Executor } from '../../db/database.js';
import type { JobQueue } from '../../jobs/queue.js';
import type { Actor } from '../../lib/actor.js';
import { coalescing } from '../../lib/coalescing.js';
import { nowIso } from '../../lib/time.js';
import type { OrganisationsService } from '../organisations/service.js';
import { createOutboxRepo, type EventFilter, type StoredEvent } from './repo.js';
import type { EventType, FeedPage, FeedQuery, NewEvent, OutboxEvent } from './schemas.js';

/** The job that deletes events past their retention. */
export const OUTBOX_RETENTION_JOB = 'outbox_retention';
/** How long events are kept (DECISIONS.md: 30 days). */
export const OUTBOX_RETENTION_DAYS = 30;
/** How often a consumer with nothing to do is run on new events, at most (it skips them unread). */
const IDLE_RUN_MS = 5_000;
/** Events about the person's own membership: theirs to read whether or not they belong (yet, or still). */
const OWN_MEMBERSHIP: readonly EventType[] = ['membership.invited', 'membership.accepted'];
/** Rows one statement of the retention job deletes; it repeats until a batch comes back short. */
const RETENTION_BATCH = 5_000;

/**
 * Maps stored data of a format other than 'record' to the API record it stands for, at
 * the time the event occurred (the reservations module maps its rows; see module.ts).
 */
export type RecordMappers = Readonly<Record<string, (stored: unknown, occurredAt: string) => unknown>>;

export type OutboxService = ReturnType<typeof createOutboxService>;
/** The outbox as a module writing events with its changes uses it. */
export type EventWriter = Pick<OutboxService, 'append'>;
/** The outbox as its consumers (webhook dispatch, mail, waitlist offers, the booking-calendar mirror) use it. */
export type OutboxConsumerPort = Pick<OutboxService, 'readAfter' | 'lastPosition' | 'onNewEvents'>;

/**
 * The transactional outbox (DECISIONS.md "Events, webhooks and notifications"): every
 * change writes its event with itself (`append` in the caller's transaction, or the
 * reservations triggers of migration 0023), and readers (the feeds, webhook delivery,
 * mail) read them in id order with no gaps: an id is answered only once no smaller one
 * can still appear (repo.ts `sequence`).
 */
export function createOutboxService(deps: {
  db: Db;
  config: Pick<Config, 'outboxPollMs'>;
  jobs: Pick<JobQueue, 'repeat'>;
  log?: Pick<FastifyBaseLogger, 'warn'>;
  organisations: Pick<OrganisationsService, 'requireMembership' | 'list'>;
  records: RecordMappers;
}) {
  const { db, config, jobs, log, organisations, records } = deps;
  const repo = createOutboxRepo(db);
  // The consumers of one instance read at the same moments (each poll): one sequencer run in
  // flight serves them all, and a call during a run waits for the next, which sees its writes.
  const sequence = coalescing(() => repo.sequence());

  function toEvent(row: StoredEvent): OutboxEvent {
    const stored: unknown = JSON.parse(row.data);
    const map = records[row.dataFormat];
    return {
      id: String(row.position),
      type: row.type,
      occurredAt: row.occurredAt,
      organisationId: row.organisationId,
      userId: row.userId,
      data: map ? map(stored, row.occurredAt) : stored,
    };
  }

  async function read(after: string | null | undefined, limit: number, filter: EventFilter) {
    await sequence();
    const rows = await repo.readAfter(after ? Number(after) : null, limit, filter);
    return rows.map(toEvent);
  }

  async function page(query: FeedQuery, filter: EventFilter): Promise<FeedPage> {
    const items = await read(query.after, query.limit, { ...filter, types: query.types });
    // Always a place to continue from: a feed is polled past its end.
    const nextCursor = items.length > 0 ? items[items.length - 1]!.id : (query.after ?? null);
    return { items, nextCursor };
  }

  /** Deletes events older than the retention at `now`; answers how many. */
  async function prune(now = nowIso()): Promise<number> {
    const cutoff = new Date(Date.parse(now) - OUTBOX_RETENTION_DAYS * 86_400_000).toISOString();
    let deleted = 0;
    for (;;) {
      const batch = await repo.deleteBefore(cutoff, RETENTION_BATCH);
      deleted += batch;
      if (batch < RETENTION_BATCH) return deleted;
    }
  }

  // The consumers (webhook dispatch, mail, waitlist offers, the booking-calendar mirror) run
  // on their own jobs anyway; this makes them prompt. Every instance looks (one indexed max() per look) and runs them when an event
  // was written since, whoever wrote it: events are written by triggers and by other
  // instances, so no write path needs to remember to wake anyone.
  const consumers: Array<() => Promise<void>> = [];
  let seen: number | undefined;
  if (config.outboxPollMs > 0) {
    jobs.repeat('outbox.watch', config.outboxPollMs, async () => {
      const last = await repo.lastId();
      if (last === seen) return;
      seen = last;
      for (const consume of consumers) void consume();
    });
  }

  return {
    /**
     * Writes `events` through `executor`: in the caller's transaction (or statement), so
     * a change and its events commit together or not at all.
     */
    async append(executor: Executor, events: readonly NewEvent[]): Promise<void> {
      const now = nowIso();
      await repo.insert(
        executor,
        events.map((event) => ({
          type: event.type,
          occurredAt: event.occurredAt ?? now,
          organisationId: event.organisationId,
          userId: event.userId,
          data: JSON.stringify(event.data),
        })),
      );
    },

    /**
     * Every organisation's events after `afterId` (null: from the oldest kept), in id
     * order, up to `limit`. Gapless: an event committed before the call is answered by it
     * or was answered before, and one committed later has a larger id than any answered.
     */
    readAfter(afterId: string | null, limit: number): Promise<OutboxEvent[]> {
      return read(afterId, limit, {});
    },

    /**
     * The id of the newest event a reader can be given now (null: none): a consumer with
     * nothing to do for any event moves its position here without reading them. Read it
     * before deciding there is nothing to do, so every event up to it was committed before.
     */
    async lastPosition(): Promise<string | null> {
      await sequence();
      const last = await repo.lastPosition();
      return last === 0 ? null : String(last);
    },

    /** An organisation's feed (OWNER, ADMIN; another organisation 404). */
    async organisationFeed(actor: Actor, organisationId: number, query: FeedQuery): Promise<FeedPage> {
      await organisations.requireMembership(actor, organisationId, { can: 'readEvents' });
      return page(query, { organisationId });
    },

    /**
     * The caller's own events: those whose userId is theirs, of no organisation or of an
     * active one they belong to now (DECISIONS.md "Membership ends access"), and the
     * events of their own membership (an invitation reaches them before they belong).
     */
    async personalFeed(actor: Actor, query: FeedQuery): Promise<FeedPage> {
      const memberOf = await organisations.list(actor);
      return page(query, {
        userId: actor.userId,
        organisations: {
          ids: memberOf.map((organisation) => organisation.id),
          anyOrganisation: OWN_MEMBERSHIP,
        },
      });
    },

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
      options: { idle?: () => Promise<boolean> } = {},
    ): void {
      const run = coalescing(consume);
      let idleRunAt = Number.NEGATIVE_INFINITY;
      consumers.push(async () => {
        try {
          if (options.idle && (await options.idle())) {
            // performance.now, not Date.now: the tests' fake clocks move Date.
            if (performance.now() - idleRunAt < IDLE_RUN_MS) return;
            idleRunAt = performance.now();
          }
          await run();
        } catch (error) {
          log?.warn({ err: error, consumer: name }, 'outbox consumer failed');
        }
      });
    },

    /** What the retention job runs: deletes events past 30 days at `now`; answers how many. */
    prune,
  };
}
