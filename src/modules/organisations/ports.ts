import type { Executor } from '../../db/database.js';
import { embedOriginsOf } from './embed-origins.js';

/**
 * Read ports: what other modules may read of the organisation tables, as query fragments they
 * compose into their own statements (so a read stays one statement and the tables stay here).
 */

/** An invitation by its id: whom it is for (an address or an account), who sent it, until when. */
export function invitationById(db: Executor, invitationId: number) {
  return db
    .selectFrom('organisationInvitations')
    .select([
      'organisationInvitations.id',
      'organisationInvitations.email',
      'organisationInvitations.userId',
      'organisationInvitations.invitedById',
      'organisationInvitations.expiresAt',
    ])
    .where('organisationInvitations.id', '=', invitationId);
}

/** The user ids of an organisation's owners. */
export function organisationOwnerIds(db: Executor, organisationId: number) {
  return db
    .selectFrom('organisationMemberships')
    .select('organisationMemberships.userId')
    .where('organisationMemberships.organisationId', '=', organisationId)
    .where('organisationMemberships.role', '=', 'OWNER');
}

/** The ids of the organisations `userId` is a member of. */
export function memberOrganisationIds(db: Executor, userId: number) {
  return db
    .selectFrom('organisationMemberships')
    .select('organisationMemberships.organisationId')
    .where('organisationMemberships.userId', '=', userId);
}

/**
 * The origins that may frame the booking page of the active organisation with public slug
 * `slug` (its `frame-ancestors`); none for an unknown slug or an archived organisation. Read on
 * every page request: taking an origin off the list takes effect on the next load.
 */
export async function bookingPageEmbedOrigins(db: Executor, slug: string): Promise<string[]> {
  const row = await db
    .selectFrom('organisations')
    .select('organisations.embedOrigins')
    .where('organisations.slug', '=', slug)
    .where('organisations.isActive', '=', true)
    .executeTakeFirst();
  return embedOriginsOf(row?.embedOrigins);
}
