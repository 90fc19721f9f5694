import { inTransaction } from '../../db/database.js';
import type { Actor } from '../../lib/actor.js';
import { conflict } from '../../lib/errors.js';
import { nowIso } from '../../lib/time.js';
import { assertCan } from '../../tenancy/roles.js';
import { holdsFutureReservations } from '../reservations/ports.js';
import { type ResourcesContext, refuseLane } from './context.js';
import { lockForChange, syncLanes } from './lanes.js';
import { type ResourceValues, toResource } from './repo.js';
import type { CreateResourceInput, Resource, UpdateResourceInput } from './schemas.js';
import type { ResourcesService } from './service.js';
import {
  checkReferences,
  managerSettings,
  mergePolicy,
  NO_MANAGER_SETTINGS,
  onlyManagerSettings,
} from './values.js';

/** A new resource and its lanes; its time is told to the `onTimeAdded` listeners once committed. */
async function createResource(
  ctx: ResourcesContext,
  actor: Actor,
  input: CreateResourceInput,
): Promise<Resource> {
  const { db, organisations, repoFor, timeAdded } = ctx;
  const { organisationId } = await organisations.requireTenant(actor, { can: 'writeCatalogue' });
  const managedById = input.managedById ?? null;
  const values: ResourceValues = {
    resourceTypeId: input.resourceTypeId,
    name: input.name,
    description: input.description ?? null,
    capacity: input.capacity ?? 1,
    managedById,
    ...managerSettings(actor, { managedById: null, ...NO_MANAGER_SETTINGS }, input, managedById),
    assignmentWeight: input.assignmentWeight ?? 1,
    maxBookingsPerDay: input.maxBookingsPerDay ?? null,
    schedulePolicy: mergePolicy(null, input),
    isActive: true,
  };
  const now = nowIso();
  const created = await inTransaction(db.kysely, async (trx) => {
    const r = repoFor(trx);
    await checkReferences(ctx, trx, organisationId, values);
    const row = await r.insert(organisationId, values, now);
    await syncLanes(trx, r, organisationId, { ...values, id: row.id }, now);
    return toResource(row);
  });
  timeAdded(organisationId, created.resourceTypeId);
  return created;
}

/**
 * The resource's manager may change their own settings without `writeCatalogue`; a change
 * that may add bookable time tells the `onTimeAdded` listeners once committed.
 */
async function updateResource(
  ctx: ResourcesContext,
  actor: Actor,
  id: number,
  input: UpdateResourceInput,
): Promise<Resource> {
  const { db, organisations, resourceTypes, repoFor, timeAdded } = ctx;
  const { organisationId, role } = await organisations.requireTenant(actor);
  const ownSettings = onlyManagerSettings(input);
  if (!ownSettings) assertCan(role, 'writeCatalogue');
  const now = nowIso();
  let addsTime = false;
  const updated = await inTransaction(db.kysely, async (trx) => {
    const r = repoFor(trx);
    const locked = await lockForChange(ctx, trx, organisationId, id, input.resourceTypeId);
    const current = toResource(locked.row);
    if (ownSettings && current.managedById !== actor.userId) assertCan(role, 'writeCatalogue');
    refuseLane(current, 'change');
    const managedById = input.managedById !== undefined ? input.managedById : current.managedById;
    const values: ResourceValues = {
      resourceTypeId: input.resourceTypeId ?? current.resourceTypeId,
      name: input.name ?? current.name,
      description: input.description !== undefined ? input.description : current.description,
      capacity: input.capacity ?? current.capacity,
      managedById,
      ...managerSettings(actor, current, input, managedById),
      assignmentWeight: input.assignmentWeight ?? current.assignmentWeight,
      maxBookingsPerDay:
        input.maxBookingsPerDay !== undefined ? input.maxBookingsPerDay : current.maxBookingsPerDay,
      schedulePolicy: mergePolicy(current.schedulePolicy, input),
      isActive: input.isActive ?? current.isActive,
    };
    await checkReferences(ctx, trx, organisationId, values);
    if (values.resourceTypeId !== current.resourceTypeId) {
      // Its reservations now count under the new type: so must their length.
      await resourceTypes.recordReservationLength(
        trx,
        values.resourceTypeId,
        locked.longestReservationMinutes,
      );
    }
    const row = await r.update(id, values, now);
    await syncLanes(trx, r, organisationId, { ...values, id }, now);
    addsTime =
      values.isActive &&
      (values.capacity > current.capacity ||
        !current.isActive ||
        values.resourceTypeId !== current.resourceTypeId ||
        JSON.stringify(values.schedulePolicy) !== JSON.stringify(current.schedulePolicy));
    return toResource(row);
  });
  if (addsTime) timeAdded(organisationId, updated.resourceTypeId);
  return updated;
}

type Writes = Pick<ResourcesService, 'create' | 'update' | 'remove' | 'removeWithLanes'>;

/** Writing resources: each write keeps the parent's lanes at its capacity, under its type's booking lock. */
export function createResourceWrites(ctx: ResourcesContext): Writes {
  const { db, organisations, repoFor } = ctx;
  return {
    create: (actor, input) => createResource(ctx, actor, input),
    update: (actor, id, input) => updateResource(ctx, actor, id, input),

    async remove(actor: Actor, id: number): Promise<void> {
      const { organisationId } = await organisations.requireTenant(actor, { can: 'writeCatalogue' });
      await inTransaction(db.kysely, async (trx) => {
        const r = repoFor(trx);
        const { row } = await lockForChange(ctx, trx, organisationId, id);
        refuseLane(row, 'delete or lower the capacity of');
        if ((await r.lanesOf(id)).length > 0) {
          throw conflict(
            'RESOURCE_HAS_CHILD_LANES',
            'This resource has capacity lanes; delete it together with its lanes',
          );
        }
        if (await holdsFutureReservations(trx, [id], nowIso())) {
          throw conflict('CONFLICT', 'This resource holds future reservations; cancel them first');
        }
        await r.delete(id);
      });
    },

    async removeWithLanes(actor: Actor, id: number): Promise<void> {
      const { organisationId } = await organisations.requireTenant(actor, { can: 'writeCatalogue' });
      await inTransaction(db.kysely, async (trx) => {
        const r = repoFor(trx);
        const { row } = await lockForChange(ctx, trx, organisationId, id);
        refuseLane(row, 'delete or lower the capacity of');
        const lanes = await r.lanesOf(id);
        if (await holdsFutureReservations(trx, [id, ...lanes.map((lane) => lane.id)], nowIso())) {
          throw conflict(
            'CONFLICT',
            'This resource or one of its lanes holds future reservations; cancel them first',
          );
        }
        await r.delete(id);
      });
    },
  };
}
