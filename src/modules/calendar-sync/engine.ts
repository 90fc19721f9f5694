import { randomUUID } from 'node:crypto';
import type { Db } from '../../db/database.js';
import type { CalendarService } from '../calendars/service.js';
import type { EventService } from '../events/service.js';
import { createEventApplier } from './apply.js';
import { createChannels } from './channels.js';
import type { ProviderRegistry } from './providers/index.js';
import type { SyncProvider } from './providers/port.js';
import { createPull } from './pull.js';
import { createPush } from './push.js';
import type { Mapping, SyncRepo } from './repo.js';
import type { PushJob, SyncContext, SyncLogger, SyncResult } from './sync-context.js';
import type { TokenKeeper } from './tokens.js';

/** How long one sync or push-back may hold a calendar before another instance may take over. */
const LEASE_MS = 10 * 60_000;

/** Another instance holds the calendar's lease; the job is retried later. */
export class LeaseBusyError extends Error {}

export interface EngineDeps {
  db: Db;
  repo: SyncRepo;
  /** The events module, which writes the events a mapped calendar mirrors. */
  events: Pick<EventService, 'mirrored'>;
  /** The calendars module: a mapped calendar's time zone. */
  calendars: Pick<CalendarService, 'timezoneOf'>;
  providers: ProviderRegistry;
  tokens: TokenKeeper;
  log: SyncLogger;
  /** Public URL of a provider's webhook route. */
  webhookUrl(provider: SyncProvider): string;
}

/**
 * The sync engine, per mapped calendar: pull (provider to local, pull.ts), push-back of local
 * changes (push.ts) and push channels (channels.ts). All work on one calendar holds its lease:
 * one at a time across instances.
 */
export function createSyncEngine(deps: EngineDeps) {
  const { db, repo, events, calendars, providers, tokens, log } = deps;
  const applyEvents = createEventApplier({ db, events, log });
  const pullChanges = createPull({ db, repo, events, tokens, log, applyEvents });
  const pushChange = createPush({ repo, events, tokens, log, applyEvents });
  const ensureChannel = createChannels({ repo, tokens, log, webhookUrl: deps.webhookUrl });
  const chains = new Map<number, Promise<void>>();

  async function withLease<T>(mappingId: number, work: () => Promise<T>): Promise<T> {
    // In this process, work on one calendar queues; across instances the database lease decides.
    const previous = chains.get(mappingId) ?? Promise.resolve();
    let release!: () => void;
    const mine = new Promise<void>((resolve) => {
      release = resolve;
    });
    const tail = previous.then(() => mine);
    chains.set(mappingId, tail);
    await previous;
    try {
      const owner = randomUUID();
      const now = Date.now();
      const taken = await repo.acquireLease(
        mappingId,
        owner,
        new Date(now + LEASE_MS).toISOString(),
        new Date(now).toISOString(),
      );
      if (!taken) throw new LeaseBusyError(`calendar mapping ${mappingId} is busy on another instance`);
      try {
        return await work();
      } finally {
        await repo.releaseLease(mappingId, owner);
      }
    } finally {
      release();
      if (chains.get(mappingId) === tail) chains.delete(mappingId);
    }
  }

  /** The mapping with its connection and provider when all are usable; undefined otherwise. */
  async function contextOf(mappingId: number): Promise<SyncContext | undefined> {
    const mapping = await repo.findMapping(mappingId);
    if (mapping?.state !== 'active') return undefined;
    const connection = await repo.findConnection(mapping.userId, mapping.provider);
    if (connection?.state !== 'connected') return undefined;
    const port = providers[mapping.provider];
    if (!port) return undefined;
    const calendarTz = (await calendars.timezoneOf(mapping.localCalendarId)) ?? 'UTC';
    return { mapping, connection, port, calendarTz };
  }

  /**
   * Runs work on a usable mapping under its lease; undefined when it is not usable. Checked
   * before queueing for the lease and read again under it (a sync that held it may have moved
   * the cursor).
   */
  async function underLease<T>(
    mappingId: number,
    work: (ctx: SyncContext) => Promise<T>,
    usable: (ctx: SyncContext) => boolean = () => true,
  ): Promise<T | undefined> {
    const outer = await contextOf(mappingId);
    if (!outer || !usable(outer)) return undefined;
    return withLease(mappingId, async () => {
      const ctx = await contextOf(mappingId);
      if (!ctx || !usable(ctx)) return undefined;
      return work(ctx);
    });
  }

  const bidirectional = (ctx: SyncContext) => ctx.mapping.bidirectionalSync;

  return {
    withLease,

    /** Pulls provider changes into the mapped calendar. Null when the mapping is not syncable now. */
    async sync(mappingId: number): Promise<{ result: SyncResult; mapping: Mapping } | null> {
      const outcome = await underLease(mappingId, async (ctx) => ({
        result: await pullChanges(ctx),
        mapping: ctx.mapping,
      }));
      return outcome ?? null;
    },

    /** Pushes one local change to the provider (bidirectional mappings only). */
    async push(job: PushJob): Promise<void> {
      await underLease(job.mappingId, (ctx) => pushChange(ctx, job), bidirectional);
    },

    /** Opens, renews or replaces the calendar's push channel. */
    async ensureChannel(mappingId: number): Promise<void> {
      await underLease(mappingId, ensureChannel);
    },
  };
}

export type SyncEngine = ReturnType<typeof createSyncEngine>;
