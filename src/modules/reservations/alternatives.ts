import type { Db } from '../../db/database.js';
import { type Alternative, DomainError, withAlternatives, withDetails } from '../../lib/errors.js';
import { nowIso } from '../../lib/time.js';
import type { Interval } from '../availability/engine.js';
import type { AvailabilityService, IgnoredTime, OrganisationSchedule } from '../availability/service.js';
import type { StoredResourceType } from '../resource-types/repo.js';
import type { ResourceTypesService } from '../resource-types/service.js';
import type { createReservationRepo } from './repo.js';
import { bookingRuleViolations, type CustomerDays, underDailyLimit } from './rules.js';

/** The refusals of a booking, hold or reschedule that offer other times. */
const OFFERING = new Set(['SLOT_UNAVAILABLE', 'BOOKING_RULE_VIOLATED']);
/** A rule no other time can satisfy: the notice of a reschedule counts from the current start. */
const UNMOVABLE_RULE = 'rescheduleNoticeMinutes';
/** The customer's reservations counted for the daily limit: the alternatives' range and a day more each way. */
const COUNTED_MS = 15 * 86_400_000;
/** How long an offered time stays bookable at least (the notice moves on with the clock): time to choose. */
const STABLE_MS = 5 * 60_000;

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
 * Alternatives on refusals: what a refused write offers instead. The availability engine
 * finds the nearest free times; each is then judged by the checks a booking makes (the
 * booking rules, from now until STABLE_MS later, and the lanes a booking would try), and
 * names the resource a booking of it gets.
 */
export function createAlternatives(deps: {
  db: Db;
  repo: ReturnType<typeof createReservationRepo>;
  availability: AvailabilityService;
  resourceTypes: ResourceTypesService;
}) {
  const { db, repo, availability, resourceTypes } = deps;
  const iso = (ms: number) => new Date(ms).toISOString();

  /** The customer's reservations of the type keeping their time near the write (the one moved left out). */
  async function customerStarts(write: RefusedWrite, type: StoredResourceType): Promise<number[]> {
    if (type.bookingRules?.maxPerCustomerPerDay === undefined) return [];
    const starts = await repo.customerStarts(db.kysely, {
      organisationId: write.org.organisationId,
      resourceTypeId: type.id,
      customerEmail: write.customerEmail,
      from: iso(write.start - COUNTED_MS),
      to: iso(write.start + COUNTED_MS),
      now: nowIso(),
      excludeId: write.moving?.id,
    });
    return starts.map((start) => Date.parse(start));
  }

  /**
   * The resource `time` is bookable on by the checks a booking makes: the type's rules (now,
   * and when the offer may still be taken) and the lanes a booking would try, in its order
   * (a capacity lane answers as its resource). Undefined when it is not bookable.
   */
  async function bookableOn(
    write: RefusedWrite,
    type: StoredResourceType,
    time: Interval,
    customerDays: CustomerDays,
  ): Promise<number | undefined> {
    const booking = { action: 'book' as const, ...time, customerEmail: write.customerEmail };
    const now = Date.now();
    for (const at of [now, now + STABLE_MS])
      if ((await bookingRuleViolations(booking, type.bookingRules, { customerDays, now: at })).length > 0)
        return undefined;
    const read = await availability.readLanes(db.kysely, write.org, type.id, time);
    if (!read) return undefined;
    const target = write.resourceId !== undefined ? { resourceId: write.resourceId } : {};
    const [offer] = await availability.offerLanes(
      db.kysely,
      write.org,
      read,
      target,
      time,
      write.moving?.time,
    );
    if (!offer) return undefined;
    return read.catalogue.find((row) => row.id === offer.laneId)?.parentResourceId ?? offer.laneId;
  }

  async function near(write: RefusedWrite): Promise<Alternative[]> {
    const { org } = write;
    const type = await resourceTypes.findStored(db.kysely, org.organisationId, write.resourceTypeId);
    if (!type) return [];
    const starts = await customerStarts(write, type);
    const customerDays: CustomerDays = {
      timezone: org.timezone,
      count: async (_email, day) => {
        const [from, to] = [Date.parse(day.from), Date.parse(day.to)];
        return starts.filter((start) => start >= from && start < to).length;
      },
    };
    const target = write.resourceId !== undefined ? { resourceId: write.resourceId } : {};
    const found = await availability.alternatives(
      org,
      type,
      target,
      { start: write.start, end: write.end },
      {
        ignore: write.moving?.time,
        accept: underDailyLimit(type.bookingRules, org.timezone, starts.map(iso)),
        stableForMs: STABLE_MS,
      },
    );
    const offered: Alternative[] = [];
    for (const time of found) {
      const resourceId = await bookableOn(write, type, time, customerDays);
      if (resourceId !== undefined)
        offered.push({ startTime: iso(time.start), endTime: iso(time.end), resourceId });
    }
    return offered;
  }

  /** A SLOT_UNAVAILABLE with the engine's reasons in its details (DECISIONS.md "Teams"): the explanation of the time. */
  async function explained(error: DomainError, write: RefusedWrite): Promise<DomainError> {
    if (error.code !== 'SLOT_UNAVAILABLE' || error.details) return error;
    const reasons = await availability.refusalReasons(
      write.org,
      { resourceTypeId: write.resourceTypeId, resourceId: write.resourceId },
      { start: write.start, end: write.end },
      write.moving?.id,
    );
    return reasons.length > 0 ? withDetails(error, reasons) : error;
  }

  return {
    /**
     * What a refused write throws: a slot or rule refusal with the times it offers instead
     * (none when a broken rule follows the reservation to any time), a slot refusal with why
     * the time does not fit; anything else as it was.
     */
    async offeredWith(error: unknown, write: RefusedWrite): Promise<unknown> {
      if (!(error instanceof DomainError) || !OFFERING.has(error.code) || error.alternatives) return error;
      const unmovable = error.details?.some((detail) => 'rule' in detail && detail.rule === UNMOVABLE_RULE);
      return withAlternatives(await explained(error, write), unmovable ? [] : await near(write));
    },
  };
}
