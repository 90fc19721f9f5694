import type { Config } from '../../config.js';
import { type Db, inTransaction } from '../../db/database.js';
import type { Actor } from '../../lib/actor.js';
import { AnswerCache } from '../../lib/answer-cache.js';
import { randomToken } from '../../lib/crypto.js';
import { deepFreeze } from '../../lib/deep-freeze.js';
import { conflict, forbidden, invalidInput, notFound } from '../../lib/errors.js';
import { nowIso } from '../../lib/time.js';
import { type ResolvedSchedule, resolveSchedule } from '../../scheduling/resolve.js';
import { normaliseSchedulePolicy, type SchedulePolicy } from '../../scheduling/schemas.js';
import { assertCan } from '../../tenancy/roles.js';
import type { CalendarService } from '../calendars/service.js';
import type { OrganisationsService } from '../organisations/service.js';
import type { ResourceTypesService } from '../resource-types/service.js';
import { createResourceRepo, type ResourceRepo, type ResourceValues, toResource } from './repo.js';
import type { CreateResourceInput, Resource, UpdateResourceInput } from './schemas.js';

type Input = CreateResourceInput | UpdateResourceInput;

/** Resources held by the list's answer cache, across organisations: about 1.5 KB each with their JSON, 15 MB in all. */
const LIST_CACHE_MAX_RESOURCES = 10_000;

/** The lane count a capacity asks for: none at capacity 1. */
const lanesFor = (capacity: number) => (capacity > 1 ? capacity : 0);

/** `operatingHoursOverrides` is the resource-level `schedulePolicy.operatingHours` under another name. */
function mergePolicy(current: SchedulePolicy | null, input: Input): SchedulePolicy | null {
  let policy = current;
  if (input.schedulePolicy !== undefined) {
    policy = input.schedulePolicy ? normaliseSchedulePolicy(input.schedulePolicy) : null;
  }
  const overrides = input.operatingHoursOverrides;
  if (overrides !== undefined) {
    const inPolicy = input.schedulePolicy?.operatingHours;
    if (inPolicy !== undefined && JSON.stringify(inPolicy) !== JSON.stringify(overrides)) {
      throw invalidInput('operatingHoursOverrides and schedulePolicy.operatingHours differ', [
        {
          path: 'operatingHoursOverrides',
          message: 'must equal schedulePolicy.operatingHours when both are sent',
        },
      ]);
    }
    const { operatingHours: _replaced, ...rest } = policy ?? {};
    const next = overrides ? normaliseSchedulePolicy({ ...rest, operatingHours: overrides }) : rest;
    policy = Object.keys(next).length > 0 ? next : null;
  }
  return policy;
}

/** The fields that reach into the manager's own calendars: only the manager turns them on. */
const MANAGER_SETTINGS = ['blockOnManagerCalendars', 'bookingCalendarId'] as const;
type ManagerSettings = Pick<ResourceValues, 'managedById' | (typeof MANAGER_SETTINGS)[number]>;
const NO_MANAGER_SETTINGS = { blockOnManagerCalendars: false, bookingCalendarId: null } as const;

/** Whether the body changes nothing but the manager's own settings (which the manager may do as any member). */
const onlyManagerSettings = (input: Input) =>
  Object.entries(input).every(
    ([key, value]) => value === undefined || (MANAGER_SETTINGS as readonly string[]).includes(key),
  );

/**
 * A member's calendars are theirs (DECISIONS.md "What the review found"): blocking on the
 * manager's calendars and mirroring bookings into one of them are turned on (or pointed at
 * another calendar) only by the manager themself; anyone who may change the resource may
 * turn them off. A new manager (or none) starts with both off. (An agent acts as its
 * owner: resource tools carry no calendar scope.)
 */
