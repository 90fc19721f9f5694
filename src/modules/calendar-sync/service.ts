import type { Config } from '../../config.js';
import { type Db, inTransaction } from '../../db/database.js';
import { isUniqueViolation } from '../../db/errors.js';
import type { JobQueue } from '../../jobs/queue.js';
import { type Actor, personActor } from '../../lib/actor.js';
import { hmacSha256, randomToken, safeEqual, sha256 } from '../../lib/crypto.js';
import { conflict, DomainError, notFound, validationFailed } from '../../lib/errors.js';
import { isoAfterSeconds, nowIso } from '../../lib/time.js';
import type { AutomationService } from '../automation/service.js';
import { isValidTimeZone } from '../calendars/schemas.js';
import type { CalendarService } from '../calendars/service.js';
import type { Event } from '../events/schemas.js';
import type { EventService } from '../events/service.js';
import {
  CHANNEL_RENEW_MARGIN_MS,
  createSyncEngine,
  type PushJob,
  type SyncLogger,
  type SyncResult,
} from './engine.js';
import { type ProviderRegistry, providersFor } from './providers/index.js';
import {
  CalendarProviderError,
  type CalendarProviderPort,
  type ExternalCalendar,
  SYNC_PROVIDERS,
  type SyncProvider,
} from './providers/port.js';
import { createSyncRepo, type Mapping } from './repo.js';
import type { GraphNotifications, OAuthCallbackQuery, SyncCalendarsInput, SyncStatus } from './schemas.js';
import { createTokenKeeper, NeedsReconnectError, openToken, sealToken, sealTokens } from './tokens.js';

/** Job names (pg-boss queue names on PostgreSQL). */
export const JOBS = {
  pull: 'calendar_sync_pull',
  push: 'calendar_sync_push',
  watch: 'calendar_sync_watch',
  calendars: 'calendar_sync_calendars',
  revoke: 'calendar_sync_revoke',
  poll: 'calendar_sync_poll',
  renew: 'calendar_sync_renew',
} as const;

/** A connect attempt must come back within this long. */
const STATE_TTL_SECONDS = 600;
/** Calendars with a live push channel are still polled this many poll intervals apart (missed notifications). */
const CHANNEL_POLL_FACTOR = 12;
/** Most calendars one poll tick queues; the rest wait for the next tick. */
const POLL_BATCH = 500;
const RENEW_EVERY_MINUTES = 60;
const STATE_FORMAT = /^[A-Za-z0-9_-]{43}\.[A-Za-z0-9_-]{43}$/;
/** Connects one browser may have under way per provider (several tabs); the oldest drops out. */
const BINDINGS_PER_BROWSER = 3;
const BINDING_FORMAT = /^[A-Za-z0-9_-]{43}$/;

/** What the landing page shows for each callback failure: fixed words, nothing echoed from the query. */
const CALLBACK_ERRORS = {
  invalid_callback: 'The answer from the calendar provider was not understood. Connect again.',
  access_denied: 'Access to your calendar was not granted at the provider.',
  provider_error: 'The calendar provider reported a problem. Connect again.',
  missing_code: 'The calendar provider sent no authorization code. Connect again.',
  invalid_state: 'This connect link is invalid, expired or was already used. Connect again.',
  browser_mismatch:
    'Nothing was connected: this connect was not started in this browser. If someone sent you the link, ' +
    'do not use it; to connect your own calendar, use Connect on this page.',
  token_exchange_failed: 'The calendar provider did not complete the connection. Try again later.',
  provider_not_configured: 'This calendar provider is not available on this server.',
} as const;
type CallbackError = keyof typeof CALLBACK_ERRORS;

interface RevokeJob {
  userId: number;
  provider: SyncProvider;
  /** Still sealed: job payloads are stored in the database on PostgreSQL. */
  accessTokenEnc: string;
  refreshTokenEnc: string | null;
  channels: Array<{ channelId: string; resourceId: string | null }>;
}

const quietLog: SyncLogger & { error(object: object, message: string): void } = {
  warn: () => {},
  info: () => {},
  error: () => {},
};

const notConfigured = (provider: SyncProvider) =>
  new CalendarProviderError('error', `${provider} is not configured (CALENDAR_PROVIDER_* settings)`);

