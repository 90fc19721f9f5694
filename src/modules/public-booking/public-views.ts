import { resolveSchedule } from '../../scheduling/resolve.js';
import type { OrganisationSchedule } from '../availability/service.js';
import type { PublicOrganisationRow } from '../organisations/public-repo.js';
import type { DryRunAnswer, SeriesDryRun, WouldBeReservation } from '../reservations/dry-run-schemas.js';
import type { PublicReservation, Reservation } from '../reservations/schemas.js';
import type { ResourceType } from '../resource-types/schemas.js';
import type { Resource } from '../resources/schemas.js';

/**
 * What anyone may see of an organisation, its types, resources and reservations: never
 * lanes, staff or other customers.
 */

export type { PublicOrganisationRow };

export const publicOrganisation = ({ id: _id, schedulePolicy: _policy, ...visible }: PublicOrganisationRow) =>
  visible;
export const scheduleOf = (org: PublicOrganisationRow): OrganisationSchedule => ({
  organisationId: org.id,
  timezone: org.timezone,
  schedulePolicy: org.schedulePolicy,
});

export function publicType(type: ResourceType, org: PublicOrganisationRow) {
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
    questions: type.questions,
    pricingEnabled: type.pricingEnabled,
    paymentRequired: type.paymentRequired,
    recurringEnabled: type.recurringEnabled,
    waitlistEnabled: type.waitlistEnabled,
    priceAmount: type.pricingEnabled ? type.priceAmount : null,
    priceCurrency: type.pricingEnabled ? type.priceCurrency : null,
    color: type.color,
    icon: type.icon,
  };
}

export const publicResource = (r: Resource) => ({
  id: r.id,
  resourceTypeId: r.resourceTypeId,
  name: r.name,
  description: r.description,
  capacity: r.capacity,
});

/** What a public booker sees of a reservation, or of a dry run's would-be record (id null). */
export const toPublicReservation = <R extends Reservation | WouldBeReservation>(
  r: R,
): Omit<PublicReservation, 'id' | 'reference'> & Pick<R, 'id' | 'reference'> => ({
  id: r.id,
  reference: r.reference,
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

/** A dry run's verdict as a public booker sees it. */
export const publicDryRun = (answer: DryRunAnswer<WouldBeReservation>): PublicDryRun =>
  answer.wouldSucceed ? { ...answer, reservation: toPublicReservation(answer.reservation) } : answer;

export type PublicOrganisation = ReturnType<typeof publicOrganisation>;
export type PublicResourceType = ReturnType<typeof publicType>;
export type PublicResource = ReturnType<typeof publicResource>;
/** A dry run's would-be reservation as a public booker sees it (id null). */
export type PublicWouldBeReservation = ReturnType<typeof toPublicReservation<WouldBeReservation>>;
export type PublicDryRun = DryRunAnswer<PublicWouldBeReservation>;
export type PublicSeriesDryRun =
  | { wouldSucceed: true; seriesId: null; reservations: PublicWouldBeReservation[] }
  | Extract<SeriesDryRun, { wouldSucceed: false }>;

/** An organisation's booking page: what it offers. */
export interface PublicCatalogue {
  organisation: PublicOrganisation;
  resourceTypes: PublicResourceType[];
  resources: PublicResource[];
}

/** A resource's own booking page (its public token). */
export interface PublicResourcePage {
  organisation: PublicOrganisation;
  resourceType: PublicResourceType;
  resource: PublicResource;
}
