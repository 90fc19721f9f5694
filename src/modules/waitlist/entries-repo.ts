import type { Expression, ExpressionBuilder, SqlBool } from 'kysely';
import type { Executor } from '../../db/database.js';
import type { Database } from '../../db/types.js';
import type { EntryRow } from './repo.js';
import type { WaitlistStatus } from './schemas.js';

/** The rows `shownStatus` shows as `status`. */
const shownAs =
  (status: WaitlistStatus) =>
  (eb: ExpressionBuilder<Database, 'waitlistEntries'>): Expression<SqlBool> => {
    if (status === 'waiting')
      return eb.or([
        eb('status', '=', 'waiting'),
        eb.and([eb('status', '=', 'offered'), eb('offerReservationId', 'is', null)]),
      ]);
    if (status === 'offered')
      return eb.and([eb('status', '=', 'offered'), eb('offerReservationId', 'is not', null)]);
    return eb('status', '=', status);
  };

/** Entries: asked for, found, listed with their place, moved from status to status. */
export function createEntriesRepo(db: Executor) {
  return {
    /** Whether `customerEmail` already waits for [startTime, endTime) in the organisation. */
    async isWaiting(
      executor: Executor,
      entry: { organisationId: number; customerEmail: string; startTime: string; endTime: string },
    ): Promise<boolean> {
      const row = await executor
        .selectFrom('waitlistEntries')
        .select('id')
        .where('organisationId', '=', entry.organisationId)
        .where('customerEmail', '=', entry.customerEmail)
        .where('startTime', '=', entry.startTime)
        .where('endTime', '=', entry.endTime)
        .where('status', '=', 'waiting')
        .executeTakeFirst();
      return row !== undefined;
    },

    async insert(executor: Executor, values: Omit<EntryRow, 'id'>): Promise<EntryRow> {
      return executor.insertInto('waitlistEntries').values(values).returningAll().executeTakeFirstOrThrow();
    },

    async find(organisationId: number, id: number): Promise<EntryRow | undefined> {
      return db
        .selectFrom('waitlistEntries')
        .selectAll()
        .where('organisationId', '=', organisationId)
        .where('id', '=', id)
        .executeTakeFirst();
    },

    async findByManageTokenHash(tokenHash: string): Promise<EntryRow | undefined> {
      return db
        .selectFrom('waitlistEntries')
        .selectAll()
        .where('manageTokenHash', '=', tokenHash)
        .executeTakeFirst();
    },

    /** The entry whose open offer `reservationId` holds (waitlist_entries_offer_idx). */
    async findOffering(organisationId: number, reservationId: number): Promise<EntryRow | undefined> {
      return db
        .selectFrom('waitlistEntries')
        .selectAll()
        .where('offerReservationId', '=', reservationId)
        .where('organisationId', '=', organisationId)
        .where('status', '=', 'offered')
        .executeTakeFirst();
    },

    async findById(id: number): Promise<EntryRow | undefined> {
      return db.selectFrom('waitlistEntries').selectAll().where('id', '=', id).executeTakeFirst();
    },

    async list(
      organisationId: number,
      filter: { resourceTypeId?: number | undefined; status?: WaitlistStatus | undefined; limit: number },
    ): Promise<EntryRow[]> {
      let q = db.selectFrom('waitlistEntries').selectAll().where('organisationId', '=', organisationId);
      if (filter.resourceTypeId !== undefined) q = q.where('resourceTypeId', '=', filter.resourceTypeId);
      if (filter.status !== undefined) q = q.where(shownAs(filter.status));
      return q.orderBy('id').limit(filter.limit).execute();
    },

    /** Where a waiting entry stands: 1 + the waiting entries for the same time and target made before it. */
    async position(row: EntryRow): Promise<number> {
      const { n } = await db
        .selectFrom('waitlistEntries')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('resourceTypeId', '=', row.resourceTypeId)
        .where(shownAs('waiting'))
        .where('startTime', '=', row.startTime)
        .where('endTime', '=', row.endTime)
        .where((eb) =>
          row.resourceId === null ? eb('resourceId', 'is', null) : eb('resourceId', '=', row.resourceId),
        )
        .where('id', '<', row.id)
        .executeTakeFirstOrThrow();
      return Number(n) + 1;
    },

    /** Moves an entry from one of `from` to `to`; undefined when it is in none of them (any more). */
    async transition(
      executor: Executor,
      id: number,
      from: readonly WaitlistStatus[],
      to: WaitlistStatus,
      now: string,
    ): Promise<EntryRow | undefined> {
      return executor
        .updateTable('waitlistEntries')
        .set({ status: to, updatedAt: now })
        .where('id', '=', id)
        .where('status', 'in', from)
        .returningAll()
        .executeTakeFirst();
    },

    /** Deletes the entries a person made (erasure): a wait is nobody's record to keep. */
    async deleteMadeBy(trx: Executor, userId: number): Promise<number> {
      const result = await trx
        .deleteFrom('waitlistEntries')
        .where('createdByUserId', '=', userId)
        .executeTakeFirst();
      return Number(result.numDeletedRows);
    },
  };
}