function managerSettings(actor: Actor, before: ManagerSettings, input: Input, managedById: number | null) {
  const base = managedById === before.managedById ? before : NO_MANAGER_SETTINGS;
  const blockOnManagerCalendars = input.blockOnManagerCalendars ?? base.blockOnManagerCalendars;
  const bookingCalendarId =
    input.bookingCalendarId !== undefined ? input.bookingCalendarId : base.bookingCalendarId;
  const blocks = blockOnManagerCalendars && !base.blockOnManagerCalendars;
  const mirrors = bookingCalendarId !== null && bookingCalendarId !== base.bookingCalendarId;
  if ((blocks || mirrors) && managedById !== null && actor.userId !== managedById) {
    throw forbidden(
      `Only the resource's manager can turn on ${blocks ? 'blockOnManagerCalendars' : 'bookingCalendarId'}: it reaches into their own calendars`,
    );
  }
  return { blockOnManagerCalendars, bookingCalendarId };
}

export type ResourcesService = ReturnType<typeof createResourcesService>;

/**
 * Resources of the actor's active organisation (`readCatalogue` to read,
 * `writeCatalogue` to write), and their capacity lanes: a
 * parent with capacity N > 1 always has exactly N lanes (`<name> #<n>`), which
 * booking and availability schedule instead of the parent.
 */
