import { type Expression, sql } from 'kysely';
import type { Executor } from '../../db/database.js';
import { TYPE_COLUMNS } from './repo.js';

/**
 * What other modules read of the resource types table, each a query to compose into theirs
 * (as a subquery: `.as(...)`), so their read stays one statement.
 */

/** Every resource type as stored, each column named (read back with `prefixedTypeColumns`, `toResourceType`). */
export function resourceTypeRows(db: Executor) {
  return db
    .selectFrom('resourceTypes')
    .select(TYPE_COLUMNS.map((column) => `resourceTypes.${column}` as const));
}

/** A resource type's name, by its id. */
export function resourceTypeName(db: Executor, resourceTypeId: number) {
  return db
    .selectFrom('resourceTypes')
    .select('resourceTypes.name')
    .where('resourceTypes.id', '=', resourceTypeId);
}

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

/** Every resource type with reminders, each with its reminders (JSON text): what the reminder sweep reads. */
export function typesWithReminders(db: Executor) {
  return db
    .selectFrom('resourceTypes')
    .select(['resourceTypes.id', 'resourceTypes.reminders'])
    .where('resourceTypes.reminders', '<>', sql.lit('[]'));
}
