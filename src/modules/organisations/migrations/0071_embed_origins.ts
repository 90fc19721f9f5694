import type { Kysely, Migration } from 'kysely';

/**
 * `organisations.embed_origins` (issue 53): the origins whose pages may frame the organisation's
 * booking page (its `frame-ancestors`), a JSON array of `scheme://host[:port]` strings, '[]' for none.
 */
export function embedOrigins(): Migration {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .alterTable('organisations')
        .addColumn('embed_origins', 'text', (col) => col.notNull().defaultTo('[]'))
        .execute();
    },
  };
}
