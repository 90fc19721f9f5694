import type { Kysely } from 'kysely';

/**
 * Booking rules of a resource type (JSON text, null when none) and, on a reservation,
 * the staff member who passed `overrideRules` to write it past them. Neither column is
 * read by the availability triggers' reservation columns: recording an override changes
 * no availability, while a type's rules change its row and so its version.
 */
export function bookingRules() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema.alterTable('resource_types').addColumn('booking_rules', 'text').execute();
      await db.schema
        .alterTable('reservations')
        .addColumn('rules_overridden_by_user_id', 'integer', (col) =>
          col.references('users.id').onDelete('set null'),
        )
        .execute();
    },
  };
}
