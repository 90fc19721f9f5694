import { coalescing } from '../../lib/coalescing.js';
import { createGiveWay } from '../../lib/give-way.js';
import type { MailContext } from './context.js';
import { deliverGroup } from './drain-group.js';
import { GROUP_ROWS } from './repo.js';
import type { DrainResult, MailableEvent } from './schemas.js';

/** Events read per outbox page. */
const DRAIN_BATCH = 100;
/**
 * Events whose mails are claimed together before they are sent, and marked sent together
 * after: two statements a group instead of two a mail. A crash in between sends at most
 * this many events' mails again after the lease, with the same Message-IDs. Under load much of
 * a statement's cost on SQLite's one thread is fixed (about 85 µs): groups of 25 cut the
 * drain's SQL a booking from 37 to 23 µs against groups of 10 (docs/performance.md).
 */
const SEND_GROUP = GROUP_ROWS;

/**
 * The mail drain: sends the mail of every event after the stored position, in order, each
 * once. Stops at a transient SMTP failure (the next run starts from that event again).
 */
export function createDrain(ctx: MailContext): () => Promise<DrainResult> {
  const { db, config, outbox, repo, pageLookups, giveWay } = ctx;
  // Mail can wait, a booking's answer cannot: a group's planning, claims and marks run on the
  // request thread and the database, so while the loop is busy or requests queue for a
  // database connection (a burst of bookings) the drain sends a group at most every 250 ms and
  // catches up once the burst eases (docs/decisions.md Email).
  const beforeGroup = giveWay ?? createGiveWay({ alsoBusy: () => db.waiting() > 0 });

  /** Sends a page's events group by group; answers how many are done (fewer when it must stop). */
  async function deliverPage(events: MailableEvent[], result: DrainResult): Promise<number> {
    let done = 0;
    while (done < events.length) {
      await beforeGroup();
      const group = events.slice(done, done + SEND_GROUP);
      const delivered = await deliverGroup(ctx, group, result);
      done += delivered;
      if (delivered < group.length) break;
    }
    return done;
  }

  async function drainOnce(): Promise<DrainResult> {
    const result: DrainResult = { events: 0, sent: 0, failed: 0, stopped: false };
    let position = await repo.position();
    for (;;) {
      const events = await outbox.readAfter(position, DRAIN_BATCH);
      const done = await pageLookups.forPage(() => deliverPage(events, result));
      // The position moves once a page, to where the page stopped: one write, not one an
      // event. A drain that dies before reads the page again; the claims keep each mail to one send.
      if (done > 0) {
        const last = events[done - 1]!.id;
        // Another drain moved the position first: it carries on from there.
        if (!(await repo.advance(position, last, new Date().toISOString())))
          return { ...result, stopped: true };
        position = last;
        result.events += done;
      }
      if (done < events.length) return { ...result, stopped: true };
      if (events.length < DRAIN_BATCH) return result;
    }
  }

  // One drain at a time in this process; across instances the claims and the
  // position's compare-and-set keep each mail to one send.
  const drainOnceAtATime = coalescing(drainOnce);
  return function drain(): Promise<DrainResult> {
    if (!config.mail.smtpUrl) return Promise.resolve({ events: 0, sent: 0, failed: 0, stopped: false });
    return drainOnceAtATime();
  };
}

/** The drain runs soon after new events, where mail is sent (SMTP_URL). */
export function drainOnNewEvents({ config, outbox }: MailContext, drain: () => Promise<DrainResult>): void {
  if (config.mail.smtpUrl) outbox.onNewEvents('mail', drain);
}
