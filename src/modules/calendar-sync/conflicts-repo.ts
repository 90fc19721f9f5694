import type { Executor } from '../../db/database.js';

/** A local change the provider's own change overrode (the provider wins), kept for the user to see. */
export function createConflictsRepo(db: Executor) {
  return {
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
  };
}

export type ConflictsRepo = ReturnType<typeof createConflictsRepo>;
