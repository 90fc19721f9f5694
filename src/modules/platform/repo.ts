import { sql } from 'kysely';
import type { Executor } from '../../db/database.js';

export function createPlatformRepo(db: Executor) {
  return {
    async ping(): Promise<void> {
      await sql`select 1`.execute(db);
    },

    async insertFrontendError(values: {
      source: string;
      message: string;
      stack: string | null;
      url: string | null;
      severity: 'error' | 'warn' | 'info';
      details: string | null;
      ip: string | null;
      userAgent: string | null;
      createdAt: string;
    }) {
      await db.insertInto('frontendErrors').values(values).execute();
    },

    /** Inserts reports and drops the oldest beyond `maxRows`, keeping the table bounded. */
    async insertSecurityReports(
      rows: Array<{
        kind: 'ct' | 'csp';
        body: string;
        ip: string | null;
        userAgent: string | null;
        createdAt: string;
      }>,
      maxRows: number,
    ) {
      const inserted = await db.insertInto('securityReports').values(rows).returning('id').execute();
      const newest = Math.max(...inserted.map((row) => row.id));
      await db
        .deleteFrom('securityReports')
        .where('id', '<=', newest - maxRows)
        .execute();
    },

    async insertHoneypotHit(values: {
      ip: string;
      userAgent: string | null;
      path: string;
      createdAt: string;
    }) {
      await db.insertInto('honeypotHits').values(values).execute();
    },
  };
}
