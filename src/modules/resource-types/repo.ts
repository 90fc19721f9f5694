import { type Selectable, sql } from 'kysely';
import { type Dialect, type Executor, precompiled } from '../../db/database.js';
import type { SchedulePolicy } from '../../scheduling/schemas.js';
import type { BookingQuestion, BookingRules, Reminder, ResourceType } from './schemas.js';
import type { ResourceTypesTable } from './tables.js';

/** A type as the services see it: the API record plus what only booking and availability read. */
export type StoredResourceType = ResourceType & { longestReservationMinutes: number };

export function toResourceType(row: Selectable<ResourceTypesTable>): StoredResourceType {
  const schedulePolicy = row.schedulePolicy ? (JSON.parse(row.schedulePolicy) as SchedulePolicy) : null;
  return {
    ...row,
    availabilityMode: schedulePolicy?.availabilityMode ?? null,
    customerInfoFields: JSON.parse(row.customerInfoFields) as string[],
    questions: JSON.parse(row.questions) as BookingQuestion[],
    reminders: JSON.parse(row.reminders) as Reminder[],
    waitlistEnabled: Boolean(row.waitlistEnabled),
    recurringEnabled: Boolean(row.recurringEnabled),
    schedulePolicy,
    pricingEnabled: Boolean(row.pricingEnabled),
    paymentRequired: Boolean(row.paymentRequired),
    bookingRules: row.bookingRules ? (JSON.parse(row.bookingRules) as BookingRules) : null,
    isActive: Boolean(row.isActive),
  };
}

/** Every column of the types table (the `satisfies` fails to compile when one is added and not named here). */
export const TYPE_COLUMNS = Object.keys({
  id: true,
  organisationId: true,
  name: true,
  description: true,
  minBookingDuration: true,
  bufferTime: true,
  customerInfoFields: true,
  questions: true,
  reminders: true,
  waitlistEnabled: true,
  recurringEnabled: true,
  bookingMode: true,
  assignment: true,
  color: true,
  icon: true,
  schedulePolicy: true,
  pricingEnabled: true,
  paymentRequired: true,
  priceAmount: true,
  priceCurrency: true,
  isActive: true,
  bookingRules: true,
  paymentWindowMinutes: true,
  waitlistOfferMinutes: true,
  longestReservationMinutes: true,
  createdAt: true,
  updatedAt: true,
} satisfies Record<keyof ResourceTypesTable, true>) as (keyof ResourceTypesTable)[];

/**
 * A type read beside another module's rows in one statement (a booking reads its type with
 * the lanes): `select` names its columns as `<prefix>Column` (so none collides with the
 * rows' own), and `read` takes the type back from any row of the result.
 */
export function prefixedTypeColumns(prefix: string) {
  const aliases = TYPE_COLUMNS.map((column) => prefix + column[0]!.toUpperCase() + column.slice(1));
  return {
    select: () => TYPE_COLUMNS.map((column, i) => sql.ref(`resourceTypes.${column}`).as(aliases[i]!)),
    read(row: Record<string, unknown>): StoredResourceType {
      const stored: Record<string, unknown> = {};
      TYPE_COLUMNS.forEach((column, i) => {
        stored[column] = row[aliases[i]!];
      });
      return toResourceType(stored as unknown as Selectable<ResourceTypesTable>);
    },
  };
}

/** A resource type's stored values, in the service's terms. */
export interface ResourceTypeValues {
  name: string;
  description: string | null;
  minBookingDuration: number;
  bufferTime: number;
  customerInfoFields: string[];
  questions: BookingQuestion[];
  reminders: Reminder[];
  waitlistEnabled: boolean;
  recurringEnabled: boolean;
  bookingMode: ResourceType['bookingMode'];
  assignment: ResourceType['assignment'];
  color: string | null;
  icon: string | null;
  schedulePolicy: SchedulePolicy | null;
  pricingEnabled: boolean;
  paymentRequired: boolean;
  priceAmount: number | null;
  priceCurrency: string | null;
  paymentWindowMinutes: number;
  waitlistOfferMinutes: number;
  bookingRules: BookingRules | null;
  isActive: boolean;
}

