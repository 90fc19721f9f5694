import type { Db, Executor } from '../../db/database.js';
import { KEEPING_STATUSES } from '../../db/reservation-time.js';
import { conflict, invalidField } from '../../lib/errors.js';
import { nowIso } from '../../lib/time.js';
import type { AvailabilityService, OrganisationSchedule } from '../availability/service.js';
import type { ResourceType } from '../resource-types/schemas.js';
import type { ResourceTypesService } from '../resource-types/service.js';
import type { ResourcesService } from '../resources/service.js';
import type { createAlternatives } from './alternatives.js';
import type { createReservationRepo } from './repo.js';
import { assertBookingRules, type CustomerDays } from './rules.js';
import type { RescheduleInput, Reservation, WouldBeReservation } from './schemas.js';
import { requestedTimes } from './times.js';

/** Reads a move makes at most, as a booking (see BOOKING_READS in service.ts). */
const MOVE_READS = 3;

const iso = (ms: number) => new Date(ms).toISOString();
/** A move whose reservation's type was deleted meanwhile. */
const typeGone = () => conflict('INVALID_TRANSITION', 'The resource type of this reservation is gone');
const keepsTime = (status: Reservation['status']) => (KEEPING_STATUSES as readonly string[]).includes(status);

/** A move as its caller asks it: the new time and, where the booking mode allows, the resource. */
export type MoveInput = Omit<RescheduleInput, 'overrideRules'>;

/**
 * Reschedule: a held, pending_payment or confirmed reservation moved to another time
 * (and lane) in one statement that keeps its id, status, expiry, payment and series. Its
 * own time does not block the move; a time that does not fit leaves it as it was.
 */
