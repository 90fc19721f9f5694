import type { Db } from '../../db/database.js';
import { notFound } from '../../lib/errors.js';
import { resolveSchedule } from '../../scheduling/resolve.js';
import type { RangeQuery } from '../availability/schemas.js';
import type { AvailabilityService, OrganisationSchedule } from '../availability/service.js';
import type { HoldInput, PublicReservation, Reservation, ReservationInput } from '../reservations/schemas.js';
import type { ReservationsService } from '../reservations/service.js';
import type { ResourceType } from '../resource-types/schemas.js';
import type { ResourceTypesService } from '../resource-types/service.js';
import type { Resource } from '../resources/schemas.js';
import type { ResourcesService } from '../resources/service.js';
import { createPublicBookingRepo } from './repo.js';

type PublicOrganisationRow = NonNullable<
  Awaited<ReturnType<ReturnType<typeof createPublicBookingRepo>['organisationBySlug']>>
>;

const publicOrganisation = ({ id: _id, schedulePolicy: _policy, ...visible }: PublicOrganisationRow) =>
  visible;
const scheduleOf = (org: PublicOrganisationRow): OrganisationSchedule => ({
  organisationId: org.id,
  timezone: org.timezone,
  schedulePolicy: org.schedulePolicy,
});

function publicType(type: ResourceType, org: PublicOrganisationRow) {
  const mode = resolveSchedule({
    organisation: org.schedulePolicy,
    resourceType: type.schedulePolicy,
    resource: null,
  });
  return {
    id: type.id,
    name: type.name,
    description: type.description,
    bookingMode: type.bookingMode,
    availabilityMode: mode.availabilityMode,
    minBookingDuration: type.minBookingDuration,
    customerInfoFields: type.customerInfoFields,
    pricingEnabled: type.pricingEnabled,
    paymentRequired: type.paymentRequired,
    priceAmount: type.pricingEnabled ? type.priceAmount : null,
    priceCurrency: type.pricingEnabled ? type.priceCurrency : null,
    color: type.color,
    icon: type.icon,
  };
}

const publicResource = (r: Resource) => ({
  id: r.id,
  resourceTypeId: r.resourceTypeId,
  name: r.name,
  description: r.description,
  capacity: r.capacity,
});

const toPublicReservation = (r: Reservation): PublicReservation => ({
  id: r.id,
  resourceTypeId: r.resourceTypeId,
  status: r.status,
  startTime: r.startTime,
  endTime: r.endTime,
  customer: r.customer,
  priceAmount: r.priceAmount,
  priceCurrency: r.priceCurrency,
  expiresAt: r.expiresAt,
  seriesId: r.seriesId,
  payment: r.payment,
});

export type PublicBookingService = ReturnType<typeof createPublicBookingService>;

/**
 * Booking pages for anyone: by organisation slug (current) or by a resource's
 * public token (legacy). Only active organisations, types and resources show;
 * lanes, managers, members and other customers never do.
 */
export function createPublicBookingService(deps: {
  db: Db;
  availability: AvailabilityService;
  reservations: ReservationsService;
  resourceTypes: ResourceTypesService;
  resources: ResourcesService;
}) {
  const { db, availability, reservations, resourceTypes, resources } = deps;
  const repo = createPublicBookingRepo(db.kysely);

  async function organisationOrThrow(slug: string) {
    const org = await repo.organisationBySlug(slug);
    if (!org) throw notFound('Organisation');
    return org;
  }

  async function tokenTarget(token: string) {
    const found = await repo.resourceByToken(token);
    if (!found) throw notFound('Resource');
    const resource = (await resources.findInOrganisation(found.organisation.id, found.resourceId))!;
    const type = await resourceTypes.findStored(db.kysely, found.organisation.id, resource.resourceTypeId);
    if (!type?.isActive) throw notFound('Resource');
    return { org: found.organisation, resource, type };
  }

  /** The resource or type must be publicly bookable in this organisation. */
  async function checkVisible(
    org: PublicOrganisationRow,
    target: { resourceId?: number; resourceTypeId?: number },
  ) {
    if (target.resourceId !== undefined) {
      const row = await resources.findInOrganisation(org.id, target.resourceId);
      if (!row || row.isCapacityChild || !row.isActive) throw notFound('Resource');
      const type = await resourceTypes.findStored(db.kysely, org.id, row.resourceTypeId);
      if (!type?.isActive) throw notFound('Resource');
    } else if (target.resourceTypeId !== undefined) {
      const type = await resourceTypes.findStored(db.kysely, org.id, target.resourceTypeId);
      if (!type?.isActive) throw notFound('Resource type');
    }
  }

  return {
    async catalogue(slug: string) {
      const org = await organisationOrThrow(slug);
      const [allTypes, allResources] = await Promise.all([
        resourceTypes.listInOrganisation(org.id),
        resources.listInOrganisation(org.id),
      ]);
      const activeTypes = allTypes.filter((t) => t.isActive);
      const bookableTypeIds = new Set(activeTypes.map((t) => t.id));
      return {
        organisation: publicOrganisation(org),
        resourceTypes: activeTypes.map((t) => publicType(t, org)),
        resources: allResources
          .filter((r) => !r.isCapacityChild && r.isActive && bookableTypeIds.has(r.resourceTypeId))
          .map(publicResource),
      };
    },

    async slugAvailability(
      slug: string,
      query: RangeQuery & { resourceId?: number; resourceTypeId?: number },
    ) {
      const org = await organisationOrThrow(slug);
      await checkVisible(org, query);
      const range = { from: query.from, to: query.to };
      return query.resourceId !== undefined
        ? availability.forResource(scheduleOf(org), query.resourceId, range)
        : availability.forType(scheduleOf(org), query.resourceTypeId!, range);
    },

    async bookBySlug(slug: string, input: ReservationInput) {
      const org = await organisationOrThrow(slug);
      await checkVisible(org, input);
      const booked = await reservations.book(scheduleOf(org), input, {
        source: 'public_slug',
        createdByUserId: null,
      });
      return toPublicReservation(booked);
    },

    /** A hold through the organisation page: the time is kept for `holdSeconds`. */
    async holdBySlug(slug: string, input: HoldInput) {
      const org = await organisationOrThrow(slug);
      await checkVisible(org, input);
      const { holdSeconds, ...booking } = input;
      const held = await reservations.book(
        scheduleOf(org),
        booking,
        { source: 'public_slug', createdByUserId: null },
        { seconds: holdSeconds },
      );
      return toPublicReservation(held);
    },

    async resourcePage(token: string) {
      const { org, resource, type } = await tokenTarget(token);
      return {
        organisation: publicOrganisation(org),
        resourceType: publicType(type, org),
        resource: publicResource(resource),
      };
    },

    async tokenAvailability(token: string, query: RangeQuery) {
      const { org, resource } = await tokenTarget(token);
      return availability.forResource(scheduleOf(org), resource.id, query);
    },

    async bookByToken(token: string, input: Omit<ReservationInput, 'resourceId' | 'resourceTypeId'>) {
      const { org, resource } = await tokenTarget(token);
      const booked = await reservations.book(
        scheduleOf(org),
        { ...input, resourceId: resource.id },
        { source: 'public_token', createdByUserId: null, resourceFixedByToken: true },
      );
      return toPublicReservation(booked);
    },
  };
}
