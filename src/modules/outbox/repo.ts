import { type Generated, sql } from 'kysely';
import type { JsonText, Timestamp } from '../../db/column-types.js';
import type { Db, Executor } from '../../db/database.js';
import type { EventType } from './schemas.js';

export interface OutboxEventsTable {
  id: Generated<number>;
  /** PostgreSQL only: the id readers see, given after commit (null until then). */
  position: number | null;
  type: EventType;
  occurredAt: Timestamp;
  organisationId: number | null;
  userId: number | null;
  /** 'record': `data` is the API record; 'reservation_row': a reservations row, mapped when read. */
  dataFormat: Generated<string>;
  data: JsonText;
}

/** An event as stored, its data not yet parsed or mapped. */
export interface StoredEvent {
  position: number;
  type: EventType;
  occurredAt: string;
  organisationId: number | null;
  userId: number | null;
  dataFormat: string;
  data: string;
}

export interface EventFilter {
  organisationId?: number;
  userId?: number;
  types?: readonly EventType[] | undefined;
  /**
   * Only events of no organisation, of these organisations, or (of any organisation) of
   * the types in `anyOrganisation`.
   */
  organisations?: { ids: readonly number[]; anyOrganisation: readonly EventType[] };
}

/** The first key of the sequencer's advisory lock ("outb"); the second is the schema's. */
const SEQUENCER_LOCK = 0x6f757462;
/** Events one sequencer run positions at most. */
const SEQUENCE_BATCH = 10_000;

export function createOutboxRepo(db: Db) {
  const pg = db.dialect === 'postgres';
  const position = pg ? 'position' : 'id';

  return {
    async insert(
      executor: Executor,
      rows: Array<Omit<OutboxEventsTable, 'id' | 'position' | 'dataFormat'>>,
    ): Promise<void> {
      if (rows.length > 0) await executor.insertInto('outboxEvents').values(rows).execute();
    },

    /**
     * PostgreSQL: gives every committed event without a position the next ones, in id
     * order. One run at a time (a transaction-scoped lock, held to commit), and each run
     * takes its values only once the one before committed, so positions commit in
     * increasing order: whatever a reader can see is every position up to the highest it
     * sees, and anything positioned later comes after it. One round trip (the function of
     * migration 0062), which only reads when none waits.
     */
    async sequence(): Promise<void> {
      if (!pg) return;
      await sql`select outbox_sequence(${sql.lit(SEQUENCER_LOCK)}, ${sql.lit(SEQUENCE_BATCH)})`.execute(
        db.kysely,
      );
    },

    /** The id of the newest event written (0: none): it grows with every event committed. */
    async lastId(): Promise<number> {
      const row = await db.kysely
        .selectFrom('outboxEvents')
        .select((eb) => eb.fn.max('id').as('id'))
        .executeTakeFirst();
      return Number(row?.id ?? 0);
    },

    /** The newest position readers can be given (0: none); call after `sequence`. */
    async lastPosition(): Promise<number> {
      const row = await db.kysely
        .selectFrom('outboxEvents')
        .select((eb) => eb.fn.max(sql.ref<number>(position)).as('position'))
        .executeTakeFirst();
      return Number(row?.position ?? 0);
    },

    /** Up to `limit` events after position `after` (null: from the first), in position order. */
    async readAfter(after: number | null, limit: number, filter: EventFilter = {}): Promise<StoredEvent[]> {
      let q = db.kysely
        .selectFrom('outboxEvents')
        .select([
          sql<number>`${sql.ref(position)}`.as('position'),
          'type',
          'occurredAt',
          'organisationId',
          'userId',
          'dataFormat',
          'data',
        ])
        .where(sql.ref(position), '>', after ?? 0);
      if (pg) q = q.where('position', 'is not', null);
      if (filter.organisationId !== undefined) q = q.where('organisationId', '=', filter.organisationId);
      if (filter.userId !== undefined) q = q.where('userId', '=', filter.userId);
      if (filter.types && filter.types.length > 0) q = q.where('type', 'in', filter.types);
      const { organisations } = filter;
      if (organisations) {
        q = q.where((eb) =>
          eb.or([
            eb('organisationId', 'is', null),
            ...(organisations.ids.length > 0 ? [eb('organisationId', 'in', organisations.ids)] : []),
            ...(organisations.anyOrganisation.length > 0
              ? [eb('type', 'in', organisations.anyOrganisation)]
              : []),
          ]),
        );
      }
      const rows = await q.orderBy(sql.ref(position)).limit(limit).execute();
      return rows.map((row) => ({ ...row, position: Number(row.position) }));
    },

    /**
     * Deletes the oldest events, up to `limit`, that occurred before `cutoff`; answers how
     * many. It reads the first `limit` ids and deletes up to the first one not yet old:
     * events are written in time order, so that is nearly all of the old ones, and one a
     * little out of order waits for the next run (they are kept at least 30 days).
     */
    async deleteBefore(cutoff: string, limit: number): Promise<number> {
      const oldest = await db.kysely
        .selectFrom('outboxEvents')
        .select(['id', 'occurredAt'])
        .orderBy('id')
        .limit(limit)
        .execute();
      const until = Date.parse(cutoff);
      const firstKept = oldest.findIndex((row) => Date.parse(row.occurredAt) >= until);
      const last = oldest[(firstKept === -1 ? oldest.length : firstKept) - 1];
      if (!last) return 0;
      const result = await db.kysely.deleteFrom('outboxEvents').where('id', '<=', last.id).executeTakeFirst();
      return Number(result.numDeletedRows);
    },
  };
}

export type OutboxRepo = ReturnType<typeof createOutboxRepo>;
