import { type Db, inTransaction } from '../../db/database.js';
import { isUniqueViolation } from '../../db/errors.js';
import type { Actor } from '../../lib/actor.js';
import { conflict, notFound, validationFailed } from '../../lib/errors.js';
import { nowIso } from '../../lib/time.js';
import type { AutomationService } from '../automation/service.js';
import { isValidTimeZone } from '../calendars/schemas.js';
import type { CalendarService } from '../calendars/service.js';
import type { RevokeJob, SyncQueue } from './jobs.js';
import type { ProviderRegistry } from './providers/index.js';
import { type ExternalCalendar, SYNC_PROVIDERS, type SyncProvider } from './providers/port.js';
import { type ConnectionRow, createSyncRepo, type Mapping, type SyncRepo } from './repo.js';
import type { SyncCalendarsInput, SyncStatus } from './schemas.js';
import { portOf } from './sync-context.js';
import { NeedsReconnectError, type TokenKeeper } from './tokens.js';

export interface MappingDeps {
  db: Db;
  repo: SyncRepo;
  providers: ProviderRegistry;
  tokens: TokenKeeper;
  queue: SyncQueue;
  calendars: CalendarService;
  automation: Pick<AutomationService, 'listRules'>;
}

/** One provider's entry of the sync status (GET /api/calendar-sync/status) from its rows. */
export function providerStatusOf(
  provider: SyncProvider,
  connection: ConnectionRow | undefined,
  activeMappings: readonly Mapping[],
): SyncStatus['providers'][number] {
  const list = connection ? (JSON.parse(connection.externalCalendars) as ExternalCalendar[]) : [];
  return {
    provider,
    isConnected: connection?.state === 'connected',
    connectionState: (connection?.state ??
      'not_connected') as SyncStatus['providers'][number]['connectionState'],
    calendars: list.map(({ externalId, name, primary }) => ({ externalId, name, primary })),
    syncedCalendars: activeMappings
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
}

/**
 * A person's connections and mapped calendars: what is connected and synced, mapping external
 * calendars onto local ones, disconnecting, forcing a sync, and the conflicts resolved.
 */
export function createMappings(deps: MappingDeps) {
  const { db, repo, providers, tokens, queue, calendars, automation } = deps;

  async function readCalendars(provider: SyncProvider, connectionId: number): Promise<ExternalCalendar[]> {
    const connection = await repo.findConnectionById(connectionId);
    if (!connection) throw notFound('Connection');
    const list = await tokens.withAccess(connection, (access) =>
      portOf(providers, provider).listCalendars(access),
    );
    await repo.setCalendars(connection.id, list, nowIso());
    return list;
  }

  /**
   * The external calendars of the actor's connected provider, read afresh when the input names
   * one not yet known; every calendar the input names is among them.
   */
  async function externalCalendarsToMap(
    actor: Actor,
    input: SyncCalendarsInput,
  ): Promise<ExternalCalendar[]> {
    const { provider } = input;
    portOf(providers, provider);
    const connection = await repo.findConnection(actor.userId, provider);
    if (!connection) throw conflict('CONFLICT', `Connect ${provider} before mapping its calendars`);
    if (connection.state !== 'connected')
      throw conflict('CONFLICT', `${provider} needs to be connected again before mapping its calendars`);

    let known = JSON.parse(connection.externalCalendars) as ExternalCalendar[];
    const unknown = () => input.calendars.filter((c) => !known.some((k) => k.externalId === c.externalId));
    if (unknown().length === 0) return known;
    try {
      known = await readCalendars(provider, connection.id);
    } catch (error) {
      if (error instanceof NeedsReconnectError)
        throw conflict('CONFLICT', `${provider} needs to be connected again before mapping its calendars`);
      throw error;
    }
    if (unknown().length > 0) throw notFound('External calendar');
    return known;
  }

  /** Every rule the input selects is one of the actor's event.synced rules. */
  async function checkSelectedRules(actor: Actor, input: SyncCalendarsInput): Promise<void> {
    const wantedRules = [...new Set(input.calendars.flatMap((c) => c.selectedRuleIds ?? []))];
    if (wantedRules.length === 0) return;
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

  /**
   * Maps one external calendar: updates its mapping (and renames its local calendar) when there
   * is one, else creates the local calendar and the mapping. Answers the mapping's id.
   */
  async function mapCalendar(
    actor: Actor,
    provider: SyncProvider,
    item: SyncCalendarsInput['calendars'][number],
    known: readonly ExternalCalendar[],
  ): Promise<number> {
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
      return existing.id;
    }
    const external = known.find((k) => k.externalId === item.externalId);
    const timezone = external?.timezone && isValidTimeZone(external.timezone) ? external.timezone : undefined;
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
      return mapping.id;
    } catch (error) {
      // A concurrent mapping of the same calendar won: do not leave an orphan calendar behind.
      await calendars.delete(actor, calendar.id).catch(() => {});
      if (isUniqueViolation(error))
        throw conflict('CONFLICT', 'This calendar was mapped at the same time; try again');
      throw error;
    }
  }

  return {
    async status(actor: Actor): Promise<SyncStatus> {
      const [connections, mappings] = await Promise.all([
        repo.listConnections(actor.userId),
        repo.listMappings(actor.userId, 'active'),
      ]);
      return {
        providers: SYNC_PROVIDERS.map((provider) =>
          providerStatusOf(
            provider,
            connections.find((row) => row.provider === provider),
            mappings,
          ),
        ),
      };
    },

    /** Creates or updates the local calendars the given external calendars sync into. */
    async mapCalendars(actor: Actor, input: SyncCalendarsInput): Promise<{ message: string }> {
      const { provider } = input;
      const known = await externalCalendarsToMap(actor, input);
      await checkSelectedRules(actor, input);
      const touched: number[] = [];
      for (const item of input.calendars) touched.push(await mapCalendar(actor, provider, item, known));
      for (const mappingId of touched) await queue.start(mappingId);
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
        await queue.revoke(job);
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
      for (const connection of connections) await queue.calendars(connection.id);
      for (const mapping of mappings) await queue.pull(mapping.id);
      return {
        message:
          connections.length === 0
            ? 'No calendar provider is connected; nothing to sync'
            : `Sync queued for ${mappings.length} calendar${mappings.length === 1 ? '' : 's'}`,
      };
    },

    /** Conflicts resolved for the user ("provider wins"), oldest first. */
    listConflicts(actor: Actor) {
      return repo.listConflicts(actor.userId);
    },
  };
}
