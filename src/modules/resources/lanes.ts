import type { Executor } from '../../db/database.js';
import { conflict } from '../../lib/errors.js';
import { holdsFutureReservations, moveReservations } from '../reservations/ports.js';
import { findOrThrow, type ResourcesContext } from './context.js';
import type { ResourceRepo, ResourceValues } from './repo.js';

/** The lane count a capacity asks for: none at capacity 1. */
const lanesFor = (capacity: number) => (capacity > 1 ? capacity : 0);

/**
 * The resource, read after taking the booking lock of its type (and of `otherTypeId`,
 * in id order): bookings take the same lock, so lanes never change under a booking.
 */
export async function lockForChange(
  { resourceTypes, repoFor }: ResourcesContext,
  trx: Executor,
  organisationId: number,
  id: number,
  otherTypeId?: number,
) {
  const r = repoFor(trx);
  const before = await findOrThrow(r, organisationId, id);
  const typeIds = [...new Set([before.resourceTypeId, otherTypeId ?? before.resourceTypeId])].sort(
    (a, b) => a - b,
  );
  let longest = 0;
  for (const typeId of typeIds) {
    if (!(await resourceTypes.findStored(trx, organisationId, typeId))) continue;
    const locked = await resourceTypes.lockForBooking(trx, typeId);
    if (typeId === before.resourceTypeId) longest = locked.longestReservationMinutes;
  }
  return { row: await findOrThrow(r, organisationId, id, true), longestReservationMinutes: longest };
}

/**
 * Seeds, trims or renames lanes so the parent has exactly lanesFor(capacity).
 * The time a resource holds moves with it: its reservations go to lane #1 when
 * lanes are first seeded, and lane #1's come back to it when they all go.
 */
export async function syncLanes(
  trx: Executor,
  r: ResourceRepo,
  organisationId: number,
  parent: ResourceValues & { id: number },
  now: string,
) {
  const wanted = lanesFor(parent.capacity);
  const lanes = await r.lanesOf(parent.id);
  const removed = lanes.filter((lane) => (lane.capacityLaneIndex ?? 0) > wanted);
  const firstLane = lanes.find((lane) => lane.capacityLaneIndex === 1);
  if (removed.length > 0) {
    // Lane #1's reservations stay with the parent when every lane goes; the others' cannot.
    const dropped = removed.filter((lane) => wanted > 0 || lane !== firstLane);
    if (
      await holdsFutureReservations(
        trx,
        dropped.map((lane) => lane.id),
        now,
      )
    ) {
      throw conflict(
        'LANE_HAS_RESERVATIONS',
        `Lowering capacity to ${parent.capacity} would remove a lane that holds a future reservation`,
      );
    }
    if (wanted === 0 && firstLane) await moveReservations(trx, firstLane.id, parent.id, now);
    await r.deleteLanesAbove(parent.id, wanted);
  }
  await r.updateLanes(parent, now);
  const kept = lanes.length - removed.length;
  if (wanted > kept) {
    const seeded = await r.insertLanes(organisationId, parent, kept + 1, wanted, now);
    if (kept === 0) await moveReservations(trx, parent.id, seeded[0]!.id, now);
  }
}
