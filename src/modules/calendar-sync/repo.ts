import type { ExpressionBuilder, Selectable } from 'kysely';
import type { Executor } from '../../db/database.js';
import type {
  CalendarSyncConnectionsTable,
  CalendarSyncMappingsTable,
} from '../../db/tables/calendar-sync.js';
import type { Database } from '../../db/types.js';
import { chunks } from '../../lib/chunks.js';
import type { ExternalCalendar, SyncProvider } from './providers/port.js';

export type ConnectionRow = Selectable<CalendarSyncConnectionsTable>;
export type MappingRow = Selectable<CalendarSyncMappingsTable>;

export interface Mapping {
  id: number;
  userId: number;
  provider: SyncProvider;
  externalCalendarId: string;
  localCalendarId: number;
  localName: string;
  bidirectionalSync: boolean;
  importReminders: boolean;
  triggerAutomationRules: boolean;
  selectedRuleIds: number[] | null;
  state: 'active' | 'unlinked';
  syncToken: string | null;
  syncWindowEnd: string | null;
  lastSyncedAt: string | null;
  channelId: string | null;
  channelResourceId: string | null;
  channelTokenHash: string | null;
  channelExpiresAt: string | null;
}

export function toMapping(row: MappingRow): Mapping {
  return {
    id: row.id,
    userId: row.userId,
    provider: row.provider as SyncProvider,
    externalCalendarId: row.externalCalendarId,
    localCalendarId: row.localCalendarId,
    localName: row.localName,
    bidirectionalSync: Boolean(row.bidirectionalSync),
    importReminders: Boolean(row.importReminders),
    triggerAutomationRules: Boolean(row.triggerAutomationRules),
    selectedRuleIds: row.selectedRuleIds ? (JSON.parse(row.selectedRuleIds) as number[]) : null,
    state: row.state as Mapping['state'],
    syncToken: row.syncToken,
    syncWindowEnd: row.syncWindowEnd,
    lastSyncedAt: row.lastSyncedAt,
    channelId: row.channelId,
    channelResourceId: row.channelResourceId,
    channelTokenHash: row.channelTokenHash,
    channelExpiresAt: row.channelExpiresAt,
  };
}

export interface MappingSettings {
  localName: string;
  bidirectionalSync: boolean;
  importReminders: boolean;
  triggerAutomationRules: boolean;
  selectedRuleIds: number[] | null;
}

export interface SealedTokens {
  accessTokenEnc: string;
  refreshTokenEnc: string | null;
  accessTokenExpiresAt: string | null;
  scope: string | null;
}

/** Ids per `in` list: well under SQLite's 32766 bound parameters. */
const IN_CHUNK = 500;

