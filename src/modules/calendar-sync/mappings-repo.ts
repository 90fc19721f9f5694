import type { Selectable } from 'kysely';
import type { Executor } from '../../db/database.js';
import type { SyncProvider } from './providers/port.js';
import type { CalendarSyncMappingsTable } from './tables.js';

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

/** Which external calendar syncs into which local one, with its settings (sync state: sync-state-repo.ts). */
export function createMappingsRepo(db: Executor) {
  return {
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
  };
}

export type MappingsRepo = ReturnType<typeof createMappingsRepo>;
