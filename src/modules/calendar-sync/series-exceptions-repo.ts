import type { Executor } from '../../db/database.js';
import { chunks } from '../../lib/chunks.js';

/** Ids per `in` list: well under SQLite's 32766 bound parameters. */
const IN_CHUNK = 500;

/** Provider A's series exceptions: an occurrence moved, changed or cancelled, which its series excludes (EXDATE). */
export function createSeriesExceptionsRepo(db: Executor) {
  return {
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
  };
}

export type SeriesExceptionsRepo = ReturnType<typeof createSeriesExceptionsRepo>;
