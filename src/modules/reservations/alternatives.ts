import type { Db } from '../../db/database.js';
import { type Alternative, DomainError, withAlternatives } from '../../lib/errors.js';
import { nowIso } from '../../lib/time.js';
import type { AvailabilityService, IgnoredTime, OrganisationSchedule } from '../availability/service.js';
import type { ResourceTypesService } from '../resource-types/service.js';
import type { createReservationRepo } from './repo.js';
import { underDailyLimit } from './rules.js';

/** The refusals of a booking, hold or reschedule that offer other times. */
const OFFERING = new Set(['SLOT_UNAVAILABLE', 'BOOKING_RULE_VIOLATED']);
/** A rule no other time can satisfy: the notice of a reschedule counts from the current start. */
const UNMOVABLE_RULE = 'rescheduleNoticeMinutes';
/** The customer's reservations counted for the daily limit: the alternatives' range and a day more each way. */
const COUNTED_MS = 15 * 86_400_000;

/** A refused write as alternatives are computed for it. */
export interface RefusedWrite {
  org: OrganisationSchedule;
  resourceTypeId: number;
  /** The resource asked for (also the one alternatives name); undefined for the type's pool. */
  resourceId?: number | undefined;
  start: number;
  end: number;
  customerEmail: string;
  /** A reservation being moved: its time blocks nothing and it counts for no day. */
  moving?: { id: number; time: IgnoredTime } | undefined;
}

/**
 * Alternatives on refusals: what a refused write offers instead, computed by the
 * availability engine and filtered by the customer's daily limit.
 */
export function createAlternatives(deps: {
  db: Db;
  repo: ReturnType<typeof createReservationRepo>;
  availability: AvailabilityService;
  resourceTypes: ResourceTypesService;
}) {
  const { db, repo, availability, resourceTypes } = deps;
  const iso = (ms: number) => new Date(ms).toISOString();

  async function near(write: RefusedWrite): Promise<Alternative[]> {
    const { org } = write;
    const type = await resourceTypes.findStored(db.kysely, org.organisationId, write.resourceTypeId);
    if (!type) return [];
    const accept =
      type.bookingRules?.maxPerCustomerPerDay === undefined
        ? undefined
        : underDailyLimit(
            type.bookingRules,
            org.timezone,
            await repo.customerStarts(db.kysely, {
              organisationId: org.organisationId,
              resourceTypeId: type.id,
              customerEmail: write.customerEmail,
              from: iso(write.start - COUNTED_MS),
              to: iso(write.start + COUNTED_MS),
              now: nowIso(),
              excludeId: write.moving?.id,
            }),
          );
    const target = write.resourceId !== undefined ? { resourceId: write.resourceId } : {};
    const found = await availability.alternatives(
      org,
      type,
      target,
      { start: write.start, end: write.end },
      { ignore: write.moving?.time, accept },
    );
    return found.map((time) => ({
      startTime: iso(time.start),
      endTime: iso(time.end),
      resourceId: write.resourceId ?? null,
    }));
  }

  return {
    /**
     * What a refused write throws: a slot or rule refusal with the times it offers instead
     * (none when a broken rule follows the reservation to any time); anything else as it was.
     */
    async offeredWith(error: unknown, write: RefusedWrite): Promise<unknown> {
      if (!(error instanceof DomainError) || !OFFERING.has(error.code) || error.alternatives) return error;
      const unmovable = error.details?.some((detail) => 'rule' in detail && detail.rule === UNMOVABLE_RULE);
      return withAlternatives(error, unmovable ? [] : await near(write));
    },
  };
}
