import type { Kysely, Migration } from 'kysely';

/**
 * `organisations.default_locale` (DECISIONS.md "Booking everywhere"): the language of its
 * booking pages and customer mails when the customer chose none; `en` for every
 * organisation until it sets another.
 */
export function defaultLocale(): Migration {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .alterTable('organisations')
        .addColumn('default_locale', 'text', (col) => col.notNull().defaultTo('en'))
        .execute();
    },
  };
}
