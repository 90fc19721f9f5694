import type { Timestamp } from '../../db/column-types.js';
import type { Db, Executor } from '../../db/database.js';
import { reservationTimes } from '../reservations/ports.js';
import { resourceRows } from '../resources/ports.js';

export interface BookingCalendarPositionsTable {
  consumer: string;
  lastEventId: string | null;
  updatedAt: Timestamp;
}

export interface BookingCalendarTables {
  bookingCalendarPositions: BookingCalendarPositionsTable;
}

const CONSUMER = 'mirror';

/** A reservation as the mirror needs it: its time, and where its resource mirrors bookings. */
export interface MirroredReservation {
  id: number;
  status: string;
  startTime: string;
  endTime: string;
  resourceName: string;
  /** The booking calendar of the resource (a lane's parent's), and its manager; null for none. */
  bookingCalendarId: number | null;
  managedById: number | null;
}

export function createBookingCalendarRepo(db: Db) {
  let positionMade = false;
  return {
    /** The mirror's position (null: nothing applied yet), its row made on first use. */
    async readPosition(now: string): Promise<string | null> {
      // The row is made once per process (a write on every run would cost every run a write).
      if (!positionMade) {
        await db.kysely
          .insertInto('bookingCalendarPositions')
          .values({ consumer: CONSUMER, lastEventId: null, updatedAt: now })
          .onConflict((oc) => oc.column('consumer').doNothing())
          .execute();
        positionMade = true;
      }
      const row = await db.kysely
        .selectFrom('bookingCalendarPositions')
        .select('lastEventId')
        .where('consumer', '=', CONSUMER)
        .executeTakeFirstOrThrow();
      return row.lastEventId;
    },

    /** Moves the position from `from` to `to` if still at `from` (compare and set); false when another run moved it. */
    async advancePosition(
      executor: Executor,
      from: string | null,
      to: string,
      now: string,
    ): Promise<boolean> {
      const result = await executor
        .updateTable('bookingCalendarPositions')
        .set({ lastEventId: to, updatedAt: now })
        .where('consumer', '=', CONSUMER)
        .where('lastEventId', from === null ? 'is' : '=', from)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) > 0;
    },

    /** Whether any resource has a booking calendar. */
    async anyBookingCalendar(): Promise<boolean> {
      const row = await db.kysely
        .selectFrom(resourceRows(db.kysely).as('resources'))
        .select('resources.id')
        .where('resources.bookingCalendarId', 'is not', null)
        .limit(1)
        .executeTakeFirst();
      return row !== undefined;
    },

    /**
     * The reservations as they are now (not as an event said they were: a run behind
     * another never applies an older state), with their resource's booking calendar.
     */
    async reservations(ids: readonly number[]): Promise<MirroredReservation[]> {
      if (ids.length === 0) return [];
      const rows = await db.kysely
        .selectFrom(reservationTimes(db.kysely).as('reservations'))
        .leftJoin(resourceRows(db.kysely).as('lane'), 'lane.id', 'reservations.resourceId')
        .leftJoin(resourceRows(db.kysely).as('parent'), (join) =>
          join.on((eb) => eb('parent.id', '=', eb.fn.coalesce('lane.parentResourceId', 'lane.id'))),
        )
        .select([
          'reservations.id',
          'reservations.status',
          'reservations.startTime',
          'reservations.endTime',
          'parent.name as resourceName',
          'parent.bookingCalendarId',
          'parent.managedById',
        ])
        .where('reservations.id', 'in', [...ids])
        .execute();
      return rows.map((row) => ({
        ...row,
        resourceName: row.resourceName ?? 'Resource',
        bookingCalendarId: row.bookingCalendarId ?? null,
        managedById: row.managedById ?? null,
      }));
    },
  };
}
