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
  'defaultLocale',
  'schedulePolicy',
] as const;

/** The public booking page's reads of active organisations: only what the page may show. */
export function createPublicOrganisationsRepo(db: Executor) {
  const toOrganisation = <R extends { schedulePolicy: string | null }>(row: R) => ({
    ...row,
    schedulePolicy: row.schedulePolicy ? (JSON.parse(row.schedulePolicy) as SchedulePolicy) : null,
  });
  return {
    /** An active organisation by its public slug. */
    async publicOrganisationBySlug(slug: string) {
      const row = await db
        .selectFrom('organisations')
        .select(organisationColumns)
        .where('slug', '=', slug)
        .where('isActive', '=', true)
        .executeTakeFirst();
      return row && toOrganisation(row);
    },

    /** An active organisation by id: the one a customer's manage link belongs to. */
    async publicOrganisationById(id: number) {
      const row = await db
        .selectFrom('organisations')
        .select(organisationColumns)
        .where('id', '=', id)
        .where('isActive', '=', true)
        .executeTakeFirst();
      return row && toOrganisation(row);
    },
  };
}

export type PublicOrganisationRow = NonNullable<
  Awaited<ReturnType<ReturnType<typeof createPublicOrganisationsRepo>['publicOrganisationBySlug']>>
>;
