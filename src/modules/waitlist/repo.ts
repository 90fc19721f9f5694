import type { Expression, ExpressionBuilder, Generated, Selectable, SqlBool } from 'kysely';
import type { Executor } from '../../db/database.js';
import type { Database } from '../../db/types.js';
import { customerRecordOf } from '../reservations/answers.js';
import type { WaitlistEntry, WaitlistStatus } from './schemas.js';

export interface WaitlistEntriesTable {
  id: Generated<number>;
  organisationId: number;
  resourceTypeId: number;
  /** The resource asked for; null for the type's pool. */
  resourceId: number | null;
  startTime: string;
  endTime: string;
  customerName: string;
  customerEmail: string;
  customerPhone: string | null;
  /** The answers to the type's customerInfoFields and (as `answers`) to its questions, as JSON text. */
  customerInfo: string;
  notes: string | null;
  status: WaitlistStatus;
  /** While offered (and after): the held reservation of the offer. */
  offerReservationId: number | null;
  offerExpiresAt: string | null;
  source: string;
  createdByUserId: number | null;
  /** SHA-256 of the customer's manage token; its offer's hold carries the same. */
  manageTokenHash: string | null;
  /** The token sealed for its mails (reservations/manage-link.ts); null on entries stored before 0057. */
  manageTokenSealed: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface WaitlistConsumerTable {
  name: string;
  /** The last outbox event id handled; null before the first. */
  position: string | null;
  /** The run holding the lease, and until when. */
  claim: string | null;
  claimedUntil: string | null;
}

export type EntryRow = Selectable<WaitlistEntriesTable>;
const CONSUMER = 'offers';

/**
 * What an entry is to its readers. An entry the offer consumer has claimed but not yet linked to
 * a hold (`offered` without a reservation: the hold is being tried, and is let go if the time does
 * not fit) is still waiting: no offer exists yet, and it keeps its place.
 */
export function shownStatus(row: Pick<EntryRow, 'status' | 'offerReservationId'>): WaitlistStatus {
  return row.status === 'offered' && row.offerReservationId === null ? 'waiting' : row.status;
}

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

export function toEntry(row: EntryRow, position: number | null): WaitlistEntry {
  return {
    id: row.id,
    status: shownStatus(row),
    position,
    resourceId: row.resourceId,
    resourceTypeId: row.resourceTypeId,
    startTime: row.startTime,
    endTime: row.endTime,
    customer: customerRecordOf(row),
    offer:
      row.offerReservationId !== null && row.status !== 'waiting'
        ? { reservationId: row.offerReservationId, expiresAt: row.offerExpiresAt }
        : null,
    createdAt: row.createdAt,
  };
}

export function createWaitlistRepo(db: Executor) {
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

    /** The waiting entries of a type whose time is still ahead at `now`, oldest first. */
    async waitingOfType(resourceTypeId: number, now: string): Promise<EntryRow[]> {
      return db
        .selectFrom('waitlistEntries')
        .selectAll()
        .where('resourceTypeId', '=', resourceTypeId)
        .where('status', '=', 'waiting')
        .where('startTime', '>', now)
        .orderBy('id')
        .execute();
    },

    /** Every type with a waiting entry ahead at `now` (the periodic pass: capacity raised, missed events). */
    async typesWaiting(now: string): Promise<Array<{ organisationId: number; resourceTypeId: number }>> {
      return db
        .selectFrom('waitlistEntries')
        .select(['organisationId', 'resourceTypeId'])
        .where('status', '=', 'waiting')
        .where('startTime', '>', now)
        .groupBy(['organisationId', 'resourceTypeId'])
        .execute();
    },

    /**
     * Claims a waiting entry for an offer (waiting -> offered, no reservation yet): of two
     * runs, one claims it. An offer whose hold could not be made goes back to waiting.
     */
    async claimOffer(id: number, now: string): Promise<boolean> {
      const result = await db
        .updateTable('waitlistEntries')
        .set({ status: 'offered', offerReservationId: null, offerExpiresAt: null, updatedAt: now })
        .where('id', '=', id)
        .where('status', '=', 'waiting')
        .executeTakeFirst();
      return Number(result.numUpdatedRows) > 0;
    },

    async unclaimOffer(id: number, now: string): Promise<void> {
      await db
        .updateTable('waitlistEntries')
        .set({ status: 'waiting', updatedAt: now })
        .where('id', '=', id)
        .where('status', '=', 'offered')
        .where('offerReservationId', 'is', null)
        .execute();
    },

    /** Offers claimed but never linked to their hold (a run that stopped in between), claimed before `before`. */
    async unlinkedOffers(before: string): Promise<EntryRow[]> {
      return db
        .selectFrom('waitlistEntries')
        .selectAll()
        .where('status', '=', 'offered')
        .where('offerReservationId', 'is', null)
        .where('updatedAt', '<', before)
        .execute();
    },

    async linkOffer(
      executor: Executor,
      id: number,
      offer: { reservationId: number; expiresAt: string | null },
      now: string,
    ): Promise<EntryRow | undefined> {
      return executor
        .updateTable('waitlistEntries')
        .set({ offerReservationId: offer.reservationId, offerExpiresAt: offer.expiresAt, updatedAt: now })
        .where('id', '=', id)
        .where('status', '=', 'offered')
        .returningAll()
        .executeTakeFirst();
    },

    async byOffer(reservationId: number): Promise<EntryRow | undefined> {
      return db
        .selectFrom('waitlistEntries')
        .selectAll()
        .where('offerReservationId', '=', reservationId)
        .executeTakeFirst();
    },

    /** Whether any entry waits or holds an offer (none: the consumer has nothing to settle or offer). */
    async anyOpen(): Promise<boolean> {
      const row = await db
        .selectFrom('waitlistEntries')
        .select('id')
        .where('status', 'in', ['waiting', 'offered'])
        .limit(1)
        .executeTakeFirst();
      return row !== undefined;
    },

    // ---- the consumer's lease and position ----

    /** Takes the lease until `until` when nobody holds it at `now`; answers the position, or undefined. */
    async claimLease(
      claim: string,
      now: string,
      until: string,
    ): Promise<{ position: string | null } | undefined> {
      return db
        .updateTable('waitlistConsumer')
        .set({ claim, claimedUntil: until })
        .where('name', '=', CONSUMER)
        .where((eb) => eb.or([eb('claimedUntil', 'is', null), eb('claimedUntil', '<', now)]))
        .returning('position')
        .executeTakeFirst();
    },

    /** Moves the position to `to` while nobody holds the lease (an idle consumer skipping events); one statement. */
    async skipTo(to: string, now: string): Promise<void> {
      await db
        .updateTable('waitlistConsumer')
        .set({ position: to })
        .where('name', '=', CONSUMER)
        .where((eb) => eb.or([eb('claimedUntil', 'is', null), eb('claimedUntil', '<', now)]))
        .where((eb) => eb.or([eb('position', 'is', null), eb('position', '!=', to)]))
        .execute();
    },

    /** Moves the position on, while `claim` still holds the lease (extending it to `until`). */
    async advance(claim: string, to: string, until: string): Promise<boolean> {
      const result = await db
        .updateTable('waitlistConsumer')
        .set({ position: to, claimedUntil: until })
        .where('name', '=', CONSUMER)
        .where('claim', '=', claim)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) > 0;
    },

    async releaseLease(claim: string): Promise<void> {
      await db
        .updateTable('waitlistConsumer')
        .set({ claim: null, claimedUntil: null })
        .where('name', '=', CONSUMER)
        .where('claim', '=', claim)
        .execute();
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
