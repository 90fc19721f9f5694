import type { Executor } from '../../db/database.js';
import type { SchedulePolicy } from '../../scheduling/schemas.js';

const organisationColumns = [
  'id',
  'name',
  'slug',
  'description',
  'logoUrl',
  'publicBookingHeadline',
  'publicBookingDescription',
  'color',
  'timezone',
  'schedulePolicy',
] as const;

export function createPublicBookingRepo(db: Executor) {
  const toOrganisation = <R extends { schedulePolicy: string | null }>(row: R) => ({
    ...row,
    schedulePolicy: row.schedulePolicy ? (JSON.parse(row.schedulePolicy) as SchedulePolicy) : null,
  });
  return {
    /** An active organisation by its public slug. */
    async organisationBySlug(slug: string) {
      const row = await db
        .selectFrom('organisations')
        .select(organisationColumns)
        .where('slug', '=', slug)
        .where('isActive', '=', true)
        .executeTakeFirst();
      return row && toOrganisation(row);
    },

    /** An active organisation by id: the one a customer's manage link belongs to. */
    async organisationById(id: number) {
      const row = await db
        .selectFrom('organisations')
        .select(organisationColumns)
        .where('id', '=', id)
        .where('isActive', '=', true)
        .executeTakeFirst();
      return row && toOrganisation(row);
    },

    /** The active, non-lane resource a public token names, with its active organisation. */
    async resourceByToken(token: string) {
      const row = await db
        .selectFrom('resources')
        .select(['id', 'organisationId'])
        .where('publicToken', '=', token)
        .where('isCapacityChild', '=', false)
        .where('isActive', '=', true)
        .executeTakeFirst();
      if (!row) return undefined;
      const organisation = await db
        .selectFrom('organisations')
        .select(organisationColumns)
        .where('id', '=', row.organisationId)
        .where('isActive', '=', true)
        .executeTakeFirst();
      return organisation && { resourceId: row.id, organisation: toOrganisation(organisation) };
    },
  };
}
