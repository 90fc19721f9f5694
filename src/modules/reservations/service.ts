import { type Db, type Executor, inTransaction } from '../../db/database.js';
import { InvalidCursorError } from '../../db/keyset.js';
import type { ReservationSource } from '../../db/tables/resources.js';
import type { Actor } from '../../lib/actor.js';
import { conflict, forbidden, invalidField, notFound } from '../../lib/errors.js';
import { nowIso } from '../../lib/time.js';
import { can, ROLE_MATRIX } from '../../tenancy/roles.js';
import type { AvailabilityService, OrganisationSchedule } from '../availability/service.js';
import type { OrganisationsService } from '../organisations/service.js';
import type { ResourceType } from '../resource-types/schemas.js';
import type { ResourceTypesService } from '../resource-types/service.js';
import type { ResourcesService } from '../resources/service.js';
import { createReservationRepo } from './repo.js';
import type { Customer, ListReservationsQuery, Reservation, ReservationInput } from './schemas.js';

/** Longest reservation accepted. */
const MAX_RESERVATION_MS = 31 * 86_400_000;
/**
 * Reads a booking makes at most: each after every lane it found free was refused (taken
 * or changed by a concurrent request). A second read rarely finds a lane the first
 * missed; a third means the type's lanes are changing under it.
 */
const BOOKING_READS = 3;

/** Who books: a member through the API or MCP, or a public booker through a slug or token link. */
export interface BookingChannel {
  source: ReservationSource;
  createdByUserId: number | null;
  /** A public token names one resource: it is booked even when its type books from a pool. */
  resourceFixedByToken?: boolean;
}

/** The customer must answer exactly the type's customerInfoFields beyond name, email and phone. */
function checkCustomer(customer: Customer, type: ResourceType) {
  const asked = new Set(type.customerInfoFields);
  const extra = Object.keys(customer).filter(
    (key) => !['name', 'email', 'phone'].includes(key) && !asked.has(key),
  );
  if (extra.length > 0) throw invalidField('customer', `unknown field(s): ${extra.join(', ')}`);
  const missing = type.customerInfoFields.filter((key) => !Object.hasOwn(customer, key) || !customer[key]);
  if (missing.length > 0)
    throw invalidField('customer', `missing field(s) this resource type asks for: ${missing.join(', ')}`);
}

export type ReservationsService = ReturnType<typeof createReservationsService>;

