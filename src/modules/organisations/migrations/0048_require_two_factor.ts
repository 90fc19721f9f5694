import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../../../db/database.js';
import { columnsFor } from '../../../db/migrations/columns.js';

/**
 * `organisations.require_two_factor` (issue 48): its OWNER, ADMIN and MANAGER members need
 * two-factor sign-in on for its staff routes. Read with the active tenant on every request.
 */
export function requireTwoFactor(dialect: Dialect) {
  const c = columnsFor(dialect);
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .alterTable('organisations')
        .addColumn('require_two_factor', c.bool, (col) => col.notNull().defaultTo(sql`false`))
        .execute();
    },
  };
}
