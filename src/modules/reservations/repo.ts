import type { Selectable } from 'kysely';
import type { Executor } from '../../db/database.js';
import { afterNullableKey, decodeNullableKey, encodeNullableKey } from '../../db/keyset.js';
import type { ReservationSource, ReservationStatus, ReservationsTable } from '../../db/tables/resources.js';
import type { Customer, ListReservationsQuery, Reservation } from './schemas.js';

export function toReservation(row: Selectable<ReservationsTable>): Reservation {
  const info = JSON.parse(row.customerInfo) as Record<string, string>;
  return {
    id: row.id,
    resourceTypeId: row.resourceTypeId,
    resourceId: row.resourceId,
    status: row.status,
    startTime: row.startTime,
    endTime: row.endTime,
    customer: {
      name: row.customerName,
      email: row.customerEmail,
      ...(row.customerPhone ? { phone: row.customerPhone } : {}),
      ...info,
    },
    notes: row.notes,
    priceAmount: row.priceAmount,
    priceCurrency: row.priceCurrency,
    source: row.source,
    createdByUserId: row.createdByUserId,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
    cancelledAt: row.cancelledAt,
  };
}

export interface NewReservation {
  organisationId: number;
  resourceTypeId: number;
  resourceId: number;
  status: ReservationStatus;
  startTime: string;
  endTime: string;
  customer: Customer;
  notes: string | null;
  priceAmount: number | null;
  priceCurrency: string | null;
  source: ReservationSource;
  createdByUserId: number | null;
}

export function createReservationRepo(db: Executor) {
  return {
    async insert(values: NewReservation, now: string): Promise<Reservation> {
      const { customer, ...rest } = values;
      const { name, email, phone, ...info } = customer;
      const row = await db
        .insertInto('reservations')
        .values({
          ...rest,
          customerName: name,
          customerEmail: email,
          customerPhone: phone ?? null,
          customerInfo: JSON.stringify(info),
          createdAt: now,
          updatedAt: now,
        })
        .returningAll()
        .executeTakeFirstOrThrow();
      return toReservation(row);
    },

    async find(organisationId: number, id: number): Promise<Reservation | undefined> {
      const row = await db
        .selectFrom('reservations')
        .selectAll()
        .where('organisationId', '=', organisationId)
        .where('id', '=', id)
        .executeTakeFirst();
      return row && toReservation(row);
    },

    /** One page in (startTime, id) order. */
    async list(organisationId: number, query: ListReservationsQuery) {
      let q = db.selectFrom('reservations').selectAll().where('organisationId', '=', organisationId);
      if (query.resourceId !== undefined) {
        const resourceId = query.resourceId;
        q = q.where('resourceId', 'in', (eb) =>
          eb
            .selectFrom('resources')
            .select('id')
            .where((w) => w.or([w('id', '=', resourceId), w('parentResourceId', '=', resourceId)])),
        );
      }
      if (query.resourceTypeId !== undefined) q = q.where('resourceTypeId', '=', query.resourceTypeId);
      if (query.status !== undefined) q = q.where('status', '=', query.status);
      if (query.from !== undefined) q = q.where('endTime', '>', new Date(query.from).toISOString());
      if (query.to !== undefined) q = q.where('startTime', '<', new Date(query.to).toISOString());
      if (query.cursor !== undefined)
        q = q.where(afterNullableKey('startTime', decodeNullableKey(query.cursor)));
      const rows = await q
        .orderBy('startTime')
        .orderBy('id')
        .limit(query.limit + 1)
        .execute();
      const items = rows.slice(0, query.limit).map(toReservation);
      const last = items[items.length - 1];
      return {
        items,
        nextCursor: rows.length > query.limit && last ? encodeNullableKey(last.startTime, last.id) : null,
      };
    },

    async cancel(id: number, now: string): Promise<Reservation | undefined> {
      const row = await db
        .updateTable('reservations')
        .set({ status: 'cancelled', cancelledAt: now, updatedAt: now })
        .where('id', '=', id)
        .where('status', '!=', 'cancelled')
        .returningAll()
        .executeTakeFirst();
      return row && toReservation(row);
    },
  };
}