export function createReservationsService(deps: {
  db: Db;
  organisations: OrganisationsService;
  availability: AvailabilityService;
  resourceTypes: ResourceTypesService;
  resources: ResourcesService;
}) {
  const { db, organisations, availability, resourceTypes, resources } = deps;
  const repo = createReservationRepo(db.kysely, db.dialect);

  /**
   * How a booking's reads and its write hang together. SQLite: in one transaction, which
   * holds the only connection, so nothing commits in between. PostgreSQL: no transaction
   * and no lock across round trips; the insert itself refuses a lane whose time was taken
   * (the exclusion constraint) or whose row changed (the lane guard) since the reads.
   */
  const bookingScope = <T>(work: (executor: Executor) => Promise<T>): Promise<T> =>
    db.dialect === 'sqlite' ? inTransaction(db.kysely, work) : work(db.kysely);

  /**
   * Books exactly the requested time: the booking mode decides whether a concrete
   * resource is required, a lane is allocated from the pool, or either. Price,
   * currency and status come from the resource type only.
   */
  async function book(org: OrganisationSchedule, input: ReservationInput, channel: BookingChannel) {
    const start = Date.parse(input.startTime);
    const end = Date.parse(input.endTime);
    if (end <= start) throw invalidField('endTime', 'must be after startTime');
    if (end - start > MAX_RESERVATION_MS)
      throw invalidField('endTime', 'a reservation lasts at most 31 days');
    if (start <= Date.now()) throw invalidField('startTime', 'must be in the future');

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
    return bookingScope(async (executor) => {
      const type = await resourceTypes.findStored(executor, org.organisationId, typeId!);
      if (!type) throw invalidField('resourceTypeId', 'no such resource type');
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

      const target = input.resourceId !== undefined ? { resourceId: input.resourceId } : {};
      const minutes = Math.ceil((end - start) / 60_000);
      const values = {
        organisationId: org.organisationId,
        resourceTypeId: type.id,
        status: type.paymentRequired ? ('pending_payment' as const) : ('confirmed' as const),
        startTime: new Date(start).toISOString(),
        endTime: new Date(end).toISOString(),
        customer: input.customer,
        notes: input.notes ?? null,
        priceAmount: type.pricingEnabled ? type.priceAmount : null,
        priceCurrency: type.pricingEnabled ? type.priceCurrency : null,
        source: channel.source,
        createdByUserId: channel.createdByUserId,
      };
      let current = type;
      for (let read = 1; read <= BOOKING_READS; read++) {
        // A later read takes the type afresh: a concurrent booking may have raised its longest reservation.
        if (read > 1)
          current = (await resourceTypes.findStored(executor, org.organisationId, type.id)) ?? type;
        const offers = await availability.offerLanes(executor, org, current, target, { start, end });
        if (offers.length === 0) break;
        // Raised before the reservation is visible (its own statement on PostgreSQL), so
        // any read that can see the reservation looks back far enough to find it.
        if (minutes > current.longestReservationMinutes) {
          await resourceTypes.recordReservationLength(executor, type.id, minutes);
        }
        const now = nowIso();
        for (const offer of offers) {
          const booked = await repo.insertOnLane(
            executor,
            { ...values, resourceId: offer.laneId, blockedUntil: new Date(offer.blockedUntil).toISOString() },
            offer.laneUpdatedAt,
            now,
          );
          if (booked) return booked;
        }
      }
      throw conflict('SLOT_UNAVAILABLE', 'The requested time does not fit the availability of this resource');
    });
  }

  async function findOrThrow(organisationId: number, id: number) {
    const found = await repo.find(organisationId, id);
    if (!found) throw notFound('Reservation');
    return found;
  }

  return {
    book,

    /** Books for the actor; an agent's booking is recorded as made by its owner. */
    async create(actor: Actor, input: ReservationInput, source: ReservationSource = 'api') {
      const tenant = await organisations.requireTenant(actor, { can: 'book' });
      return book(tenant, input, { source, createdByUserId: actor.userId });
    },

    async list(actor: Actor, query: ListReservationsQuery) {
      const { organisationId } = await organisations.requireTenant(actor, { can: 'readReservations' });
      try {
        return await repo.list(organisationId, query);
      } catch (error) {
        if (error instanceof InvalidCursorError)
          throw invalidField('cursor', 'is not a cursor this list gave out');
        throw error;
      }
    },

    async get(actor: Actor, id: number): Promise<Reservation> {
      const { organisationId } = await organisations.requireTenant(actor, { can: 'readReservations' });
      return findOrThrow(organisationId, id);
    },

    /** Its creator, or a role with `cancelAnyReservation`. A cancelled reservation frees its time at once. */
    async cancel(actor: Actor, id: number): Promise<Reservation> {
      // Whoever may book may cancel their own booking.
      const { organisationId, role } = await organisations.requireTenant(actor, { can: 'book' });
      const found = await findOrThrow(organisationId, id);
      if (found.createdByUserId !== actor.userId && !can(role, 'cancelAnyReservation')) {
        throw forbidden(
          `Only ${ROLE_MATRIX.cancelAnyReservation.join(', ')} or the member who made a reservation can cancel it`,
        );
      }
      const cancelled = await repo.cancel(id, nowIso());
      if (!cancelled) throw conflict('CONFLICT', 'This reservation is already cancelled');
      return cancelled;
    },
  };
}
