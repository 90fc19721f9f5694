import { type Selectable, sql } from 'kysely';
import { type Dialect, type Executor, precompiled } from '../../db/database.js';
import { randomToken } from '../../lib/crypto.js';
import type { SchedulePolicy } from '../../scheduling/schemas.js';
import type { Resource } from './schemas.js';
import type { ResourcesTable } from './tables.js';

type ResourceRow = Selectable<ResourcesTable>;

/** A resource as the API answers it: every column but the public token. */
export function toResource(row: Omit<ResourceRow, 'publicToken'>): Resource {
  const schedulePolicy = row.schedulePolicy ? (JSON.parse(row.schedulePolicy) as SchedulePolicy) : null;
  return {
    id: row.id,
    organisationId: row.organisationId,
    resourceTypeId: row.resourceTypeId,
    name: row.name,
    description: row.description,
    capacity: row.capacity,
    managedById: row.managedById,
    blockOnManagerCalendars: Boolean(row.blockOnManagerCalendars),
    bookingCalendarId: row.bookingCalendarId,
    assignmentWeight: row.assignmentWeight,
    maxBookingsPerDay: row.maxBookingsPerDay,
    schedulePolicy,
    operatingHoursOverrides: schedulePolicy?.operatingHours ?? null,
    parentResourceId: row.parentResourceId,
    isCapacityChild: Boolean(row.isCapacityChild),
    capacityLaneIndex: row.capacityLaneIndex,
    isActive: Boolean(row.isActive),
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}

const listedColumns = [
  'id',
  'organisationId',
  'resourceTypeId',
  'name',
  'description',
  'capacity',
  'managedById',
  'blockOnManagerCalendars',
  'bookingCalendarId',
  'assignmentWeight',
  'maxBookingsPerDay',
  'schedulePolicy',
  'parentResourceId',
  'isCapacityChild',
  'capacityLaneIndex',
  'isActive',
  'createdAt',
  'updatedAt',
] as const;

/** The list's two queries, compiled once (of an organisation, and of one type in it), and the version labelling them. */
function listQueries(db: Executor) {
  const ofOrganisation = () =>
    db.selectFrom('resources').select(listedColumns).where('organisationId', '=', 0);
  // Parents (and resources without lanes) in creation order, each followed by its lanes in lane order.
  const ordered = <Q extends ReturnType<typeof ofOrganisation>>(query: Q) =>
    query.orderBy(sql`coalesce(parent_resource_id, id)`).orderBy(sql`coalesce(capacity_lane_index, 0)`);
  return {
    all: precompiled(() => ordered(ofOrganisation())),
    ofType: precompiled(() => ordered(ofOrganisation().where('resourceTypeId', '=', 0))),
    version: precompiled(() =>
      db.selectFrom('resourceListVersions').select('version').where('organisationId', '=', 0),
    ),
  };
}

export interface ResourceValues {
  resourceTypeId: number;
  name: string;
  description: string | null;
  capacity: number;
  managedById: number | null;
  blockOnManagerCalendars: boolean;
  bookingCalendarId: number | null;
  assignmentWeight: number;
  maxBookingsPerDay: number | null;
  schedulePolicy: SchedulePolicy | null;
  isActive: boolean;
}

const policyColumn = (policy: SchedulePolicy | null) => (policy ? JSON.stringify(policy) : null);

export function createResourceRepo(db: Executor, dialect: Dialect) {
  const inOrganisation = (organisationId: number) =>
    db.selectFrom('resources').selectAll().where('organisationId', '=', organisationId);

  const lists = listQueries(db);

  return {
    /** Parents (and resources without lanes) in creation order, each followed by its lanes in lane order. */
    async list(organisationId: number, resourceTypeId?: number): Promise<Resource[]> {
      const rows =
        resourceTypeId === undefined
          ? await lists.all(db, organisationId)
          : await lists.ofType(db, organisationId, resourceTypeId);
      return rows.map(toResource);
    },

    /** The version of the organisation's resources (migration 0015's triggers raise it on every write). */
    async listVersion(organisationId: number): Promise<string> {
      const [row] = await lists.version(db, organisationId);
      return String(row?.version ?? 0);
    },

    async find(organisationId: number, id: number): Promise<ResourceRow | undefined> {
      return inOrganisation(organisationId).where('id', '=', id).executeTakeFirst();
    },

    /** The row, locked until the transaction ends on PostgreSQL (SQLite transactions are serial already). */
    async findForUpdate(organisationId: number, id: number): Promise<ResourceRow | undefined> {
      const query = inOrganisation(organisationId).where('id', '=', id);
      return (dialect === 'postgres' ? query.forUpdate() : query).executeTakeFirst();
    },

    /** Whether any resource (or lane) is of the type. */
    async anyOfType(resourceTypeId: number): Promise<boolean> {
      const row = await db
        .selectFrom('resources')
        .select('id')
        .where('resourceTypeId', '=', resourceTypeId)
        .limit(1)
        .executeTakeFirst();
      return row !== undefined;
    },

    /** The active, non-lane resource a public token names. */
    findPublicByToken(publicToken: string): Promise<{ id: number; organisationId: number } | undefined> {
      return db
        .selectFrom('resources')
        .select(['id', 'organisationId'])
        .where('publicToken', '=', publicToken)
        .where('isCapacityChild', '=', false)
        .where('isActive', '=', true)
        .executeTakeFirst();
    },

    async lanesOf(parentId: number): Promise<ResourceRow[]> {
      return db
        .selectFrom('resources')
        .selectAll()
        .where('parentResourceId', '=', parentId)
        .orderBy('capacityLaneIndex')
        .execute();
    },

    /** A resource (not a lane), with a fresh public booking token. */
    async insert(organisationId: number, values: ResourceValues, now: string): Promise<ResourceRow> {
      return db
        .insertInto('resources')
        .values({
          ...values,
          publicToken: randomToken(),
          isCapacityChild: false,
          schedulePolicy: policyColumn(values.schedulePolicy),
          organisationId,
          createdAt: now,
          updatedAt: now,
        })
        .returningAll()
        .executeTakeFirstOrThrow();
    },

    async update(id: number, values: ResourceValues, now: string): Promise<ResourceRow> {
      return db
        .updateTable('resources')
        .set({ ...values, schedulePolicy: policyColumn(values.schedulePolicy), updatedAt: now })
        .where('id', '=', id)
        .returningAll()
        .executeTakeFirstOrThrow();
    },

    /** Keeps lanes in step with their parent: name prefix, type, manager, active state, weight and daily cap. */
    async updateLanes(
      parent: {
        id: number;
        name: string;
        resourceTypeId: number;
        managedById: number | null;
        isActive: boolean;
        assignmentWeight: number;
        maxBookingsPerDay: number | null;
      },
      now: string,
    ) {
      await db
        .updateTable('resources')
        .set({
          name: sql<string>`cast(${parent.name} as text) || ' #' || cast(capacity_lane_index as text)`,
          resourceTypeId: parent.resourceTypeId,
          managedById: parent.managedById,
          isActive: parent.isActive,
          assignmentWeight: parent.assignmentWeight,
          maxBookingsPerDay: parent.maxBookingsPerDay,
          updatedAt: now,
        })
        .where('parentResourceId', '=', parent.id)
        .execute();
    },

    /** Lanes `from`..`to` of a parent, in one insert, named and configured after it. */
    async insertLanes(
      organisationId: number,
      parent: ResourceValues & { id: number },
      from: number,
      to: number,
      now: string,
    ): Promise<ResourceRow[]> {
      const lanes = [];
      for (let index = from; index <= to; index++) {
        lanes.push({
          organisationId,
          resourceTypeId: parent.resourceTypeId,
          name: `${parent.name} #${index}`,
          description: null,
          capacity: 1,
          managedById: parent.managedById,
          // Availability and the booking calendar read the parent's settings; a lane holds none.
          blockOnManagerCalendars: false,
          bookingCalendarId: null,
          schedulePolicy: null,
          isActive: parent.isActive,
          assignmentWeight: parent.assignmentWeight,
          maxBookingsPerDay: parent.maxBookingsPerDay,
          parentResourceId: parent.id,
          isCapacityChild: true,
          capacityLaneIndex: index,
          publicToken: randomToken(),
          createdAt: now,
          updatedAt: now,
        });
      }
      const rows = await db.insertInto('resources').values(lanes).returningAll().execute();
      return rows.sort((a, b) => (a.capacityLaneIndex ?? 0) - (b.capacityLaneIndex ?? 0));
    },

    /** Drops the member as manager of the organisation's resources and lanes, with the settings that reach into their calendars. */
    async clearManager(organisationId: number, userId: number, now: string): Promise<void> {
      await db
        .updateTable('resources')
        .set({ managedById: null, blockOnManagerCalendars: false, bookingCalendarId: null, updatedAt: now })
        .where('organisationId', '=', organisationId)
        .where('managedById', '=', userId)
        .execute();
    },

    async setToken(id: number, publicToken: string, now: string): Promise<void> {
      await db.updateTable('resources').set({ publicToken, updatedAt: now }).where('id', '=', id).execute();
    },

    async deleteLanesAbove(parentId: number, laneIndex: number): Promise<void> {
      await db
        .deleteFrom('resources')
        .where('parentResourceId', '=', parentId)
        .where('capacityLaneIndex', '>', laneIndex)
        .execute();
    },

    /** Deletes the resource; its lanes go with it (ON DELETE CASCADE). */
    async delete(id: number): Promise<void> {
      await db.deleteFrom('resources').where('id', '=', id).execute();
    },
  };
}

export type ResourceRepo = ReturnType<typeof createResourceRepo>;
