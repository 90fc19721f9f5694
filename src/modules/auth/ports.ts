import type { Executor } from '../../db/database.js';

/**
 * Read ports: what other modules may read of the auth tables, as query fragments they compose
 * into their own statements (so a read stays one statement and the tables stay here).
 */

/** Every user's id, email address and name, to join to the user ids another module holds. */
export function userContacts(db: Executor) {
  return db.selectFrom('users').select(['users.id', 'users.email', 'users.name']);
}

/** Every user's id and name (never the email), to join to the user ids another module holds. */
export function userNames(db: Executor) {
  return db.selectFrom('users').select(['users.id', 'users.name']);
}
