import { type Expression, sql } from 'kysely';
import type { Executor } from '../../db/database.js';

// What other modules may read and write of resource types, as query fragments they compose
// into their own statements (the table's name stays in this folder).

/** How many resource types the organisation has, archived or not. */
export async function countResourceTypes(db: Executor, organisationId: number): Promise<number> {
  const row = await db
    .selectFrom('resourceTypes')
    .select((eb) => eb.fn.countAll().as('count'))
    .where('organisationId', '=', organisationId)
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

/** Gives every resource type of the organisation this colour; answers how many changed. */
export async function recolourResourceTypes(
  db: Executor,
  organisationId: number,
  color: string,
  now: string,
): Promise<number> {
  const result = await db
    .updateTable('resourceTypes')
    .set({ color, updatedAt: now })
    .where('organisationId', '=', organisationId)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/**
 * A row (`one`) when the type `typeId` (a column of the consumer's statement) takes payment:
 * for `not exists` within the consumer's own statement.
 */
export function typeTakingPayment(db: Executor, typeId: Expression<number | null>) {
  return db
    .selectFrom('resourceTypes')
    .select(sql.lit(1).as('one'))
    .where('resourceTypes.id', '=', typeId)
    .where('resourceTypes.paymentRequired', '=', sql.lit(true));
}
