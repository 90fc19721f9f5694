import { onPrimary } from '../../db/database.js';
import { notFound } from '../../lib/errors.js';
import type { RangeQuery, ResourceAvailability } from '../availability/schemas.js';
import type { ReservationInput } from '../reservations/schemas.js';
import { newLink, type PublicBookingContext, withManageLink } from './context.js';
import {
  type PublicDryRun,
  type PublicResourcePage,
  publicDryRun,
  publicOrganisation,
  publicResource,
  publicType,
  scheduleOf,
} from './public-views.js';
import type { BookedPublicReservation } from './schemas.js';

/** A resource's own booking page, by its public token (the legacy way to book). */

/**
 * The active resource a token names, its type and organisation; 404 when any is not public.
 * Read on the primary: a replaced token or a deactivated resource stops at once, with a read replica too.
 */
function tokenTarget({ db, repo, resources, resourceTypes }: PublicBookingContext, token: string) {
  return onPrimary(async () => {
    const found = await repo.resourceByToken(token);
    if (!found) throw notFound('Resource');
    const resource = (await resources.findInOrganisation(found.organisation.id, found.resourceId))!;
    const type = await resourceTypes.findStored(db.kysely, found.organisation.id, resource.resourceTypeId);
    if (!type?.isActive) throw notFound('Resource');
    return { org: found.organisation, resource, type };
  });
}

export async function resourcePage(
  context: PublicBookingContext,
  token: string,
): Promise<PublicResourcePage> {
  const { org, resource, type } = await tokenTarget(context, token);
  return {
    organisation: publicOrganisation(org),
    resourceType: publicType(type, org),
    resource: publicResource(resource),
  };
}

export async function tokenAvailability(
  context: PublicBookingContext,
  token: string,
  query: RangeQuery,
): Promise<ResourceAvailability> {
  const { org, resource } = await tokenTarget(context, token);
  return context.availability.forResource(scheduleOf(org), resource.id, query);
}

export async function bookByToken(
  context: PublicBookingContext,
  token: string,
  input: Omit<ReservationInput, 'resourceId' | 'resourceTypeId'>,
): Promise<BookedPublicReservation> {
  const { org, resource } = await tokenTarget(context, token);
  const link = newLink(context);
  const booked = await context.reservations.book(
    scheduleOf(org),
    { ...input, resourceId: resource.id },
    {
      source: 'public_token',
      createdByUserId: null,
      resourceFixedByToken: true,
      manageLink: link,
    },
  );
  return withManageLink(context, booked, link);
}

export async function dryRunBookByToken(
  context: PublicBookingContext,
  token: string,
  input: Omit<ReservationInput, 'resourceId' | 'resourceTypeId'>,
): Promise<PublicDryRun> {
  const { reservations } = context;
  const { org, resource } = await tokenTarget(context, token);
  const channel = { source: 'public_token' as const, createdByUserId: null, resourceFixedByToken: true };
  return publicDryRun(
    await reservations.dryRunOf(() =>
      reservations.book(scheduleOf(org), { ...input, resourceId: resource.id }, channel, undefined, {
        dryRun: true,
      }),
    ),
  );
}
