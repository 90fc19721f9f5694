import type { Kysely, Migration } from 'kysely';

/**
 * A resource type's booking questions (DECISIONS.md "Pages people live in"): a JSON array
 * of `{id, label, kind, required, options?}`, '[]' for none. A booking's answers need no
 * column of their own: they travel in the reservation's customer_info JSON as `answers`,
 * beside the type's customerInfoFields, so events, waitlist entries, the privacy export and
 * erasure carry them as they carry the rest of the customer.
 */
export function bookingQuestions(): Migration {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .alterTable('resource_types')
        .addColumn('questions', 'text', (col) => col.notNull().defaultTo('[]'))
        .execute();
    },
  };
}
