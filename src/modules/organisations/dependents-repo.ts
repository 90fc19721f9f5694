import type { Executor } from '../../db/database.js';
import { keepsTimeAt } from '../../db/reservation-time.js';

/** Counts and writes that reach the catalogue's tables (resource types, resources, reservations). */
export function createOrganisationDependentsRepo(db: Executor) {
  const count = async (query: { executeTakeFirstOrThrow(): Promise<{ count: string | number | bigint }> }) =>
    Number((await query.executeTakeFirstOrThrow()).count);
  return {
    countResourceTypes(organisationId: number): Promise<number> {
      return count(
        db
          .selectFrom('resourceTypes')
          .select((eb) => eb.fn.countAll().as('count'))
          .where('organisationId', '=', organisationId),
      );
    },
    /** Bookable resources: capacity lanes are part of their parent, not counted apart. */
    countResources(organisationId: number): Promise<number> {
      return count(
        db
          .selectFrom('resources')
          .select((eb) => eb.fn.countAll().as('count'))
          .where('organisationId', '=', organisationId)
          .where('isCapacityChild', '=', false),
      );
    },
    countFutureReservations(organisationId: number, now: string): Promise<number> {
      return count(
        db
          .selectFrom('reservations')
          .select((eb) => eb.fn.countAll().as('count'))
          .where('organisationId', '=', organisationId)
          .where(keepsTimeAt(now))
          .where('endTime', '>', now),
      );
    },
    /** Gives every resource type of the organisation this colour; answers how many changed. */
    async recolourResourceTypes(organisationId: number, color: string, now: string): Promise<number> {
      const result = await db
        .updateTable('resourceTypes')
        .set({ color, updatedAt: now })
        .where('organisationId', '=', organisationId)
        .executeTakeFirst();
      return Number(result.numUpdatedRows);
    },
  };
}