export function createRescheduling(deps: {
  db: Db;
  repo: ReturnType<typeof createReservationRepo>;
  availability: AvailabilityService;
  resources: ResourcesService;
  resourceTypes: ResourceTypesService;
  alternatives: ReturnType<typeof createAlternatives>;
  /** How a write's reads and its statement hang together (service.ts `bookingScope`). */
  bookingScope: <T>(work: (executor: Executor) => Promise<T>) => Promise<T>;
  customerDaysOf: (executor: Executor, org: OrganisationSchedule, resourceTypeId: number) => CustomerDays;
  /** Marks the lapsed holds of a lane `expired` (service.ts `expireLapsed`). */
  expireLapsed: (executor: Executor, now: string, scope: { laneId: number }) => Promise<unknown>;
}) {
  const { db, repo, availability, resources, resourceTypes, alternatives, bookingScope } = deps;

  /**
   * Where the reservation may go: `resourceId` when the booking mode takes one; else the
   * pool of a POOL type (unless a public token fixed its resource), else the resource it is on.
   */
  async function targetOf(
    org: OrganisationSchedule,
    found: Reservation,
    type: ResourceType,
    resourceId: number | undefined,
  ): Promise<{ resourceId?: number }> {
    if (resourceId !== undefined) {
      if (type.bookingMode === 'POOL')
        throw invalidField('resourceId', 'is not accepted: this resource type books from its pool (POOL)');
      const resource = await resources.findInOrganisation(org.organisationId, resourceId);
      if (!resource || resource.isCapacityChild || resource.resourceTypeId !== type.id) {
        throw invalidField(
          'resourceId',
          "no such bookable resource of the reservation's resource type (capacity lanes are booked through their parent)",
        );
      }
      return { resourceId };
    }
    if (type.bookingMode === 'POOL' && found.source !== 'public_token') return {};
    const lane =
      found.resourceId === null
        ? undefined
        : await resources.findInOrganisation(org.organisationId, found.resourceId);
    if (!lane) throw invalidField('resourceId', 'is required: the resource this reservation was on is gone');
    return { resourceId: lane.parentResourceId ?? lane.id };
  }

  /** Moves `found` (read just now) or, in a dry run, answers the record the move would leave. */
  async function move(
    org: OrganisationSchedule,
    found: Reservation,
    input: MoveInput,
    overriding: number | null,
    dryRun: boolean,
  ): Promise<Reservation | WouldBeReservation> {
    const { start, end } = requestedTimes(input);
    if (!keepsTime(found.status) || found.resourceTypeId === null || found.resourceId === null) {
      throw conflict(
        'INVALID_TRANSITION',
        `A ${found.status} reservation cannot be rescheduled: only a held, pending_payment or confirmed one can`,
      );
    }
    const typeId = found.resourceTypeId;
    const from = { resourceId: found.resourceId, startTime: found.startTime, endTime: found.endTime };
    const ignore = {
      laneId: from.resourceId,
      start: Date.parse(from.startTime),
      end: Date.parse(from.endTime),
    };
    const known = await resourceTypes.findStored(db.kysely, org.organisationId, typeId);
    if (!known) throw typeGone();
    const target = await targetOf(org, found, known, input.resourceId);
    try {
      return await bookingScope(async (executor) => {
        // The type and what is taken on its lanes, in one read.
        const first = await availability.readLanes(executor, org, typeId, { start, end });
        if (!first) throw typeGone();
        const type = first.type;
        if (!type.isActive) throw conflict('SLOT_UNAVAILABLE', 'This resource type is not bookable');
        const email = found.customer.email ?? '';
        // As a booking: a type with a daily limit per customer moves one customer's bookings at a time.
        const serialised = type.bookingRules?.maxPerCustomerPerDay !== undefined;
        const scope = <T>(work: (executor: Executor) => Promise<T>) =>
          serialised ? repo.oneCustomerAtATime(executor, type.id, email, work) : work(executor);
        return scope(async (executor) => {
          const rulesOverriddenByUserId = await assertBookingRules(
            {
              action: 'reschedule',
              reservationId: found.id,
              currentStart: ignore.start,
              start,
              end,
              customerEmail: email,
            },
            type.bookingRules,
            { customerDays: deps.customerDaysOf(executor, org, type.id), overrideBy: overriding },
          );
          const minutes = Math.ceil((end - start) / 60_000);
          const to = { startTime: iso(start), endTime: iso(end) };
          let read = first;
          for (let attempt = 1; attempt <= MOVE_READS; attempt++) {
            if (attempt > 1)
              read = (await availability.readLanes(executor, org, type.id, { start, end })) ?? read;
            const offers = await availability.offerLanes(executor, org, read, target, { start, end }, ignore);
            if (offers.length === 0) break;
            // Its own lane first: a move that fits where it is keeps its place.
            offers.sort(
              (a, b) => Number(b.laneId === from.resourceId) - Number(a.laneId === from.resourceId),
            );
            const now = nowIso();
            if (dryRun) {
              return {
                ...found,
                ...to,
                id: null,
                resourceId: offers[0]!.laneId,
                updatedAt: now,
                rulesOverriddenByUserId: rulesOverriddenByUserId ?? found.rulesOverriddenByUserId,
              };
            }
            // Raised before the move is visible, as a booking raises it (see book()).
            if (minutes > read.type.longestReservationMinutes)
              await resourceTypes.recordReservationLength(executor, type.id, minutes);
            for (const offer of offers) {
              if (offer.hasLapsedHolds) await deps.expireLapsed(executor, now, { laneId: offer.laneId });
              const moved = await repo.moveOnLane(
                executor,
                {
                  id: found.id,
                  from,
                  to: { ...to, resourceId: offer.laneId, blockedUntil: iso(offer.blockedUntil) },
                  rulesOverriddenByUserId,
                },
                offer.laneUpdatedAt,
                now,
              );
              if (moved) return moved;
            }
            // Refused: the lanes changed, or the reservation did (cancelled, lapsed, moved meanwhile).
            const fresh = await repo.findThrough(executor, org.organisationId, found.id);
            if (!fresh || !keepsTime(fresh.status))
              throw conflict(
                'INVALID_TRANSITION',
                `A ${fresh?.status ?? 'cancelled'} reservation cannot be rescheduled`,
              );
            if (
              fresh.startTime !== from.startTime ||
              fresh.endTime !== from.endTime ||
              fresh.resourceId !== from.resourceId
            )
              throw conflict(
                'CONFLICT',
                'This reservation was moved meanwhile; read it again before moving it',
              );
          }
          throw conflict(
            'SLOT_UNAVAILABLE',
            'The requested time does not fit the availability of this resource; the reservation keeps its time',
          );
        });
      });
    } catch (error) {
      throw await alternatives.offeredWith(error, {
        org,
        resourceTypeId: typeId,
        resourceId: target.resourceId,
        start,
        end,
        customerEmail: found.customer.email ?? '',
        moving: { id: found.id, time: ignore },
      });
    }
  }

  return { move };
}
