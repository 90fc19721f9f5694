import type { Selectable } from 'kysely';
import type { Executor } from '../../db/database.js';
import type { ExternalCalendar, SyncProvider } from './providers/port.js';
import type { CalendarSyncConnectionsTable } from './tables.js';

export type ConnectionRow = Selectable<CalendarSyncConnectionsTable>;

export interface SealedTokens {
  accessTokenEnc: string;
  refreshTokenEnc: string | null;
  accessTokenExpiresAt: string | null;
  scope: string | null;
}

/** A user's connection to a provider (tokens, calendars, last error) and the OAuth states of connecting. */
export function createConnectionsRepo(db: Executor) {
  return {
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

    // The OAuth state of a connect in progress: made at its start, used once at the callback.

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
  };
}

export type ConnectionsRepo = ReturnType<typeof createConnectionsRepo>;
