import type { Config } from '../../config.js';
import { personActor } from '../../lib/actor.js';
import { DomainError } from '../../lib/errors.js';
import { nowIso } from '../../lib/time.js';
import type { AutomationService } from '../automation/service.js';
import { CHANNEL_RENEW_MARGIN_MS } from './channels.js';
import type { SyncEngine } from './engine.js';
import type { RevokeJob, SyncQueue } from './jobs.js';
import type { ProviderRegistry } from './providers/index.js';
import { CalendarProviderError, type SyncProvider } from './providers/port.js';
import type { Mapping, SyncRepo } from './repo.js';
import type { PushJob, SyncLogger, SyncResult } from './sync-context.js';
import { NeedsReconnectError, openToken, type TokenKeeper } from './tokens.js';

/** Calendars with a live push channel are still polled this many poll intervals apart (missed notifications). */
const CHANNEL_POLL_FACTOR = 12;
/** Most calendars one poll tick (or renewal tick) queues; the rest wait for the next tick. */
const POLL_BATCH = 500;

export interface WorkerDeps {
  config: Config;
  queue: SyncQueue;
  repo: SyncRepo;
  providers: ProviderRegistry;
  tokens: TokenKeeper;
  engine: SyncEngine;
  automation: Pick<AutomationService, 'listRules' | 'runForSyncedEvent'>;
  log: SyncLogger;
}

/** What the sync's jobs run (jobs.ts declares them): one handler each. */
export interface SyncWorkers {
  pull(job: { mappingId: number }): Promise<void>;
  push(job: PushJob): Promise<void>;
  watch(job: { mappingId: number }): Promise<void>;
  calendars(job: { connectionId: number }): Promise<void>;
  revoke(job: RevokeJob): Promise<void>;
  /**
   * One poll tick: claims the calendars due (an atomic claim, so instances ticking at once
   * split them) and queues their syncs. Answers the claimed mapping ids.
   */
  pollOnce(): Promise<number[]>;
  /** One channel-renewal tick: queues a new channel for each about to lapse. */
  renew(): Promise<void>;
}

/** The sync's background work: pull, push-back, channel, calendar-list and revoke, and the poll and renewal ticks. */
export function createSyncWorkers(deps: WorkerDeps): SyncWorkers {
  const { config, queue, repo, providers, tokens, engine, automation, log } = deps;

  /** Keeps a provider failure visible in status; the message is the fixed, token-free one. */
  async function recordFailure(connectionId: number, error: unknown) {
    const message =
      error instanceof CalendarProviderError
        ? `${error.message}${error.status ? ` (HTTP ${error.status})` : ''}`
        : 'The sync failed unexpectedly; it will be retried';
    const code = error instanceof DomainError ? error.code : 'INTERNAL';
    await repo.setError(connectionId, { code, message }, nowIso()).catch(() => {});
  }

  async function runAutomation(mapping: Mapping, result: SyncResult) {
    if (!mapping.triggerAutomationRules || result.changed.length === 0) return;
    const actor = personActor(mapping.userId);
    const selected = mapping.selectedRuleIds;
    const rules = (await automation.listRules(actor)).filter(
      (rule) => rule.enabled && rule.trigger === 'event.synced' && (!selected || selected.includes(rule.id)),
    );
    // No rule would run: skip the per-event work entirely.
    if (rules.length === 0) return;
    for (const eventId of result.changed) {
      try {
        await automation.runForSyncedEvent(actor, eventId, selected ? { selectedRuleIds: selected } : {});
      } catch (error) {
        log.warn({ err: error, mappingId: mapping.id }, 'calendar sync: automation run failed');
      }
    }
  }

  /** Runs a job against one mapping; provider failures are recorded and retried, a revoked grant is not. */
  async function guarded(mappingId: number, work: () => Promise<void>) {
    try {
      await work();
    } catch (error) {
      if (error instanceof NeedsReconnectError) return;
      if (error instanceof CalendarProviderError) {
        const mapping = await repo.findMapping(mappingId);
        const connection = mapping && (await repo.findConnection(mapping.userId, mapping.provider));
        if (connection) await recordFailure(connection.id, error);
      }
      throw error;
    }
  }

  async function calendars({ connectionId }: { connectionId: number }) {
    const connection = await repo.findConnectionById(connectionId);
    const port = connection && providers[connection.provider as SyncProvider];
    if (!connection || !port || connection.state !== 'connected') return;
    try {
      const list = await tokens.withAccess(connection, (access) => port.listCalendars(access));
      await repo.setCalendars(connection.id, list, nowIso());
    } catch (error) {
      if (error instanceof NeedsReconnectError) return;
      await recordFailure(connection.id, error);
      throw error;
    }
  }

  async function revoke(job: RevokeJob) {
    const port = providers[job.provider];
    if (!port) return;
    const key = config.encryptionKey;
    let access = openToken(key, job.userId, job.provider, 'access', job.accessTokenEnc);
    const refresh = job.refreshTokenEnc
      ? openToken(key, job.userId, job.provider, 'refresh', job.refreshTokenEnc)
      : null;
    for (const channel of job.channels) {
      try {
        await port.stopWatch(access, channel);
      } catch {
        // The access token may have expired: one refresh, one more try, then let it lapse.
        if (!refresh) continue;
        try {
          access = (await port.refresh(refresh)).accessToken;
          await port.stopWatch(access, channel);
        } catch (error) {
          log.warn(
            { err: error, provider: job.provider },
            'calendar sync: channel not stopped on disconnect',
          );
        }
      }
    }
    if (port.revoke) await port.revoke(refresh ?? access);
  }

  async function pollOnce(): Promise<number[]> {
    const now = Date.now();
    const minutes = config.calendarSync.pollMinutes;
    // A few seconds of slack, so a tick that runs a little early still finds last period's claims due.
    const due = await repo.claimDueForPoll(
      new Date(now).toISOString(),
      new Date(now - minutes * 60_000 + 5_000).toISOString(),
      new Date(now - minutes * CHANNEL_POLL_FACTOR * 60_000 + 5_000).toISOString(),
      POLL_BATCH,
    );
    for (const mappingId of due) await queue.pull(mappingId);
    await repo.purgeStates(new Date(now - 86_400_000).toISOString());
    return due;
  }

  return {
    pull: ({ mappingId }) =>
      guarded(mappingId, async () => {
        const outcome = await engine.sync(mappingId);
        if (outcome) await runAutomation(outcome.mapping, outcome.result);
      }),
    push: (job) => guarded(job.mappingId, () => engine.push(job)),
    watch: ({ mappingId }) => guarded(mappingId, () => engine.ensureChannel(mappingId)),
    calendars,
    revoke,
    pollOnce,
    async renew() {
      const before = new Date(Date.now() + CHANNEL_RENEW_MARGIN_MS).toISOString();
      for (const mappingId of await repo.listChannelsToRenew(before, POLL_BATCH))
        await queue.watch(mappingId);
    },
  };
}