function toColumns(values: ResourceTypeValues) {
  return {
    ...values,
    customerInfoFields: JSON.stringify(values.customerInfoFields),
    questions: JSON.stringify(values.questions),
    reminders: JSON.stringify(values.reminders),
    schedulePolicy: values.schedulePolicy ? JSON.stringify(values.schedulePolicy) : null,
    bookingRules: values.bookingRules ? JSON.stringify(values.bookingRules) : null,
  };
}

/**
 * One type of an organisation, compiled once on `db` and run through any executor:
 * every booking reads it (public booking and availability too).
 */
export function storedTypeQuery(db: Executor) {
  const select = precompiled(() =>
    db.selectFrom('resourceTypes').selectAll().where('organisationId', '=', 0).where('id', '=', 0),
  );
  return async (executor: Executor, organisationId: number, id: number) => {
    const [row] = await select(executor, organisationId, id);
    return row && toResourceType(row);
  };
}

export function createResourceTypeRepo(db: Executor) {
  const inOrganisation = (organisationId: number) =>
    db.selectFrom('resourceTypes').selectAll().where('organisationId', '=', organisationId);
  const findStored = storedTypeQuery(db);

  return {
    async list(organisationId: number): Promise<StoredResourceType[]> {
      const rows = await inOrganisation(organisationId).orderBy('name').orderBy('id').execute();
      return rows.map(toResourceType);
    },

    find(organisationId: number, id: number): Promise<StoredResourceType | undefined> {
      return findStored(db, organisationId, id);
    },

    async insert(organisationId: number, values: ResourceTypeValues, now: string): Promise<ResourceType> {
      const row = await db
        .insertInto('resourceTypes')
        .values({ ...toColumns(values), organisationId, createdAt: now, updatedAt: now })
        .returningAll()
        .executeTakeFirstOrThrow();
      return toResourceType(row);
    },

    async update(
      organisationId: number,
      id: number,
      values: ResourceTypeValues,
      now: string,
    ): Promise<ResourceType> {
      const row = await db
        .updateTable('resourceTypes')
        .set({ ...toColumns(values), updatedAt: now })
        .where('organisationId', '=', organisationId)
        .where('id', '=', id)
        .returningAll()
        .executeTakeFirstOrThrow();
      return toResourceType(row);
    },

    async setColour(
      organisationId: number,
      id: number,
      color: string,
      now: string,
    ): Promise<ResourceType | undefined> {
      const row = await db
        .updateTable('resourceTypes')
        .set({ color, updatedAt: now })
        .where('organisationId', '=', organisationId)
        .where('id', '=', id)
        .returningAll()
        .executeTakeFirst();
      return row && toResourceType(row);
    },

    /**
     * Serialises changes to one type's resources (a row lock on PostgreSQL; SQLite runs
     * one transaction at a time). Bookings do not take it.
     */
    async lockForBooking(id: number, dialect: Dialect): Promise<{ longestReservationMinutes: number }> {
      const query = db.selectFrom('resourceTypes').select('longestReservationMinutes').where('id', '=', id);
      return (dialect === 'postgres' ? query.forUpdate() : query).executeTakeFirstOrThrow();
    },

    /** Raises the type's longest reservation to `minutes` when that is longer. */
    async recordReservationLength(id: number, minutes: number): Promise<void> {
      await db
        .updateTable('resourceTypes')
        .set({ longestReservationMinutes: minutes })
        .where('id', '=', id)
        .where('longestReservationMinutes', '<', minutes)
        .execute();
    },

    async delete(organisationId: number, id: number): Promise<void> {
      await db
        .deleteFrom('resourceTypes')
        .where('organisationId', '=', organisationId)
        .where('id', '=', id)
        .execute();
    },
  };
}
