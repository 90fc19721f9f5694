import { sql } from 'kysely';
import { type Executor, precompiled } from '../../db/database.js';
import { calendarSharesSeenBy } from '../user-groups/ports.js';
import type { Calendar } from './schemas.js';

const calendarColumns = [
  'calendars.id',
  'calendars.ownerId',
  'calendars.name',
  'calendars.color',
  'calendars.timezone',
  'calendars.description',
  'calendars.isDefault',
  'calendars.createdAt',
  'calendars.updatedAt',
] as const;

interface CalendarRow {
  id: number;
  ownerId: number;
  name: string;
  color: string;
  timezone: string;
  description: string | null;
  isDefault: boolean | number;
  createdAt: string;
  updatedAt: string;
}

/** A calendar as the given user sees it. */
export function toCalendar(row: CalendarRow, viewerId: number): Calendar {
  return {
    ...row,
    isDefault: Boolean(row.isDefault),
    accessRole: row.ownerId === viewerId ? 'owner' : 'reader',
  };
}

export interface CalendarValues {
  name: string;
  color: string;
  timezone: string;
  description: string | null;
  isDefault: boolean;
}

/**
 * Limits of a read. `groupIds` limits which groups a shared calendar may be seen
 * through; `calendarIds` limits the calendars. Undefined means no limit; the
 * service never passes empty arrays (it answers "nothing" without a query).
 */
export interface ReadLimits {
  calendarIds?: readonly number[] | undefined;
  groupIds?: readonly number[] | undefined;
}

export function createCalendarRepo(db: Executor) {
  /**
   * The calendar `userId` owns or reads through a group it and the owner are in (only through
   * `groupIds` when given; none when empty).
   */
  const readable = (calendarId: number, userId: number, groupIds: readonly number[] | undefined) =>
    db
      .selectFrom('calendars')
      .select(calendarColumns)
      .where('calendars.id', '=', calendarId)
      .where((eb) =>
        eb.or([
          eb('calendars.ownerId', '=', userId),
          ...(groupIds?.length === 0
            ? []
            : [
                eb.exists(
                  eb
                    .selectFrom(calendarSharesSeenBy(db, userId, groupIds).as('s'))
                    .select(sql.lit(1).as('one'))
                    .whereRef('s.calendarId', '=', 'calendars.id')
                    .whereRef('s.memberId', '=', 'calendars.ownerId'),
                ),
              ]),
        ]),
      );
  const owned = (ownerId: number) =>
    db.selectFrom('calendars').select(calendarColumns).where('calendars.ownerId', '=', ownerId);
  /** Other people's calendars shared with `userId` through groups both are in, within `limits`. */
  const shared = (userId: number, limits: ReadLimits) =>
    db
      .selectFrom('calendars')
      .innerJoin(calendarSharesSeenBy(db, userId, limits.groupIds).as('s'), (join) =>
        join.onRef('s.calendarId', '=', 'calendars.id').onRef('s.memberId', '=', 'calendars.ownerId'),
      )
      .select(calendarColumns)
      .distinct()
      .where('calendars.ownerId', '!=', userId)
      .$if(limits.calendarIds !== undefined, (qb) => qb.where('calendars.id', 'in', limits.calendarIds!));
  // The same reads without limits (a person, or an agent with unscoped access), compiled once:
  // building them was about a tenth of an MCP calendar_list call (docs/performance.md). Parameters
  // in the order they appear in the SQL.
  const selectReadable = precompiled(() => readable(0, 0, undefined));
  const selectOwned = precompiled(() => owned(0));
  const selectVisible = precompiled(() => owned(0).unionAll(shared(0, {})));

  return {
    async insert(ownerId: number, values: CalendarValues, now: string): Promise<Calendar> {
      const row = await db
        .insertInto('calendars')
        .values({ ownerId, ...values, createdAt: now, updatedAt: now })
        .returning(calendarColumns)
        .executeTakeFirstOrThrow();
      return toCalendar(row, ownerId);
    },

    /**
     * The calendar when the user owns it or it is shared with them through a group (within limits).
     * A share counts only while both the reader and the calendar's owner are members of the group.
     */
    async findReadable(
      userId: number,
      calendarId: number,
      limits: ReadLimits,
    ): Promise<Calendar | undefined> {
      const [row] =
        limits.groupIds === undefined
          ? await selectReadable(db, calendarId, userId, userId)
          : await readable(calendarId, userId, limits.groupIds).execute();
      return row && toCalendar(row, userId);
    },

    /** A calendar by id, as its owner sees it (no actor: a feed URL is its own credential). */
    async findById(calendarId: number): Promise<Calendar | undefined> {
      const row = await db
        .selectFrom('calendars')
        .select(calendarColumns)
        .where('id', '=', calendarId)
        .executeTakeFirst();
      return row && toCalendar(row, row.ownerId);
    },

    /** Whether `ownerId` owns the calendar (no actor: resources check a manager's booking calendar). */
    async isOwnedBy(calendarId: number, ownerId: number): Promise<boolean> {
      const row = await db
        .selectFrom('calendars')
        .select('id')
        .where('id', '=', calendarId)
        .where('ownerId', '=', ownerId)
        .executeTakeFirst();
      return row !== undefined;
    },

    async listOwned(ownerId: number, calendarIds?: readonly number[]): Promise<Calendar[]> {
      const rows =
        calendarIds === undefined
          ? await selectOwned(db, ownerId)
          : await owned(ownerId).where('calendars.id', 'in', calendarIds).execute();
      return rows.map((row) => toCalendar(row, ownerId));
    },

    /**
     * The user's own calendars within `calendarIds`, and other people's shared with them through
     * groups both are in, within both limits: one statement (a round trip on PostgreSQL, not two).
     */
    async listVisible(
      userId: number,
      limits: ReadLimits,
    ): Promise<{ owned: Calendar[]; shared: Calendar[] }> {
      const rows =
        limits.calendarIds === undefined && limits.groupIds === undefined
          ? await selectVisible(db, userId, userId, userId)
          : await owned(userId)
              .$if(limits.calendarIds !== undefined, (qb) =>
                qb.where('calendars.id', 'in', limits.calendarIds!),
              )
              .unionAll(shared(userId, limits))
              .execute();
      const calendars = rows.map((row) => toCalendar(row, userId));
      return {
        owned: calendars.filter((calendar) => calendar.accessRole === 'owner'),
        shared: calendars.filter((calendar) => calendar.accessRole !== 'owner'),
      };
    },

    async update(
      id: number,
      ownerId: number,
      values: Partial<CalendarValues>,
      now: string,
    ): Promise<Calendar> {
      const row = await db
        .updateTable('calendars')
        .set({ ...values, updatedAt: now })
        .where('id', '=', id)
        .returning(calendarColumns)
        .executeTakeFirstOrThrow();
      return toCalendar(row, ownerId);
    },

    /** Clears the owner's default flag (before setting it elsewhere: one default per owner). */
    async clearDefault(ownerId: number, now: string): Promise<void> {
      await db
        .updateTable('calendars')
        .set({ isDefault: false, updatedAt: now })
        .where('ownerId', '=', ownerId)
        .where('isDefault', '=', true)
        .execute();
    },

    /** Deletes a calendar that is not its owner's default; answers whether it did. */
    async deleteUnlessDefault(id: number): Promise<boolean> {
      const result = await db
        .deleteFrom('calendars')
        .where('id', '=', id)
        .where('isDefault', '=', false)
        .executeTakeFirst();
      return Number(result.numDeletedRows) === 1;
    },
  };
}
