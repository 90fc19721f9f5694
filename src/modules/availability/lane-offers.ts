import type { Executor } from '../../db/database.js';
import { invalidInput } from '../../lib/errors.js';
import { candidatesOf, rulesOf } from './bookables.js';
import { type IgnoredTime, withManagerBusy, withoutIgnored } from './busy-time.js';
import type { AvailabilityContext, OrganisationSchedule } from './context.js';
import { dayOf, withDailyCaps } from './daily-caps.js';
import type { Interval } from './engine.js';
import { bufferOf, isClear, scheduleAdmits } from './fits.js';
import { type BookingRead, type CatalogueRow, createBookingReads } from './repo.js';
import { NO_SPANS } from './spans.js';

/** A lane a booking may take: the lane's row as it was judged, and until when the booking keeps it. */
export interface LaneOffer {
  laneId: number;
  laneUpdatedAt: string;
  /** The booking's end plus the buffer kept after it on this lane (epoch ms). */
  blockedUntil: number;
  /** A hold on the lane has lapsed but its row still says it holds: the booking marks it first. */
  hasLapsedHolds: boolean;
}

/** What a booking reads and the lanes it may take (the methods' doc comments are on `AvailabilityService`). */
export function createLaneOffers({ db }: AvailabilityContext) {
  const bookingReads = createBookingReads(db.kysely, db.dialect);
  return {
    readLanes(
      executor: Executor,
      org: OrganisationSchedule,
      resourceTypeId: number,
      request: Interval,
    ): Promise<BookingRead | undefined> {
      return bookingReads.lanes(
        executor,
        org.organisationId,
        resourceTypeId,
        request,
        new Date().toISOString(),
      );
    },

    async offerLanes(
      executor: Executor,
      org: OrganisationSchedule,
      read: BookingRead,
      target: { resourceId?: number },
      request: Interval,
      ignore?: IgnoredTime,
    ): Promise<LaneOffer[]> {
      const { type, catalogue: rows, busy, lapsed } = read;
      const rules = rulesOf(type);
      const around = { start: request.start - rules.bufferMs, end: request.end + rules.bufferMs };
      withoutIgnored(busy, ignore);
      let candidates = candidatesOf(rows, type, org, target);
      // The manager's busy time, in the booking's own executor: every write path books through here.
      await withManagerBusy(executor, db.dialect, rows, candidates, busy, around);
      await withDailyCaps(executor, rows, candidates, busy, { ...around, ...dayOf(org) }, ignore);
      if (target.resourceId !== undefined && candidates.length === 0)
        requireResource(rows, target.resourceId);
      // Opening hours (or slots) once per resource: its lanes share them.
      candidates = candidates.filter(
        (b) => scheduleAdmits(b.schedule, org.timezone, request, rules) === null,
      );
      if (candidates.length === 0) return [];
      const updatedAt = new Map(rows.map((row) => [row.id, row.updatedAt]));
      const offers: LaneOffer[] = [];
      for (const b of candidates) {
        const bufferMs = bufferOf(b.schedule.availabilityMode, rules);
        for (const laneId of b.laneIds) {
          if (isClear(busy.get(laneId) ?? NO_SPANS, request, bufferMs)) {
            offers.push({
              laneId,
              laneUpdatedAt: updatedAt.get(laneId)!,
              blockedUntil: request.end + bufferMs,
              hasLapsedHolds: lapsed.has(laneId),
            });
          }
        }
      }
      return offers;
    },
  };
}

/** Refuses a `resourceId` that is no resource of the type's rows (a capacity lane, or nothing). */
function requireResource(rows: readonly CatalogueRow[], resourceId: number): void {
  const exists = rows.some((row) => row.id === resourceId && row.parentResourceId === null);
  if (!exists) {
    throw invalidInput('resourceId is not a bookable resource of this resource type', [
      {
        path: 'resourceId',
        message: 'no such active resource (capacity lanes are booked through their parent)',
      },
    ]);
  }
}
