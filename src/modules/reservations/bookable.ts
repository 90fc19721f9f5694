import type { Executor } from '../../db/database.js';
import { conflict, invalidField, invalidFields } from '../../lib/errors.js';
import type { OrganisationSchedule } from '../availability/service.js';
import type { ResourceType } from '../resource-types/schemas.js';
import type { StoredResourceType } from '../resource-types/service.js';
import { answerIssues } from './answers.js';
import type { ReservationsContext } from './context.js';
import { BUILT_IN_CUSTOMER_FIELDS, type Customer } from './customer-schemas.js';
import type { StoredManageLink } from './manage-link.js';
import type { NewReservation } from './repo.js';
import type { ReservationInput } from './schemas.js';
import type { ReservationSource } from './tables.js';

/** Who books: a member through the API or MCP, or a public booker through a slug or token link. */
export interface BookingChannel {
  source: ReservationSource;
  createdByUserId: number | null;
  /** A public token names one resource: it is booked even when its type books from a pool. */
  resourceFixedByToken?: boolean;
  /** The staff member overriding the type's booking rules (see rules.ts `overrideBy`); never on public channels. */
  overrideRulesBy?: number | null;
  /**
   * The customer's link to this one reservation (a public booking's, shown once; a waitlist
   * offer's, its entry's). Without one, a booking mints its own, which only its mails carry.
   */
  manageLink?: StoredManageLink | null;
  /** A public series: the manage link of its occurrence `n` (from 0), each its own. */
  manageLinkOf?: (n: number) => StoredManageLink;
  /** A public hold's client address, as a keyed hash: what the per-IP hold limit counts. */
  publicClientHash?: string;
}

/** A booking of a type the organisation does not have. */
export const noSuchType = () => invalidField('resourceTypeId', 'no such resource type');

/**
 * The customer must answer exactly the type's customerInfoFields beyond name, email and phone,
 * and its questions in `answers` as answers.ts checks them. A type listing `phone` leaves it
 * optional, as the booking page marks it.
 */
function checkCustomer(customer: Customer, type: ResourceType) {
  const asked = new Set(type.customerInfoFields);
  const extra = Object.keys(customer).filter((key) => !BUILT_IN_CUSTOMER_FIELDS.has(key) && !asked.has(key));
  if (extra.length > 0) throw invalidField('customer', `unknown field(s): ${extra.join(', ')}`);
  const missing = type.customerInfoFields
    .filter((key) => !BUILT_IN_CUSTOMER_FIELDS.has(key) && !customer[key])
    .map((key) => ({ path: `customer.${key}`, message: 'is required by this resource type' }));
  const issues = [...missing, ...answerIssues(customer.answers, type.questions)];
  if (issues.length > 0) throw invalidFields(issues);
}

/** The type a booking names: its resourceTypeId, or the type of its resourceId (400 when there is no such resource). */
export async function typeIdOf(
  { resources }: Pick<ReservationsContext, 'resources'>,
  org: OrganisationSchedule,
  input: ReservationInput,
): Promise<number> {
  let typeId = input.resourceTypeId;
  if (input.resourceId !== undefined) {
    const resource = await resources.findInOrganisation(org.organisationId, input.resourceId);
    if (!resource || resource.isCapacityChild) {
      throw invalidField(
        'resourceId',
        'no such bookable resource (capacity lanes are booked through their parent)',
      );
    }
    if (typeId !== undefined && typeId !== resource.resourceTypeId) {
      throw invalidField('resourceTypeId', 'does not match the type of resourceId');
    }
    typeId = resource.resourceTypeId;
  }
  return typeId!;
}

/**
 * The type a booking books, read through `executor` and checked against the booking: its
 * mode takes the target given, it is active, and the customer answers its fields.
 */
export async function bookableType(
  { resourceTypes }: Pick<ReservationsContext, 'resourceTypes'>,
  executor: Executor,
  org: OrganisationSchedule,
  input: ReservationInput,
  channel: BookingChannel,
) {
  const type = await resourceTypes.findStored(executor, org.organisationId, input.resourceTypeId!);
  if (!type) throw noSuchType();
  return checkBookable(type, input, channel);
}

/** `type` as read for a booking, checked against it as `bookableType` says. */
export function checkBookable(type: StoredResourceType, input: ReservationInput, channel: BookingChannel) {
  if (type.bookingMode === 'SINGLE_RESOURCE' && input.resourceId === undefined) {
    throw invalidField(
      'resourceId',
      'is required: this resource type books a concrete resource (SINGLE_RESOURCE)',
    );
  }
  if (type.bookingMode === 'POOL' && input.resourceId !== undefined && !channel.resourceFixedByToken) {
    throw invalidField(
      'resourceId',
      'is not accepted: this resource type books from its pool (POOL); send resourceTypeId',
    );
  }
  if (!type.isActive) throw conflict('SLOT_UNAVAILABLE', 'This resource type is not bookable');
  checkCustomer(input.customer, type);
  return type;
}

/** What a booking of `type` records beside its time and lane: the customer, the type's price, the channel, who overrode the rules. */
export function bookingDetails(
  input: ReservationInput,
  type: StoredResourceType,
  channel: BookingChannel,
  rulesOverriddenByUserId: number | null,
): Pick<
  NewReservation,
  | 'customer'
  | 'notes'
  | 'priceAmount'
  | 'priceCurrency'
  | 'source'
  | 'createdByUserId'
  | 'rulesOverriddenByUserId'
> {
  return {
    customer: input.customer,
    notes: input.notes ?? null,
    priceAmount: type.pricingEnabled ? type.priceAmount : null,
    priceCurrency: type.pricingEnabled ? type.priceCurrency : null,
    source: channel.source,
    createdByUserId: channel.createdByUserId,
    rulesOverriddenByUserId,
  };
}
