import { customerRecordOf } from '../reservations/answers.js';
import type { EntryRow } from './repo.js';
import type { WaitlistEntry, WaitlistStatus } from './schemas.js';

/**
 * What an entry is to its readers. An entry the offer consumer has claimed but not yet linked to
 * a hold (`offered` without a reservation: the hold is being tried, and is let go if the time does
 * not fit) is still waiting: no offer exists yet, and it keeps its place.
 */
export function shownStatus(row: Pick<EntryRow, 'status' | 'offerReservationId'>): WaitlistStatus {
  return row.status === 'offered' && row.offerReservationId === null ? 'waiting' : row.status;
}

/** The resources an entry waits for: a collective booking's, else its one resource (none for a pool). */
function resourcesOf(row: EntryRow): number[] {
  if (row.resourceIds !== null) return JSON.parse(row.resourceIds) as number[];
  return row.resourceId === null ? [] : [row.resourceId];
}

export function toEntry(row: EntryRow, position: number | null): WaitlistEntry {
  return {
    id: row.id,
    status: shownStatus(row),
    position,
    resourceId: row.resourceId,
    resourceIds: resourcesOf(row),
    resourceTypeId: row.resourceTypeId,
    startTime: row.startTime,
    endTime: row.endTime,
    customer: customerRecordOf(row),
    offer:
      row.offerReservationId !== null && row.status !== 'waiting'
        ? { reservationId: row.offerReservationId, expiresAt: row.offerExpiresAt }
        : null,
    createdAt: row.createdAt,
  };
}
