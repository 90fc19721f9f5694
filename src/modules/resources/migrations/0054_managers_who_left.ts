import { type Kysely, type Migration, sql } from 'kysely';
import type { Dialect } from '../../../db/database.js';

/**
 * A member's calendars are theirs (issue 49): a member who left or was removed before
 * removal cleared it still manages resources, with their busy time blocking them and
 * bookings mirrored into their calendar. Those resources (and lanes) drop the manager and
 * both settings, as a removal now does.
 */
export function managersWhoLeft(dialect: Dialect): Migration {
  const no = dialect === 'postgres' ? 'false' : '0';
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await sql`update resources
        set managed_by_id = null, block_on_manager_calendars = ${sql.raw(no)}, booking_calendar_id = null,
            updated_at = ${new Date().toISOString()}
        where managed_by_id is not null
          and not exists (select 1 from organisation_memberships m
                          where m.organisation_id = resources.organisation_id
                            and m.user_id = resources.managed_by_id)`.execute(db);
    },
  };
}
