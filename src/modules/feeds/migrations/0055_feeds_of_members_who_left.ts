import { type Kysely, type Migration, sql } from 'kysely';

/**
 * Membership ends access (issue 49): the resource feeds made by someone who is no longer
 * a member of the organisation (they left, were removed, or were erased, which unlinked
 * them) are revoked, as a removal now does.
 */
export function feedsOfMembersWhoLeft(): Migration {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await sql`delete from feed_tokens
        where organisation_id is not null
          and (created_by_id is null
               or not exists (select 1 from organisation_memberships m
                              where m.organisation_id = feed_tokens.organisation_id
                                and m.user_id = feed_tokens.created_by_id))`.execute(db);
    },
  };
}
