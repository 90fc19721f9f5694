import type { Executor } from '../../db/database.js';

/**
 * Read ports: what other modules may read (and the few writes they make) of people's accounts
 * (`users`), as query fragments they compose into their own statements (so a read stays one
 * statement and the table's name stays in this folder).
 */

/** Every user's id and name (never the email), to join to the user ids another module holds. */
export function userNames(db: Executor) {
  return db.selectFrom('users').select(['users.id', 'users.name']);
}

/**
 * The person's account row, selecting no column of its own: the consumer joins and selects
 * from it in its one statement (the tenant gate's `joinActiveTenant`).
 */
export function accountById(db: Executor, userId: number) {
  return db.selectFrom('users').where('users.id', '=', userId);
}

/** Clears the organisation as the active one of `userId`, or of every user when omitted. */
export async function clearActiveOrganisation(
  db: Executor,
  organisationId: number,
  now: string,
  userId?: number,
): Promise<void> {
  await db
    .updateTable('users')
    .set({ activeOrganisationId: null, updatedAt: now })
    .where('activeOrganisationId', '=', organisationId)
    .$if(userId !== undefined, (qb) => qb.where('id', '=', userId!))
    .execute();
}

/** What other modules show and check of people's accounts (members, inviters, mail recipients): to join by `id`. */
export function accounts(db: Executor) {
  return db.selectFrom('users').select(['id', 'name', 'email', 'activeOrganisationId', 'twoFactorEnabled']);
}

/** The plan an owner's organisations count against, the address invitations reach, the active organisation. */
export function organisationFactsOf(db: Executor, userId: number) {
  return db
    .selectFrom('users')
    .select(['plan', 'email', 'emailVerified', 'activeOrganisationId'])
    .where('id', '=', userId);
}

/** Makes the organisation the user's active one. */
export async function setActiveOrganisation(
  db: Executor,
  userId: number,
  organisationId: number,
  now: string,
): Promise<void> {
  await db
    .updateTable('users')
    .set({ activeOrganisationId: organisationId, updatedAt: now })
    .where('id', '=', userId)
    .execute();
}

/** Makes the organisation the user's active one when they have none; answers whether it did. */
export async function setActiveOrganisationIfNone(
  db: Executor,
  userId: number,
  organisationId: number,
  now: string,
): Promise<boolean> {
  const result = await db
    .updateTable('users')
    .set({ activeOrganisationId: organisationId, updatedAt: now })
    .where('id', '=', userId)
    .where('activeOrganisationId', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}
