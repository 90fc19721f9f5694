import type { Generated } from 'kysely';
import type { Timestamp } from '../../db/column-types.js';
import type { Executor } from '../../db/database.js';
import { reservationsKeepingTimeAt } from '../reservations/ports.js';
import { laneIdsOf } from '../resources/ports.js';

export interface FeedTokensTable {
  id: Generated<number>;
  /** SHA-256 (hex) of the token in the URL; the token itself is never stored. */
  tokenHash: string;
  calendarId: number | null;
  resourceId: number | null;
  organisationId: number | null;
  createdById: number | null;
  createdAt: Timestamp;
}

export interface FeedTables {
  feedTokens: FeedTokensTable;
}

export type FeedSubject = { calendarId: number } | { resourceId: number; organisationId: number };

export interface FeedRow {
  calendarId: number | null;
  resourceId: number | null;
  organisationId: number | null;
}

export function createFeedRepo(db: Executor) {
  return {
    /**
     * Replaces the subject's feed (if any) with one for `tokenHash`: one upsert on the subject's
     * unique index, so concurrent replacements end with one of them, never a unique violation.
     */
    async replace(subject: FeedSubject, tokenHash: string, createdById: number, now: string): Promise<void> {
      const subjectColumn = 'calendarId' in subject ? 'calendarId' : 'resourceId';
      const organisationId = 'organisationId' in subject ? subject.organisationId : null;
      await db
        .insertInto('feedTokens')
        .values({
          tokenHash,
          calendarId: 'calendarId' in subject ? subject.calendarId : null,
          resourceId: 'resourceId' in subject ? subject.resourceId : null,
          organisationId,
          createdById,
          createdAt: now,
        })
        .onConflict((conflict) =>
          conflict
            .column(subjectColumn)
            .where(subjectColumn, 'is not', null)
            .doUpdateSet({ tokenHash, organisationId, createdById, createdAt: now }),
        )
        .execute();
    },

    /** Deletes the subject's feed; whether there was one. */
    async remove(subject: FeedSubject): Promise<boolean> {
      const query = db.deleteFrom('feedTokens');
      const result = await ('calendarId' in subject
        ? query.where('calendarId', '=', subject.calendarId)
        : query.where('resourceId', '=', subject.resourceId)
      ).executeTakeFirst();
      return Number(result.numDeletedRows) > 0;
    },

    /** Deletes the resource feeds a member made for the organisation (they left it, or were removed). */
    async removeMadeBy(organisationId: number, userId: number): Promise<void> {
      await db
        .deleteFrom('feedTokens')
        .where('organisationId', '=', organisationId)
        .where('createdById', '=', userId)
        .execute();
    },

    async findByHash(tokenHash: string): Promise<FeedRow | undefined> {
      return db
        .selectFrom('feedTokens')
        .select(['calendarId', 'resourceId', 'organisationId'])
        .where('tokenHash', '=', tokenHash)
        .executeTakeFirst();
    },

    /**
     * What a resource feed shows: the reservations keeping time on the resource or its
     * lanes within [from, to), times and status only (a feed URL travels into other
     * people's calendar apps: no customer data).
     */
    async reservationsOf(resourceId: number, from: string, to: string, now: string) {
      return db
        .selectFrom(reservationsKeepingTimeAt(db, now).as('kept'))
        .select(['kept.id', 'kept.startTime', 'kept.endTime', 'kept.status', 'kept.updatedAt'])
        .where((eb) =>
          eb.or([
            eb('kept.resourceId', '=', resourceId),
            eb('kept.resourceId', 'in', laneIdsOf(db, resourceId)),
          ]),
        )
        .where('kept.startTime', '<', to)
        .where('kept.endTime', '>', from)
        .orderBy('kept.startTime')
        .orderBy('kept.id')
        .execute();
    },
  };
}