export function createSyncRepo(db: Executor) {
  return {
    // ------------------------------------------------------------------ connections

    async findConnection(userId: number, provider: SyncProvider): Promise<ConnectionRow | undefined> {
      return db
        .selectFrom('calendarSyncConnections')
        .selectAll()
        .where('userId', '=', userId)
        .where('provider', '=', provider)
        .executeTakeFirst();
    },

    async findConnectionById(id: number): Promise<ConnectionRow | undefined> {
      return db.selectFrom('calendarSyncConnections').selectAll().where('id', '=', id).executeTakeFirst();
    },

    async listConnections(userId: number): Promise<ConnectionRow[]> {
      return db.selectFrom('calendarSyncConnections').selectAll().where('userId', '=', userId).execute();
    },

    /** A (re)connect: fresh tokens, state connected, error cleared. */
    async upsertConnection(
      userId: number,
      provider: SyncProvider,
      tokens: SealedTokens,
      calendars: ExternalCalendar[] | null,
      now: string,
    ): Promise<ConnectionRow> {
      const calendarJson = calendars ? JSON.stringify(calendars) : undefined;
      return db
        .insertInto('calendarSyncConnections')
        .values({
          userId,
          provider,
          state: 'connected',
          ...tokens,
          externalCalendars: calendarJson ?? '[]',
          connectedAt: now,
          createdAt: now,
          updatedAt: now,
        })
        .onConflict((oc) =>
          oc.columns(['userId', 'provider']).doUpdateSet({
            state: 'connected',
            ...tokens,
            ...(calendarJson !== undefined ? { externalCalendars: calendarJson } : {}),
            lastErrorCode: null,
            lastErrorMessage: null,
            lastErrorAt: null,
            connectedAt: now,
            updatedAt: now,
          }),
        )
        .returningAll()
        .executeTakeFirstOrThrow();
    },

    async updateTokens(id: number, tokens: Partial<SealedTokens>, now: string): Promise<void> {
      await db
        .updateTable('calendarSyncConnections')
        .set({ ...tokens, updatedAt: now })
        .where('id', '=', id)
        .execute();
    },

    async setCalendars(id: number, calendars: ExternalCalendar[], now: string): Promise<void> {
      await db
        .updateTable('calendarSyncConnections')
        .set({ externalCalendars: JSON.stringify(calendars), updatedAt: now })
        .where('id', '=', id)
        .execute();
    },

    async setError(id: number, error: { code: string; message: string } | null, now: string): Promise<void> {
      await db
        .updateTable('calendarSyncConnections')
        .set({
          lastErrorCode: error?.code ?? null,
          lastErrorMessage: error?.message ?? null,
          lastErrorAt: error ? now : null,
          updatedAt: now,
        })
        .where('id', '=', id)
        .execute();
    },

    /** Marks a connected connection `needs_reconnect` with the error; answers the row, or undefined when it was not connected. */
    async markNeedsReconnect(
      id: number,
      error: { code: string; message: string },
      now: string,
    ): Promise<ConnectionRow | undefined> {
      return db
        .updateTable('calendarSyncConnections')
        .set({
          state: 'needs_reconnect',
          lastErrorCode: error.code,
          lastErrorMessage: error.message,
          lastErrorAt: now,
          updatedAt: now,
        })
        .where('id', '=', id)
        .where('state', '=', 'connected')
        .returningAll()
        .executeTakeFirst();
    },

    async deleteConnection(id: number): Promise<void> {
      await db.deleteFrom('calendarSyncConnections').where('id', '=', id).execute();
    },

    // ------------------------------------------------------------------ mappings

    async listMappings(userId: number, state?: Mapping['state']): Promise<Mapping[]> {
      const rows = await db
        .selectFrom('calendarSyncMappings')
        .selectAll()
        .where('userId', '=', userId)
        .$if(state !== undefined, (qb) => qb.where('state', '=', state!))
        .orderBy('id')
        .execute();
      return rows.map(toMapping);
    },

    async findMapping(id: number): Promise<Mapping | undefined> {
      const row = await db
        .selectFrom('calendarSyncMappings')
        .selectAll()
        .where('id', '=', id)
        .executeTakeFirst();
      return row && toMapping(row);
    },

    async findMappingByExternal(
      userId: number,
      provider: SyncProvider,
      externalCalendarId: string,
    ): Promise<Mapping | undefined> {
      const row = await db
        .selectFrom('calendarSyncMappings')
        .selectAll()
        .where('userId', '=', userId)
        .where('provider', '=', provider)
        .where('externalCalendarId', '=', externalCalendarId)
        .executeTakeFirst();
      return row && toMapping(row);
    },

    /** The active mapping a local calendar syncs through, if any (push-back). */
    async findActiveByLocalCalendar(calendarId: number): Promise<Mapping | undefined> {
      const row = await db
        .selectFrom('calendarSyncMappings')
        .selectAll()
        .where('localCalendarId', '=', calendarId)
        .where('state', '=', 'active')
        .executeTakeFirst();
      return row && toMapping(row);
    },

    async findByChannel(provider: SyncProvider, channelId: string): Promise<Mapping | undefined> {
      const row = await db
        .selectFrom('calendarSyncMappings')
        .selectAll()
        .where('provider', '=', provider)
        .where('channelId', '=', channelId)
        .executeTakeFirst();
      return row && toMapping(row);
    },

    async insertMapping(
      userId: number,
      provider: SyncProvider,
      externalCalendarId: string,
      localCalendarId: number,
      settings: MappingSettings,
      now: string,
    ): Promise<Mapping> {
      const row = await db
        .insertInto('calendarSyncMappings')
        .values({
          userId,
          provider,
          externalCalendarId,
          localCalendarId,
          ...settings,
          selectedRuleIds: settings.selectedRuleIds ? JSON.stringify(settings.selectedRuleIds) : null,
          state: 'active',
          createdAt: now,
          updatedAt: now,
        })
        .returningAll()
        .executeTakeFirstOrThrow();
      return toMapping(row);
    },

    /** New settings; relinking an unlinked mapping starts with a full sync. */
    async updateMapping(id: number, settings: MappingSettings, now: string, relink: boolean): Promise<void> {
      await db
        .updateTable('calendarSyncMappings')
        .set({
          ...settings,
          selectedRuleIds: settings.selectedRuleIds ? JSON.stringify(settings.selectedRuleIds) : null,
          ...(relink ? { state: 'active', syncToken: null, syncWindowEnd: null } : {}),
          updatedAt: now,
        })
        .where('id', '=', id)
        .execute();
    },

    /** Marks the provider's mappings of the user unlinked; answers them as they were (channels to stop). */
    async unlinkMappings(userId: number, provider: SyncProvider, now: string): Promise<Mapping[]> {
      const rows = await db
        .selectFrom('calendarSyncMappings')
        .selectAll()
        .where('userId', '=', userId)
        .where('provider', '=', provider)
        .where('state', '=', 'active')
        .execute();
      if (rows.length === 0) return [];
      await db
        .updateTable('calendarSyncMappings')
        .set({
          state: 'unlinked',
          syncToken: null,
          syncWindowEnd: null,
          channelId: null,
          channelResourceId: null,
          channelTokenHash: null,
          channelExpiresAt: null,
          updatedAt: now,
        })
        .where(
          'id',
          'in',
          rows.map((row) => row.id),
        )
        .execute();
      return rows.map(toMapping);
    },

    async setSyncResult(
      id: number,
      values: { syncToken: string; syncWindowEnd: string | null; lastSyncedAt: string },
    ): Promise<void> {
      await db
        .updateTable('calendarSyncMappings')
        .set({ ...values, updatedAt: values.lastSyncedAt })
        .where('id', '=', id)
        .where('state', '=', 'active')
        .execute();
    },

    async setChannel(
      id: number,
      channel: { channelId: string; resourceId: string | null; tokenHash: string; expiresAt: string } | null,
      now: string,
    ): Promise<void> {
      await db
        .updateTable('calendarSyncMappings')
        .set({
          channelId: channel?.channelId ?? null,
          channelResourceId: channel?.resourceId ?? null,
          channelTokenHash: channel?.tokenHash ?? null,
          channelExpiresAt: channel?.expiresAt ?? null,
          updatedAt: now,
        })
        .where('id', '=', id)
        .execute();
    },

    async extendChannel(id: number, expiresAt: string, now: string): Promise<void> {
      await db
        .updateTable('calendarSyncMappings')
        .set({ channelExpiresAt: expiresAt, updatedAt: now })
        .where('id', '=', id)
        .execute();
    },

    /** Active mappings of connected users whose channel is missing or ends before `before`. */
    async listChannelsToRenew(before: string, limit: number): Promise<number[]> {
      const rows = await db
        .selectFrom('calendarSyncMappings as m')
        .innerJoin('calendarSyncConnections as c', (join) =>
          join.onRef('c.userId', '=', 'm.userId').onRef('c.provider', '=', 'm.provider'),
        )
        .select('m.id')
        .where('m.state', '=', 'active')
        .where('c.state', '=', 'connected')
        .where((eb) => eb.or([eb('m.channelExpiresAt', 'is', null), eb('m.channelExpiresAt', '<', before)]))
        .orderBy('m.channelExpiresAt')
        .limit(limit)
        .execute();
      return rows.map((row) => row.id);
    },

    /**
     * Claims the mappings due for a poll and answers their ids. The claim is one UPDATE that
     * re-checks the due condition, so instances polling at once each claim different mappings.
     * Due: no live channel and not polled for `pollCutoff`; with a live channel (push works)
     * a slower safety poll after `channelCutoff`.
     */
    async claimDueForPoll(
      now: string,
      pollCutoff: string,
      channelCutoff: string,
      limit: number,
    ): Promise<number[]> {
      const due = (eb: ExpressionBuilder<Database, 'calendarSyncMappings'>) =>
        eb.or([
          eb.and([
            eb.or([eb('channelExpiresAt', 'is', null), eb('channelExpiresAt', '<=', now)]),
            eb.or([eb('lastPolledAt', 'is', null), eb('lastPolledAt', '<', pollCutoff)]),
          ]),
          eb.and([
            eb('channelExpiresAt', '>', now),
            eb.or([eb('lastPolledAt', 'is', null), eb('lastPolledAt', '<', channelCutoff)]),
          ]),
        ]);
      const rows = await db
        .updateTable('calendarSyncMappings')
        .set({ lastPolledAt: now })
        .where('id', 'in', (eb) =>
          eb
            .selectFrom('calendarSyncMappings as m')
            .innerJoin('calendarSyncConnections as c', (join) =>
              join.onRef('c.userId', '=', 'm.userId').onRef('c.provider', '=', 'm.provider'),
            )
            .select('m.id')
            .where('m.state', '=', 'active')
            .where('c.state', '=', 'connected')
            .where((inner) =>
              inner.or([
                inner.and([
                  inner.or([inner('m.channelExpiresAt', 'is', null), inner('m.channelExpiresAt', '<=', now)]),
                  inner.or([inner('m.lastPolledAt', 'is', null), inner('m.lastPolledAt', '<', pollCutoff)]),
                ]),
                inner.and([
                  inner('m.channelExpiresAt', '>', now),
                  inner.or([
                    inner('m.lastPolledAt', 'is', null),
                    inner('m.lastPolledAt', '<', channelCutoff),
                  ]),
                ]),
              ]),
            )
            .orderBy('m.lastPolledAt')
            .limit(limit),
        )
        .where('state', '=', 'active')
        .where(due)
        .returning('id')
        .execute();
      return rows.map((row) => row.id);
    },

    /** Takes the mapping's lease when free or expired; answers whether it did. */
    async acquireLease(id: number, owner: string, until: string, now: string): Promise<boolean> {
      const result = await db
        .updateTable('calendarSyncMappings')
        .set({ leaseOwner: owner, leaseUntil: until })
        .where('id', '=', id)
        .where((eb) => eb.or([eb('leaseUntil', 'is', null), eb('leaseUntil', '<', now)]))
        .executeTakeFirst();
      return Number(result.numUpdatedRows) === 1;
    },

    async releaseLease(id: number, owner: string): Promise<void> {
      await db
        .updateTable('calendarSyncMappings')
        .set({ leaseOwner: null, leaseUntil: null })
        .where('id', '=', id)
        .where('leaseOwner', '=', owner)
        .execute();
    },

    // ------------------------------------------------------------------ connect states

    async insertState(
      values: {
        stateHash: string;
        userId: number;
        provider: SyncProvider;
        codeVerifierEnc: string;
        expiresAt: string;
      },
      now: string,
    ): Promise<void> {
      await db
        .insertInto('calendarSyncStates')
        .values({ ...values, createdAt: now })
        .execute();
    },

    /** Marks a state used, once: answers it only when unused, unexpired and for this provider. */
    async consumeState(stateHash: string, provider: SyncProvider, now: string) {
      return db
        .updateTable('calendarSyncStates')
        .set({ usedAt: now })
        .where('stateHash', '=', stateHash)
        .where('provider', '=', provider)
        .where('usedAt', 'is', null)
        .where('expiresAt', '>', now)
        .returning(['userId', 'codeVerifierEnc'])
        .executeTakeFirst();
    },

    async purgeStates(before: string): Promise<void> {
      await db.deleteFrom('calendarSyncStates').where('expiresAt', '<', before).execute();
    },

    // ------------------------------------------------------------------ series exceptions (A)

    async upsertException(
      mappingId: number,
      seriesExternalId: string,
      instanceExternalId: string,
      exdate: string,
      now: string,
    ): Promise<void> {
      await db
        .insertInto('calendarSyncExceptions')
        .values({ mappingId, seriesExternalId, instanceExternalId, exdate, createdAt: now })
        .onConflict((oc) =>
          oc.columns(['mappingId', 'instanceExternalId']).doUpdateSet({ seriesExternalId, exdate }),
        )
        .execute();
    },

    async listExceptions(
      mappingId: number,
      seriesIds: readonly string[],
    ): Promise<Array<{ seriesExternalId: string; instanceExternalId: string; exdate: string }>> {
      const out = [];
      for (const part of chunks(seriesIds, IN_CHUNK)) {
        const rows = await db
          .selectFrom('calendarSyncExceptions')
          .select(['seriesExternalId', 'instanceExternalId', 'exdate'])
          .where('mappingId', '=', mappingId)
          .where('seriesExternalId', 'in', part)
          .execute();
        out.push(...rows);
      }
      return out;
    },

    async deleteExceptionsOfSeries(mappingId: number, seriesIds: readonly string[]): Promise<string[]> {
      const instances: string[] = [];
      for (const part of chunks(seriesIds, IN_CHUNK)) {
        const rows = await db
          .deleteFrom('calendarSyncExceptions')
          .where('mappingId', '=', mappingId)
          .where('seriesExternalId', 'in', part)
          .returning('instanceExternalId')
          .execute();
        instances.push(...rows.map((row) => row.instanceExternalId));
      }
      return instances;
    },

    /** After a full listing: forgets exceptions the provider no longer lists. */
    async sweepExceptions(mappingId: number, seen: ReadonlySet<string>): Promise<void> {
      const rows = await db
        .selectFrom('calendarSyncExceptions')
        .select(['id', 'instanceExternalId'])
        .where('mappingId', '=', mappingId)
        .execute();
      const gone = rows.filter((row) => !seen.has(row.instanceExternalId)).map((row) => row.id);
      for (const part of chunks(gone, IN_CHUNK))
        await db.deleteFrom('calendarSyncExceptions').where('id', 'in', part).execute();
    },

    // ------------------------------------------------------------------ conflicts

    async insertConflict(values: {
      userId: number;
      mappingId: number;
      eventId: number | null;
      externalId: string;
      localChange: 'update' | 'delete';
      now: string;
    }): Promise<void> {
      const { now, ...rest } = values;
      await db
        .insertInto('calendarSyncConflicts')
        .values({ ...rest, resolution: 'provider_wins', createdAt: now })
        .execute();
    },

    async listConflicts(userId: number) {
      return db
        .selectFrom('calendarSyncConflicts')
        .select(['mappingId', 'eventId', 'externalId', 'localChange', 'resolution', 'createdAt'])
        .where('userId', '=', userId)
        .orderBy('id')
        .execute();
    },

    // ------------------------------------------------------------------ the mapped calendar

    async calendarTimezone(calendarId: number): Promise<string | undefined> {
      const row = await db
        .selectFrom('calendars')
        .select('timezone')
        .where('id', '=', calendarId)
        .executeTakeFirst();
      return row?.timezone;
    },
  };
}

export type SyncRepo = ReturnType<typeof createSyncRepo>;
