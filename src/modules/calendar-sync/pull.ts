import { type Db, inTransaction } from '../../db/database.js';
import { nowIso } from '../../lib/time.js';
import type { EventService } from '../events/service.js';
import type { ApplyEvents, Seen } from './apply.js';
import { SyncTokenExpiredError } from './providers/port.js';
import { createSyncRepo, type SyncRepo } from './repo.js';
import { noChanges, type SyncContext, type SyncLogger, type SyncResult } from './sync-context.js';
import type { TokenKeeper } from './tokens.js';

/** A windowed provider's (B's) calendarView: this far back and ahead of the day of a full listing. */
const WINDOW_PAST_DAYS = 90;
const WINDOW_AHEAD_DAYS = 540;
/** A full listing of B re-bases the window once less than this much of its future is left. */
const WINDOW_REBASE_DAYS = 480;
const DAY_MS = 86_400_000;

function windowFromNow(): { start: string; end: string } {
  const today = Math.floor(Date.now() / DAY_MS) * DAY_MS;
  return {
    start: new Date(today - WINDOW_PAST_DAYS * DAY_MS).toISOString(),
    end: new Date(today + WINDOW_AHEAD_DAYS * DAY_MS).toISOString(),
  };
}

export interface PullDeps {
  db: Db;
  repo: SyncRepo;
  events: Pick<EventService, 'mirrored'>;
  tokens: TokenKeeper;
  log: SyncLogger;
  applyEvents: ApplyEvents;
}

/** What one listing brought: its counts, the provider's next cursor and the window it covered. */
interface Pulled {
  result: SyncResult;
  syncToken: string;
  windowEnd: string | null;
}

/** Mark and sweep: deletes the local copies the provider no longer lists (for B only within the window). */
async function sweepUnlisted(
  { db, events }: PullDeps,
  { mapping }: SyncContext,
  seen: Seen,
  window: { start: string; end: string } | undefined,
): Promise<number> {
  const local = await events.mirrored().listFromProvider(mapping.localCalendarId, mapping.provider);
  const gone = local
    .filter(
      (row) =>
        !seen.events.has(row.externalId) &&
        (!window || (row.startTime >= window.start && row.startTime < window.end)),
    )
    .map((row) => row.id);
  await inTransaction(db.kysely, async (trx) => {
    await events.mirrored(trx).deleteMany(gone);
    await createSyncRepo(trx).sweepExceptions(mapping.id, seen.instances);
  });
  return gone.length;
}

/** Lists the provider's changes (all of them when `full`) and applies them page by page. */
async function pull(deps: PullDeps, ctx: SyncContext, full: boolean): Promise<Pulled> {
  const { mapping, port } = ctx;
  const window = port.windowed && full ? windowFromNow() : undefined;
  const seen: Seen | undefined = full ? { events: new Set(), instances: new Set() } : undefined;
  const result = noChanges(full);
  const syncToken = await deps.tokens.withAccess(ctx.connection, (access) =>
    port.listChanges(access, {
      calendarId: mapping.externalCalendarId,
      syncToken: full ? null : mapping.syncToken,
      ...(window ? { window } : {}),
      onPage: async (page) => {
        const applied = await deps.applyEvents(ctx, page.events, page.timezone, seen);
        result.inserted += applied.inserted;
        result.updated += applied.updated;
        result.deleted += applied.deleted;
        result.unchanged += applied.unchanged;
        result.skipped += applied.skipped;
        result.changed.push(...applied.changed);
      },
    }),
  );
  if (seen) result.deleted += await sweepUnlisted(deps, ctx, seen, window);
  return { result, syncToken, windowEnd: window?.end ?? mapping.syncWindowEnd };
}

/**
 * Provider to local: a full listing (no cursor, after 410, or to re-base B's window) or an
 * incremental one from the stored cursor, applied page by page; a full listing then deletes
 * local copies the provider no longer lists (mark and sweep), so a resync neither duplicates
 * nor loses events.
 */
export function createPull(deps: PullDeps) {
  const { repo, log } = deps;
  /** Pulls the provider's changes and stores the next cursor; runs under the calendar's lease. */
  return async function pullChanges(ctx: SyncContext): Promise<SyncResult> {
    const { mapping, port } = ctx;
    const rebase =
      port.windowed &&
      mapping.syncWindowEnd !== null &&
      Date.parse(mapping.syncWindowEnd) - Date.now() < WINDOW_REBASE_DAYS * DAY_MS;
    let pulled: Pulled;
    try {
      pulled = await pull(deps, ctx, !mapping.syncToken || rebase);
    } catch (error) {
      if (!(error instanceof SyncTokenExpiredError)) throw error;
      // 410: the cursor expired; list everything again (upserts by provider id, then sweep).
      log.info({ mappingId: mapping.id }, 'calendar sync: sync token expired, full resync');
      pulled = await pull(deps, ctx, true);
    }
    const now = nowIso();
    await repo.setSyncResult(mapping.id, {
      syncToken: pulled.syncToken,
      syncWindowEnd: pulled.windowEnd,
      lastSyncedAt: now,
    });
    if (ctx.connection.lastErrorCode !== null) await repo.setError(ctx.connection.id, null, now);
    return pulled.result;
  };
}
