import { type Kysely, type Migration, sql } from 'kysely';

/**
 * `reservations_series_idx` (0026) covers only occurrences of a series. Most reservations
 * belong to none, and every booking wrote the index for nothing (bench/outbox-cost.ts's
 * micro-benchmark: about 8 µs of a SQLite booking). `series_id = ?` implies the index's
 * condition, so every read of a series still uses it.
 */
export function seriesIndexPartial(): Migration {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema.dropIndex('reservations_series_idx').execute();
      await db.schema
        .createIndex('reservations_series_idx')
        .on('reservations')
        .column('series_id')
        .where(sql.ref('series_id'), 'is not', null)
        .execute();
    },
  };
}
