import type { Config } from '../../config.js';
import { type Db, onPrimary } from '../../db/database.js';
import { notFound } from '../../lib/errors.js';
import type { AvailabilityService } from '../availability/service.js';
import type { OrganisationsService } from '../organisations/service.js';
import type { PaymentsService } from '../payments/service.js';
import { manageUrlOf, newManageLink } from '../reservations/manage-link.js';
import type { Reservation } from '../reservations/schemas.js';
import type { ReservationsService } from '../reservations/service.js';
import type { ResourceTypesService } from '../resource-types/service.js';
import type { ResourcesService } from '../resources/service.js';
import type { WaitlistService } from '../waitlist/service.js';
import { type PublicOrganisationRow, toPublicReservation } from './public-views.js';
import type { createPublicBookingReads } from './repo.js';
import type { BookedPublicReservation } from './schemas.js';

export type PublicBookingRepo = ReturnType<typeof createPublicBookingReads>;

export interface PublicBookingDeps {
  db: Db;
  config: Pick<Config, 'frontendUrl' | 'publicHoldIpMax' | 'jwtSecret' | 'encryptionKey'>;
  availability: AvailabilityService;
  reservations: ReservationsService;
  resourceTypes: ResourceTypesService;
  resources: ResourcesService;
  organisations: OrganisationsService;
  waitlist: WaitlistService;
  payments: Pick<PaymentsService, 'takesPayments'>;
}

/** What every public use case shares: the dependencies, the repo and the key of client addresses. */
export interface PublicBookingContext extends PublicBookingDeps {
  repo: PublicBookingRepo;
  /** Keys the hash of a hold's client address: a bare hash of an IPv4 address is undone in seconds. */
  clientKey: string;
}

export type NewLink = ReturnType<typeof newManageLink>;

/**
 * A new customer manage link: the token goes out in the booking's answer, once, and in its
 * mails; its SHA-256 finds it (a 256-bit random token needs no slow hash) and it is stored
 * only sealed with ENCRYPTION_KEY, so a leaked table opens nothing.
 */
export const newLink = ({ config }: PublicBookingContext): NewLink => newManageLink(config.encryptionKey);

export const withManageLink = (
  { config }: PublicBookingContext,
  booked: Reservation,
  link: NewLink,
): BookedPublicReservation => ({
  ...toPublicReservation(booked),
  manageToken: link.token,
  manageUrl: manageUrlOf(config.frontendUrl, link.token),
});

// What a page opens (an organisation by its slug, a resource or type on it) is read on the primary
// (onPrimary): an archived organisation or a deactivated resource stops at once, with a read replica too.

/** The active organisation a booking page's slug names; 404 otherwise. */
export function organisationOrThrow({ repo }: PublicBookingContext, slug: string) {
  return onPrimary(async () => {
    const org = await repo.organisationBySlug(slug);
    if (!org) throw notFound('Organisation');
    return org;
  });
}

/** The resource or type must be publicly bookable in this organisation. */
export function checkVisible(
  { db, resources, resourceTypes }: PublicBookingContext,
  org: PublicOrganisationRow,
  target: { resourceId?: number; resourceTypeId?: number },
): Promise<void> {
  return onPrimary(async () => {
    if (target.resourceId !== undefined) {
      const row = await resources.findInOrganisation(org.id, target.resourceId);
      if (!row || row.isCapacityChild || !row.isActive) throw notFound('Resource');
      const type = await resourceTypes.findStored(db.kysely, org.id, row.resourceTypeId);
      if (!type?.isActive) throw notFound('Resource');
    } else if (target.resourceTypeId !== undefined) {
      const type = await resourceTypes.findStored(db.kysely, org.id, target.resourceTypeId);
      if (!type?.isActive) throw notFound('Resource type');
    }
  });
}
