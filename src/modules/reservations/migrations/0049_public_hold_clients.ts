import { type Kysely, type Migration, sql } from 'kysely';

/**
 * Who a public hold came from (DECISIONS.md "What the review found, decided": at most
 * PUBLIC_HOLD_IP_MAX live public holds per IP address in an organisation): a keyed hash of
 * the client's address, never the address itself; null on every other reservation.
 */
export function publicHoldClients(): Migration {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema.alterTable('reservations').addColumn('public_client_hash', 'text').execute();
      await db.schema
        .createIndex('reservations_public_client_idx')
        .on('reservations')
        .columns(['organisation_id', 'public_client_hash'])
        .where(sql.ref('public_client_hash'), 'is not', null)
        .execute();
    },
  };
}
