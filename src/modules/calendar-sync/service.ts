import type { Config } from '../../config.js';
import type { Db } from '../../db/database.js';
import type { JobQueue } from '../../jobs/queue.js';
import type { AutomationService } from '../automation/service.js';
import type { CalendarService } from '../calendars/service.js';
import type { EventService } from '../events/service.js';
import type { EventWriter } from '../outbox/service.js';
import { createConnect } from './connect.js';
import { createSyncEngine } from './engine.js';
import { createSyncQueue } from './jobs.js';
import { createMappings } from './mappings.js';
import { createNotifications } from './notifications.js';
import { type ProviderRegistry, providersFor } from './providers/index.js';
import type { SyncProvider } from './providers/port.js';
import { createSyncRepo } from './repo.js';
import type { SyncLogger } from './sync-context.js';
import { createTokenKeeper } from './tokens.js';
import { createSyncWorkers } from './workers.js';

export type { BrowserBinding } from './connect.js';

const quietLog: SyncLogger & { error(object: object, message: string): void } = {
  warn: () => {},
  info: () => {},
  error: () => {},
};

export interface CalendarSyncDeps {
  db: Db;
  config: Config;
  jobs: JobQueue;
  calendars: CalendarService;
  events: Pick<EventService, 'mirrored'>;
  automation: Pick<AutomationService, 'listRules' | 'runForSyncedEvent'>;
  /** Writes calendar_sync.needs_reconnect with the change. */
  outbox: EventWriter;
  log?: SyncLogger & { error(object: object, message: string): void };
  /** Tests inject adapters; the configured HTTP adapters otherwise. */
  providers?: ProviderRegistry;
}

export type CalendarSyncService = ReturnType<typeof createCalendarSyncService>;

/**
 * External calendar sync (`calendar_provider_a`, `calendar_provider_b`): connect by OAuth
 * (signed single-use state, PKCE, tokens sealed at rest; connect.ts), map external calendars
 * onto local ones (mappings.ts), and keep them in sync in background jobs (workers.ts, the
 * engine): pull on push notifications (notifications.ts) and by polling, push-back of local
 * changes, channel renewal. Requests never wait for a sync.
 */
export function createCalendarSyncService(deps: CalendarSyncDeps) {
  const { db, config, jobs, calendars, events, automation } = deps;
  const log = deps.log ?? quietLog;
  const providers = deps.providers ?? providersFor(config);
  const repo = createSyncRepo(db.kysely);
  const tokens = createTokenKeeper({ db, key: config.encryptionKey, repo, providers, outbox: deps.outbox });
  const webhookUrl = (provider: SyncProvider) => `${config.publicUrl}/api/calendar-sync/webhooks/${provider}`;
  const engine = createSyncEngine({ db, repo, events, calendars, providers, tokens, log, webhookUrl });
  const queue = createSyncQueue(jobs);
  const workers = createSyncWorkers({
    config,
    queue,
    repo,
    providers,
    tokens,
    engine,
    automation,
    log,
  });
  const connect = createConnect({ config, repo, providers, queue, log });
  const mappings = createMappings({ db, repo, providers, tokens, queue, calendars, automation });
  const notifications = createNotifications({ repo, queue });

  return {
    engine,
    repo,
    /** What the sync's jobs run (module.ts declares them, jobs.ts). */
    workers,
    pollOnce: workers.pollOnce,
    status: mappings.status,
    authUrl: connect.authUrl,
    callback: connect.callback,
    mapCalendars: mappings.mapCalendars,
    disconnect: mappings.disconnect,
    force: mappings.force,
    notifyA: notifications.notifyA,
    notifyB: notifications.notifyB,
    onLocalEventChanged: notifications.onLocalEventChanged,
    listConflicts: mappings.listConflicts,
  };
}