export interface CalendarSyncDeps {
  db: Db;
  config: Config;
  jobs: JobQueue;
  calendars: CalendarService;
  events: Pick<EventService, 'mirrored'>;
  automation: Pick<AutomationService, 'listRules' | 'runForSyncedEvent'>;
  log?: SyncLogger & { error(object: object, message: string): void };
  /** Tests inject adapters; the configured HTTP adapters otherwise. */
  providers?: ProviderRegistry;
}

export type CalendarSyncService = ReturnType<typeof createCalendarSyncService>;

/**
 * What the browser that starts a connect keeps until the provider sends it back (the routes
 * hold it in an httpOnly cookie): one value per connect under way, each a MAC of its `state`,
 * and the path of the provider's callback. An empty value means the browser may forget it.
 */
export interface BrowserBinding {
  value: string;
  callbackPath: string;
  maxAgeSeconds: number;
}

/**
 * External calendar sync (`calendar_provider_a`, `calendar_provider_b`): connect by OAuth
 * (signed single-use state, PKCE, tokens sealed at rest), map external calendars onto local
 * ones, and keep them in sync in background jobs (pull on push notifications and by polling,
 * push-back of local changes, channel renewal). Requests never wait for a sync.
 */
export function createCalendarSyncService(deps: CalendarSyncDeps) {
  const { db, config, jobs, calendars, events, automation } = deps;
  const log = deps.log ?? quietLog;
  const key = config.encryptionKey;
  // A key of its own for state signatures, derived so ENCRYPTION_KEY is never used for two things.
  const stateKey = hmacSha256(key, 'calendar-sync-state');
  const providers = deps.providers ?? providersFor(config);
  const repo = createSyncRepo(db.kysely);
  const tokens = createTokenKeeper({ key, repo, providers });
  const webhookUrl = (provider: SyncProvider) => `${config.publicUrl}/api/calendar-sync/webhooks/${provider}`;
  const engine = createSyncEngine({ db, repo, events, providers, tokens, log, webhookUrl });
  const retry = { retryDelaySeconds: config.calendarSync.retryDelaySeconds };

  const redirectUri = (provider: SyncProvider) =>
    `${config.publicUrl}/api/calendar-sync/callback/${provider}`;
  /** The state's binding to the browser that asked for it (RFC 6749 section 10.12). */
  const bindingOf = (state: string) => hmacSha256(stateKey, `browser.${state}`);
  const heldBindings = (held: string | undefined) =>
    (held ?? '')
      .split('.')
      .filter((value) => BINDING_FORMAT.test(value))
      .slice(0, BINDINGS_PER_BROWSER);
  const browserBinding = (provider: SyncProvider, values: string[]): BrowserBinding => ({
    value: values.join('.'),
    callbackPath: new URL(redirectUri(provider)).pathname,
    maxAgeSeconds: STATE_TTL_SECONDS,
  });
  const landing = (params: Record<string, string>) =>
    `${config.frontendUrl}/calendar-sync?${new URLSearchParams(params).toString()}`;
  const callbackError = (error: CallbackError, provider?: SyncProvider) =>
    landing({ error, message: CALLBACK_ERRORS[error], ...(provider ? { provider } : {}) });

  function portOf(provider: SyncProvider): CalendarProviderPort {
    const port = providers[provider];
    if (!port) throw notConfigured(provider);
    return port;
  }

  const queuePull = (mappingId: number) =>
    jobs.send(JOBS.pull, { mappingId }, { singletonKey: `m${mappingId}` });
  const queueWatch = (mappingId: number) =>
    jobs.send(JOBS.watch, { mappingId }, { singletonKey: `m${mappingId}` });

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

  // ------------------------------------------------------------------ jobs

  jobs.work<{ mappingId: number }>(
    JOBS.pull,
    ({ mappingId }) =>
      guarded(mappingId, async () => {
        const outcome = await engine.sync(mappingId);
        if (outcome) await runAutomation(outcome.mapping, outcome.result);
      }),
    { retryLimit: 5, ...retry, deduplicate: true },
  );

  jobs.work<PushJob>(JOBS.push, (job) => guarded(job.mappingId, () => engine.push(job)), {
    retryLimit: 5,
    ...retry,
  });

  jobs.work<{ mappingId: number }>(
    JOBS.watch,
    ({ mappingId }) => guarded(mappingId, () => engine.ensureChannel(mappingId)),
    // Push is an optimisation over polling: a provider that refuses our webhook is not retried for long.
    { retryLimit: 2, ...retry, deduplicate: true },
  );

  jobs.work<{ connectionId: number }>(
    JOBS.calendars,
    async ({ connectionId }) => {
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
    },
    { retryLimit: 2, ...retry, deduplicate: true },
  );

  jobs.work<RevokeJob>(
    JOBS.revoke,
    async (job) => {
      const port = providers[job.provider];
      if (!port) return;
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
    },
    { retryLimit: 3, ...retry },
  );

  /**
   * One poll tick: claims the calendars due (an atomic claim, so instances ticking at once
   * split them) and queues their syncs. Answers the claimed mapping ids.
   */
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
    for (const mappingId of due) await queuePull(mappingId);
    await repo.purgeStates(new Date(now - 86_400_000).toISOString());
    return due;
  }

  jobs.work(JOBS.poll, async () => void (await pollOnce()), { retryLimit: 0, deduplicate: true });
  jobs.every(JOBS.poll, config.calendarSync.pollMinutes);

  jobs.work(
    JOBS.renew,
    async () => {
      const before = new Date(Date.now() + CHANNEL_RENEW_MARGIN_MS).toISOString();
      for (const mappingId of await repo.listChannelsToRenew(before, POLL_BATCH)) await queueWatch(mappingId);
    },
    { retryLimit: 0, deduplicate: true },
  );
  jobs.every(JOBS.renew, RENEW_EVERY_MINUTES);

  // ------------------------------------------------------------------ API

  async function readCalendars(provider: SyncProvider, connectionId: number): Promise<ExternalCalendar[]> {
    const connection = await repo.findConnectionById(connectionId);
    if (!connection) throw notFound('Connection');
    const list = await tokens.withAccess(connection, (access) => portOf(provider).listCalendars(access));
    await repo.setCalendars(connection.id, list, nowIso());
    return list;
  }

  return {
    engine,
    repo,
    pollOnce,

    async status(actor: Actor): Promise<SyncStatus> {
      const [connections, mappings] = await Promise.all([
        repo.listConnections(actor.userId),
        repo.listMappings(actor.userId, 'active'),
      ]);
      return {
        providers: SYNC_PROVIDERS.map((provider) => {
          const connection = connections.find((row) => row.provider === provider);
          const list = connection ? (JSON.parse(connection.externalCalendars) as ExternalCalendar[]) : [];
          return {
            provider,
            isConnected: connection?.state === 'connected',
            connectionState: (connection?.state ??
              'not_connected') as SyncStatus['providers'][number]['connectionState'],
            calendars: list.map(({ externalId, name, primary }) => ({ externalId, name, primary })),
            syncedCalendars: mappings
              .filter((mapping) => mapping.provider === provider)
              .map((mapping) => ({
                externalId: mapping.externalCalendarId,
                localCalendarId: mapping.localCalendarId,
                localName: mapping.localName,
                bidirectionalSync: mapping.bidirectionalSync,
                importReminders: mapping.importReminders,
                triggerAutomationRules: mapping.triggerAutomationRules,
                selectedRuleIds: mapping.selectedRuleIds,
                lastSyncedAt: mapping.lastSyncedAt,
              })),
            lastError:
              connection?.lastErrorCode && connection.lastErrorAt
                ? {
                    code: connection.lastErrorCode,
                    message: connection.lastErrorMessage ?? '',
                    at: connection.lastErrorAt,
                  }
                : null,
          };
        }),
      };
    },

    /**
     * The provider's consent URL with a fresh state (signed, single use, 10 minutes) and PKCE,
     * and the binding the asking browser keeps (`held`: the bindings it keeps already).
     */
    async authUrl(
      actor: Actor,
      provider: SyncProvider,
      held?: string,
    ): Promise<{ authUrl: string; binding: BrowserBinding }> {
      const port = portOf(provider);
      const nonce = randomToken();
      const state = `${nonce}.${hmacSha256(stateKey, `${provider}.${nonce}`)}`;
      const verifier = randomToken();
      await repo.insertState(
        {
          stateHash: sha256(state),
          userId: actor.userId,
          provider,
          codeVerifierEnc: sealToken(key, actor.userId, provider, 'verifier', verifier),
          expiresAt: isoAfterSeconds(STATE_TTL_SECONDS),
        },
        nowIso(),
      );
      const kept = heldBindings(held).slice(0, BINDINGS_PER_BROWSER - 1);
      return {
        authUrl: port.authorizationUrl({
          state,
          codeChallenge: sha256(verifier),
          redirectUri: redirectUri(provider),
        }),
        binding: browserBinding(provider, [bindingOf(state), ...kept]),
      };
    },

    /**
     * The provider's redirect back. Answers where to send the browser: the landing page with
     * `success=connected`, or with an error code and a fixed message. Never throws.
     * The user is the one the state was issued to; `userId` alone never connects anything, and
     * only the browser that asked for the state (`held`, its bindings) completes the connect.
     * `binding`, when given, is what that browser keeps from now on (its spent binding dropped).
     */
    async callback(
      providerText: string,
      query: OAuthCallbackQuery | null,
      held?: string,
    ): Promise<{ location: string; error?: CallbackError; binding?: BrowserBinding }> {
      const provider = (SYNC_PROVIDERS as readonly string[]).includes(providerText)
        ? (providerText as SyncProvider)
        : undefined;
      let binding: BrowserBinding | undefined;
      const fail = (error: CallbackError) => ({
        location: callbackError(error, provider),
        error,
        ...(binding ? { binding } : {}),
      });
      if (!provider || !query) return fail('invalid_callback');
      const port = providers[provider];
      if (!port) return fail('provider_not_configured');

      // The state is spent whatever happens next, so a consent link cannot be replayed.
      let stateRow: { userId: number; codeVerifierEnc: string } | undefined;
      const state = query.state;
      if (state && STATE_FORMAT.test(state)) {
        const [nonce = '', signature = ''] = state.split('.');
        if (safeEqual(signature, hmacSha256(stateKey, `${provider}.${nonce}`))) {
          stateRow = await repo.consumeState(sha256(state), provider, nowIso());
          const expected = bindingOf(state);
          const bindings = heldBindings(held);
          const matched = bindings.findIndex((value) => safeEqual(value, expected));
          if (matched >= 0)
            binding = browserBinding(
              provider,
              bindings.filter((_, index) => index !== matched),
            );
        }
      }
      if (query.error) return fail(query.error === 'access_denied' ? 'access_denied' : 'provider_error');
      if (!query.code) return fail('missing_code');
      if (!stateRow || (query.userId !== undefined && query.userId !== stateRow.userId))
        return fail('invalid_state');
      // Another browser (someone who was sent this consent link) connects nothing, not even its code.
      if (!binding) return fail('browser_mismatch');

      const userId = stateRow.userId;
      try {
        const verifier = openToken(key, userId, provider, 'verifier', stateRow.codeVerifierEnc);
        const issued = await port.exchangeCode({
          code: query.code,
          codeVerifier: verifier,
          redirectUri: redirectUri(provider),
        });
        let list: ExternalCalendar[] | null = null;
        try {
          list = await port.listCalendars(issued.accessToken);
        } catch (error) {
          log.warn(
            { err: error, provider },
            'calendar sync: calendar list not read at connect; retried in a job',
          );
        }
        const connection = await repo.upsertConnection(
          userId,
          provider,
          sealTokens(key, userId, provider, issued),
          list,
          nowIso(),
        );
        if (!list)
          await jobs.send(
            JOBS.calendars,
            { connectionId: connection.id },
            { singletonKey: `c${connection.id}` },
          );
        // A reconnect (after needs_reconnect) resumes the calendars that were mapped.
        for (const mapping of await repo.listMappings(userId, 'active')) {
          if (mapping.provider !== provider) continue;
          await queuePull(mapping.id);
          await queueWatch(mapping.id);
        }
        return { location: landing({ success: 'connected', provider }), binding };
      } catch (error) {
        log.warn({ err: error, provider }, 'calendar sync: connect failed');
        return fail('token_exchange_failed');
      }
    },

    /** Creates or updates the local calendars the given external calendars sync into. */
    async mapCalendars(actor: Actor, input: SyncCalendarsInput): Promise<{ message: string }> {
      const { provider } = input;
      portOf(provider);
      const connection = await repo.findConnection(actor.userId, provider);
      if (!connection) throw conflict('CONFLICT', `Connect ${provider} before mapping its calendars`);
      if (connection.state !== 'connected')
        throw conflict('CONFLICT', `${provider} needs to be connected again before mapping its calendars`);

      let known = JSON.parse(connection.externalCalendars) as ExternalCalendar[];
      const unknown = () => input.calendars.filter((c) => !known.some((k) => k.externalId === c.externalId));
      if (unknown().length > 0) {
        try {
          known = await readCalendars(provider, connection.id);
        } catch (error) {
          if (error instanceof NeedsReconnectError)
            throw conflict(
              'CONFLICT',
              `${provider} needs to be connected again before mapping its calendars`,
            );
          throw error;
        }
        if (unknown().length > 0) throw notFound('External calendar');
      }

      const wantedRules = [...new Set(input.calendars.flatMap((c) => c.selectedRuleIds ?? []))];
      if (wantedRules.length > 0) {
        const rules = await automation.listRules(actor);
        for (const ruleId of wantedRules) {
          const rule = rules.find((candidate) => candidate.id === ruleId);
          if (!rule) throw notFound('Rule');
          if (rule.trigger !== 'event.synced')
            throw validationFailed(`Rule ${ruleId} is not an event.synced rule`, [
              { path: 'calendars.selectedRuleIds', message: `rule ${ruleId} has trigger ${rule.trigger}` },
            ]);
        }
      }

      const touched: number[] = [];
      for (const item of input.calendars) {
        const settings = {
          localName: item.localName,
          bidirectionalSync: item.bidirectionalSync,
          importReminders: item.importReminders,
          triggerAutomationRules: item.triggerAutomationRules,
          selectedRuleIds: item.selectedRuleIds ? [...new Set(item.selectedRuleIds)] : null,
        };
        const existing = await repo.findMappingByExternal(actor.userId, provider, item.externalId);
        const now = nowIso();
        if (existing) {
          const calendar = await calendars.get(actor, existing.localCalendarId);
          if (calendar.name !== item.localName)
            await calendars.update(actor, calendar.id, { name: item.localName });
          await repo.updateMapping(existing.id, settings, now, existing.state === 'unlinked');
          touched.push(existing.id);
          continue;
        }
        const external = known.find((k) => k.externalId === item.externalId);
        const timezone =
          external?.timezone && isValidTimeZone(external.timezone) ? external.timezone : undefined;
        const calendar = await calendars.create(actor, {
          name: item.localName,
          ...(timezone ? { timezone } : {}),
        });
        try {
          const mapping = await repo.insertMapping(
            actor.userId,
            provider,
            item.externalId,
            calendar.id,
            settings,
            now,
          );
          touched.push(mapping.id);
        } catch (error) {
          // A concurrent mapping of the same calendar won: do not leave an orphan calendar behind.
          await calendars.delete(actor, calendar.id).catch(() => {});
          if (isUniqueViolation(error))
            throw conflict('CONFLICT', 'This calendar was mapped at the same time; try again');
          throw error;
        }
      }
      for (const mappingId of touched) {
        await queuePull(mappingId);
        await queueWatch(mappingId);
      }
      return {
        message: `${touched.length} calendar${touched.length === 1 ? '' : 's'} of ${provider} mapped; the sync is queued`,
      };
    },

    /**
     * Disconnects one provider or all: stored tokens deleted, mappings marked unlinked (local
     * calendars and events stay), then channels stopped and the grant revoked in a job.
     */
    async disconnect(actor: Actor, provider?: SyncProvider): Promise<{ message: string }> {
      const targets = provider ? [provider] : [...SYNC_PROVIDERS];
      let disconnected = 0;
      for (const target of targets) {
        const { connection, unlinked } = await inTransaction(db.kysely, async (trx) => {
          const r = createSyncRepo(trx);
          const found = await r.findConnection(actor.userId, target);
          const mappings = await r.unlinkMappings(actor.userId, target, nowIso());
          if (found) await r.deleteConnection(found.id);
          return { connection: found, unlinked: mappings };
        });
        if (!connection) continue;
        disconnected += 1;
        const job: RevokeJob = {
          userId: actor.userId,
          provider: target,
          accessTokenEnc: connection.accessTokenEnc,
          refreshTokenEnc: connection.refreshTokenEnc,
          channels: unlinked.flatMap((m) =>
            m.channelId ? [{ channelId: m.channelId, resourceId: m.channelResourceId }] : [],
          ),
        };
        await jobs.send(JOBS.revoke, job);
      }
      if (provider)
        return { message: disconnected ? `${provider} disconnected` : `${provider} was not connected` };
      return { message: `${disconnected} calendar provider${disconnected === 1 ? '' : 's'} disconnected` };
    },

    /** Queues a sync of every mapped calendar now (and a fresh read of the calendar lists). */
    async force(actor: Actor): Promise<{ message: string }> {
      const connections = (await repo.listConnections(actor.userId)).filter((c) => c.state === 'connected');
      const connected = new Set(connections.map((c) => c.provider));
      const mappings = (await repo.listMappings(actor.userId, 'active')).filter((m) =>
        connected.has(m.provider),
      );
      for (const connection of connections)
        await jobs.send(
          JOBS.calendars,
          { connectionId: connection.id },
          { singletonKey: `c${connection.id}` },
        );
      for (const mapping of mappings) await queuePull(mapping.id);
      return {
        message:
          connections.length === 0
            ? 'No calendar provider is connected; nothing to sync'
            : `Sync queued for ${mappings.length} calendar${mappings.length === 1 ? '' : 's'}`,
      };
    },

    /** A's push notification. False: unknown channel or wrong token (the route answers 404). */
    async notifyA(headers: {
      channelId: string | undefined;
      token: string | undefined;
      resourceId: string | undefined;
      resourceState: string | undefined;
    }): Promise<boolean> {
      if (
        !headers.channelId ||
        !headers.token ||
        headers.channelId.length > 256 ||
        headers.token.length > 256
      )
        return false;
      const mapping = await repo.findByChannel('calendar_provider_a', headers.channelId);
      if (mapping?.state !== 'active' || !mapping.channelTokenHash) return false;
      if (!safeEqual(sha256(headers.token), mapping.channelTokenHash)) return false;
      if (mapping.channelResourceId && headers.resourceId && headers.resourceId !== mapping.channelResourceId)
        return false;
      // `sync` is the handshake right after a channel opens; there is nothing to fetch yet.
      if (headers.resourceState !== 'sync') await queuePull(mapping.id);
      return true;
    },

    /** B's change notifications. False when none names a known subscription with its clientState. */
    async notifyB(body: GraphNotifications): Promise<boolean> {
      const valid = new Set<number>();
      for (const notification of body.value) {
        const mapping = await repo.findByChannel('calendar_provider_b', notification.subscriptionId);
        if (mapping?.state !== 'active' || !mapping.channelTokenHash || !notification.clientState) continue;
        if (!safeEqual(sha256(notification.clientState), mapping.channelTokenHash)) continue;
        valid.add(mapping.id);
      }
      for (const mappingId of valid) await queuePull(mappingId);
      return valid.size > 0;
    },

    /** Wired to the events service: a local write in a mapped, two-way calendar is pushed in a job. */
    async onLocalEventChanged(
      _actor: Actor,
      change: { type: 'created' | 'updated' | 'deleted'; event: Event },
    ): Promise<void> {
      const mapping = await repo.findActiveByLocalCalendar(change.event.calendarId);
      if (!mapping?.bidirectionalSync) return;
      const external = change.event.external;
      if (external && external.provider !== mapping.provider) return;
      if (change.type === 'deleted') {
        if (!external) return;
        await jobs.send(JOBS.push, {
          mappingId: mapping.id,
          type: 'deleted',
          eventId: change.event.id,
          externalId: external.externalId,
          etag: external.etag,
        } satisfies PushJob);
        return;
      }
      await jobs.send(JOBS.push, {
        mappingId: mapping.id,
        type: change.type,
        eventId: change.event.id,
      } satisfies PushJob);
    },

    /** Conflicts resolved for the user ("provider wins"), oldest first. */
    listConflicts(actor: Actor) {
      return repo.listConflicts(actor.userId);
    },
  };
}
