import type { Selectable } from 'kysely';
import type { Executor } from '../../db/database.js';
import type { ResourceTypesTable } from '../../db/tables/resources.js';
import type { SchedulePolicy } from '../scheduling/schemas.js';
import type { ResourceType } from './schemas.js';

export function toResourceType(row: Selectable<ResourceTypesTable>): ResourceType {
  const schedulePolicy = row.schedulePolicy ? (JSON.parse(row.schedulePolicy) as SchedulePolicy) : null;
  return {
    ...row,
    availabilityMode: schedulePolicy?.availabilityMode ?? null,
    customerInfoFields: JSON.parse(row.customerInfoFields) as string[],
    waitlistEnabled: Boolean(row.waitlistEnabled),
    recurringEnabled: Boolean(row.recurringEnabled),
    schedulePolicy,
    pricingEnabled: Boolean(row.pricingEnabled),
    paymentRequired: Boolean(row.paymentRequired),
    isActive: Boolean(row.isActive),
  };
}

/** A resource type's stored values, in the service's terms. */
export interface ResourceTypeValues {
  name: string;
  description: string | null;
  minBookingDuration: number;
  bufferTime: number;
  customerInfoFields: string[];
  waitlistEnabled: boolean;
  recurringEnabled: boolean;
  bookingMode: ResourceType['bookingMode'];
  color: string | null;
  icon: string | null;
  schedulePolicy: SchedulePolicy | null;
  pricingEnabled: boolean;
  paymentRequired: boolean;
  priceAmount: number | null;
  priceCurrency: string | null;
  isActive: boolean;
}

function toColumns(values: ResourceTypeValues) {
  return {
    ...values,
    customerInfoFields: JSON.stringify(values.customerInfoFields),
    schedulePolicy: values.schedulePolicy ? JSON.stringify(values.schedulePolicy) : null,
  };
}

export function createResourceTypeRepo(db: Executor) {
  const inOrganisation = (organisationId: number) =>
    db.selectFrom('resourceTypes').selectAll().where('organisationId', '=', organisationId);

  return {
    async list(organisationId: number): Promise<ResourceType[]> {
      const rows = await inOrganisation(organisationId).orderBy('name').orderBy('id').execute();
      return rows.map(toResourceType);
    },

    async find(organisationId: number, id: number): Promise<ResourceType | undefined> {
      const row = await inOrganisation(organisationId).where('id', '=', id).executeTakeFirst();
      return row && toResourceType(row);
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

    async hasResources(id: number): Promise<boolean> {
      const row = await db
        .selectFrom('resources')
        .select('id')
        .where('resourceTypeId', '=', id)
        .limit(1)
        .executeTakeFirst();
      return row !== undefined;
    },

    async delete(organisationId: number, id: number): Promise<void> {
      await db
        .deleteFrom('resourceTypes')
        .where('organisationId', '=', organisationId)
        .where('id', '=', id)
        .execute();
    },

    async defaultCurrency(organisationId: number): Promise<string> {
      const row = await db
        .selectFrom('organisations')
        .select('defaultCurrency')
        .where('id', '=', organisationId)
        .executeTakeFirstOrThrow();
      return row.defaultCurrency;
    },
  };
}