export function createResourcesService(deps: {
  db: Db;
  config: Config;
  organisations: OrganisationsService;
  resourceTypes: ResourceTypesService;
  calendars: Pick<CalendarService, 'isOwnedBy'>;
}) {
  const { db, config, organisations, resourceTypes, calendars } = deps;
  const repoFor = (executor: Db['kysely'] | Parameters<typeof createResourceRepo>[0]) =>
    createResourceRepo(executor, db.dialect);
  const repo = repoFor(db.kysely);
  const listCache = new AnswerCache<Resource[]>(LIST_CACHE_MAX_RESOURCES, (list) => list.length);
  // A member who leaves manages nothing of the organisation's any more, nor lends it their calendars.
  organisations.onMemberRemoved((trx, { organisationId, userId }) =>
    repoFor(trx).clearManager(organisationId, userId, nowIso()),
  );

  async function findOrThrow(r: ResourceRepo, organisationId: number, id: number, lock = false) {
    const row = lock ? await r.findForUpdate(organisationId, id) : await r.find(organisationId, id);
    if (!row) throw notFound('Resource');
    return row;
  }

  /**
   * The resource, read after taking the booking lock of its type (and of `otherTypeId`,
   * in id order): bookings take the same lock, so lanes never change under a booking.
   */
  async function lockForChange(
    trx: Parameters<typeof createResourceRepo>[0],
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

  function refuseLane(row: { isCapacityChild: boolean | number }, action: string) {
    if (row.isCapacityChild) {
      throw conflict(
        'CONFLICT',
        `Capacity lanes are managed through their parent resource; ${action} the parent instead`,
      );
    }
  }

  /** Checks references in the body against the organisation: the type and the manager must be its own. */
  async function checkReferences(
    executor: Parameters<typeof createResourceRepo>[0],
    organisationId: number,
    values: ResourceValues,
  ) {
    if (!(await resourceTypes.findStored(executor, organisationId, values.resourceTypeId))) {
      throw invalidInput('resourceTypeId is not a resource type of your active organisation', [
        { path: 'resourceTypeId', message: 'no such resource type in your active organisation' },
      ]);
    }
    if (
      values.managedById !== null &&
      !(await repoFor(executor).isMember(organisationId, values.managedById))
    ) {
      throw invalidInput('managedById is not a member of your active organisation', [
        { path: 'managedById', message: 'must be a member of the organisation' },
      ]);
    }
    if (values.blockOnManagerCalendars && values.managedById === null) {
      throw invalidInput('blockOnManagerCalendars needs a manager: set managedById', [
        {
          path: 'blockOnManagerCalendars',
          message: 'a resource without managedById has no calendars to block on',
        },
      ]);
    }
    if (
      values.bookingCalendarId !== null &&
      (values.managedById === null ||
        !(await calendars.isOwnedBy(values.bookingCalendarId, values.managedById, executor)))
    ) {
      throw invalidInput("bookingCalendarId is not a calendar of the resource's manager", [
        { path: 'bookingCalendarId', message: 'must be a calendar owned by the managedById member' },
      ]);
    }
  }

  /**
   * Seeds, trims or renames lanes so the parent has exactly lanesFor(capacity).
   * The time a resource holds moves with it: its reservations go to lane #1 when
   * lanes are first seeded, and lane #1's come back to it when they all go.
   */
  async function syncLanes(
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
        await r.hasFutureReservations(
          dropped.map((lane) => lane.id),
          now,
        )
      ) {
        throw conflict(
          'LANE_HAS_RESERVATIONS',
          `Lowering capacity to ${parent.capacity} would remove a lane that holds a future reservation`,
        );
      }
      if (wanted === 0 && firstLane) await r.moveReservations(firstLane.id, parent.id, now);
      await r.deleteLanesAbove(parent.id, wanted);
    }
    await r.updateLanes(parent, now);
    const kept = lanes.length - removed.length;
    if (wanted > kept) {
      const seeded = await r.insertLanes(organisationId, parent, kept + 1, wanted, now);
      if (kept === 0) await r.moveReservations(parent.id, seeded[0]!.id, now);
    }
  }

  /** Told after a write that may add bookable time to a type (see `onTimeAdded`). */
  const timeAddedListeners: Array<(organisationId: number, resourceTypeId: number) => void> = [];
  const timeAdded = (organisationId: number, resourceTypeId: number) => {
    for (const listener of timeAddedListeners) listener(organisationId, resourceTypeId);
  };

  return {
    /**
     * Registers `listener`, told after a committed write that may add bookable time to a
     * type: a new resource, a capacity raised, a resource activated, moved to the type or
     * given another schedule (the waitlist offers it at once instead of at its next sweep).
     */
    onTimeAdded(listener: (organisationId: number, resourceTypeId: number) => void) {
      timeAddedListeners.push(listener);
    },

    /**
     * Answers are cached under the version of the organisation's resources: a hit costs
     * one version read, and its answer, frozen, is serialised once (src/http/serialize.ts).
     */
    async list(actor: Actor, filter: { resourceTypeId?: number }): Promise<Resource[]> {
      const { organisationId } = await organisations.requireTenant(actor, { can: 'readCatalogue' });
      const version = await repo.listVersion(organisationId);
      const key = `${organisationId}|${filter.resourceTypeId ?? ''}|${version}`;
      return listCache.get(key, async () =>
        deepFreeze(await repo.list(organisationId, filter.resourceTypeId)),
      );
    },

    async get(actor: Actor, id: number): Promise<Resource> {
      const { organisationId } = await organisations.requireTenant(actor, { can: 'readCatalogue' });
      return toResource(await findOrThrow(repo, organisationId, id));
    },

    async create(actor: Actor, input: CreateResourceInput): Promise<Resource> {
      const { organisationId } = await organisations.requireTenant(actor, { can: 'writeCatalogue' });
      const managedById = input.managedById ?? null;
      const values: ResourceValues = {
        resourceTypeId: input.resourceTypeId,
        name: input.name,
        description: input.description ?? null,
        capacity: input.capacity ?? 1,
        managedById,
        ...managerSettings(actor, { managedById: null, ...NO_MANAGER_SETTINGS }, input, managedById),
        schedulePolicy: mergePolicy(null, input),
        isActive: true,
      };
      const now = nowIso();
      const created = await inTransaction(db.kysely, async (trx) => {
        const r = repoFor(trx);
        await checkReferences(trx, organisationId, values);
        const row = await r.insert(organisationId, values, now);
        await syncLanes(r, organisationId, { ...values, id: row.id }, now);
        return toResource(row);
      });
      timeAdded(organisationId, created.resourceTypeId);
      return created;
    },

    /**
     * Staff (`writeCatalogue`) change any field; the resource's manager, whatever their
     * role, may change their own settings (`managerSettings`).
     */
    async update(actor: Actor, id: number, input: UpdateResourceInput): Promise<Resource> {
      const { organisationId, role } = await organisations.requireTenant(actor);
      const ownSettings = onlyManagerSettings(input);
      if (!ownSettings) assertCan(role, 'writeCatalogue');
      const now = nowIso();
      let addsTime = false;
      const updated = await inTransaction(db.kysely, async (trx) => {
        const r = repoFor(trx);
        const locked = await lockForChange(trx, organisationId, id, input.resourceTypeId);
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
          schedulePolicy: mergePolicy(current.schedulePolicy, input),
          isActive: input.isActive ?? current.isActive,
        };
        await checkReferences(trx, organisationId, values);
        if (values.resourceTypeId !== current.resourceTypeId) {
          // Its reservations now count under the new type: so must their length.
          await resourceTypes.recordReservationLength(
            trx,
            values.resourceTypeId,
            locked.longestReservationMinutes,
          );
        }
        const row = await r.update(id, values, now);
        await syncLanes(r, organisationId, { ...values, id }, now);
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
    },

    /** Deletes a resource without lanes (409 RESOURCE_HAS_CHILD_LANES otherwise). */
    async remove(actor: Actor, id: number): Promise<void> {
      const { organisationId } = await organisations.requireTenant(actor, { can: 'writeCatalogue' });
      await inTransaction(db.kysely, async (trx) => {
        const r = repoFor(trx);
        const { row } = await lockForChange(trx, organisationId, id);
        refuseLane(row, 'delete or lower the capacity of');
        if ((await r.lanesOf(id)).length > 0) {
          throw conflict(
            'RESOURCE_HAS_CHILD_LANES',
            'This resource has capacity lanes; delete it together with its lanes',
          );
        }
        if (await r.hasFutureReservations([id], nowIso())) {
          throw conflict('CONFLICT', 'This resource holds future reservations; cancel them first');
        }
        await r.delete(id);
      });
    },

    /** Deletes a parent and its lanes together. */
    async removeWithLanes(actor: Actor, id: number): Promise<void> {
      const { organisationId } = await organisations.requireTenant(actor, { can: 'writeCatalogue' });
      await inTransaction(db.kysely, async (trx) => {
        const r = repoFor(trx);
        const { row } = await lockForChange(trx, organisationId, id);
        refuseLane(row, 'delete or lower the capacity of');
        const lanes = await r.lanesOf(id);
        if (await r.hasFutureReservations([id, ...lanes.map((lane) => lane.id)], nowIso())) {
          throw conflict(
            'CONFLICT',
            'This resource or one of its lanes holds future reservations; cancel them first',
          );
        }
        await r.delete(id);
      });
    },

    async publicToken(actor: Actor, id: number) {
      const { organisationId } = await organisations.requireTenant(actor, { can: 'readCatalogue' });
      const row = await findOrThrow(repo, organisationId, id);
      refuseLane(row, 'share');
      return {
        token: row.publicToken,
        publicUrl: `${config.publicUrl}/api/public/resources/${row.publicToken}`,
      };
    },

    /** A new token; links carrying the old one stop working at once. */
    async regenerateToken(actor: Actor, id: number) {
      const { organisationId } = await organisations.requireTenant(actor, { can: 'writeCatalogue' });
      const row = await findOrThrow(repo, organisationId, id);
      refuseLane(row, 'share');
      const token = randomToken();
      await repo.setToken(id, token, nowIso());
      return { token, publicUrl: `${config.publicUrl}/api/public/resources/${token}` };
    },

    /** The effective schedule of a resource and the scope each section came from. */
    async schedule(actor: Actor, id: number): Promise<ResolvedSchedule> {
      const { organisationId, schedulePolicy } = await organisations.requireTenant(actor, {
        can: 'readCatalogue',
      });
      const row = await findOrThrow(repo, organisationId, id);
      const owner = row.parentResourceId
        ? await findOrThrow(repo, organisationId, row.parentResourceId)
        : row;
      const type = await resourceTypes.findStored(db.kysely, organisationId, owner.resourceTypeId);
      return resolveSchedule({
        organisation: schedulePolicy,
        resourceType: type?.schedulePolicy ?? null,
        resource: toResource(owner).schedulePolicy,
      });
    },

    /** One resource or lane of an organisation, without an actor (booking, public pages). */
    async findInOrganisation(organisationId: number, id: number): Promise<Resource | undefined> {
      const row = await repo.find(organisationId, id);
      return row && toResource(row);
    },

    /** Every resource and lane of an organisation, without an actor (the public catalogue). */
    listInOrganisation: (organisationId: number): Promise<Resource[]> => repo.list(organisationId),
  };
}
