import { type Insertable, sql } from 'kysely';
import type { Executor } from '../../db/database.js';
import type { Database } from '../../db/types.js';

/** Tables anyone can write to through a public route; each keeps only its newest rows. */
type IngestTable = 'frontendErrors' | 'securityReports' | 'honeypotHits';

export function createPlatformRepo(db: Executor, maxRows: number) {
  /** Inserts rows and drops the oldest beyond `maxRows` (ids grow, so one indexed delete does it). */
  async function insertBounded<T extends IngestTable>(table: T, rows: Insertable<Database[T]>[]) {
    const inserted = await db
      .insertInto(table as IngestTable)
      .values(rows as Insertable<Database[IngestTable]>[])
      .returning('id')
      .execute();
    const newest = Math.max(...inserted.map((row) => row.id));
    await db
      .deleteFrom(table as IngestTable)
      .where('id', '<=', newest - maxRows)
      .execute();
  }

  return {
    async ping(): Promise<void> {
      await sql`select 1`.execute(db);
    },

    insertFrontendError: (row: Insertable<Database['frontendErrors']>) =>
      insertBounded('frontendErrors', [row]),
    insertSecurityReports: (rows: Insertable<Database['securityReports']>[]) =>
      insertBounded('securityReports', rows),
    insertHoneypotHit: (row: Insertable<Database['honeypotHits']>) => insertBounded('honeypotHits', [row]),
  };
}
