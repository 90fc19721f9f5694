import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../../../db/database.js';
import { columnsFor } from '../../../db/migrations/columns.js';

/**
 * The event outbox (issue 24, DECISIONS.md "Events, webhooks and notifications").
 *
 * - `outbox_events`: one row per event, written in the statement or transaction of its
 *   change. `data` is JSON text: the subject's API record (`data_format` 'record'), or for
 *   reservation changes the row itself ('reservation_row', without the manage token's
 *   hash), which the reservations module maps to its API record when the event is read.
 * - PostgreSQL: `position`, the id readers see, is given after commit by one sequencer at
 *   a time (service.ts), so positions become visible in increasing order and a reader never
 *   passes one that could still appear; `id` is only the insert order. SQLite has one
 *   writer: its ids commit in order and are the positions.
 * - Reservations write their events by triggers, in the very statement that changes the
 *   row (no round trip added to a booking; no write path can forget one). The rules below
 *   are the one definition of which change is which event, for both dialects.
 */

/** Every column of reservations an event carries (SQLite names them; PostgreSQL takes the whole row). */
export const RESERVATION_COLUMNS = [
  'id',
  'organisation_id',
  'resource_type_id',
  'resource_id',
  'status',
  'start_time',
  'end_time',
  'blocked_until',
  'customer_name',
  'customer_email',
  'customer_phone',
  'customer_info',
  'notes',
  'price_amount',
  'price_currency',
  'source',
  'created_by_user_id',
  'rules_overridden_by_user_id',
  'cancelled_at',
  'expires_at',
  'series_id',
  'payment_status',
  'payment_amount',
  'payment_currency',
  'payment_account_id',
  'payment_checkout_id',
  'payment_checkout_url',
  'payment_expires_at',
  'payment_id',
  'payment_refund_id',
  'created_at',
  'updated_at',
];

/** A rule: the event type a change of one reservation row writes when `when` holds, in this order. */
export interface Rule {
  type: string;
  when: string;
}

/**
 * What later migrations add to the triggers: `movedToo`, one more condition under which an
 * update with the same status is a reschedule; `partsLeftOut`, no event for a row that
 * keeps time for another reservation (reservations migration 0067).
 */
export interface TriggerAdditions {
  movedToo?: string;
  partsLeftOut?: boolean;
  /** More update rules, after these (reservations migration 0075: `reservation.no_show`). */
  updateRules?: readonly Rule[];
}

function rules(dialect: Dialect, additions: TriggerAdditions = {}): { insert: Rule[]; update: Rule[] } {
  const differs = dialect === 'postgres' ? 'is distinct from' : 'is not';
  // A move between a resource and its own lane (giving a resource lanes or taking them
  // away, resources/service.ts) is not a reschedule: the customer's booking did not move.
  const moved = `(old.resource_id is not null and new.resource_id is not null
    and old.resource_id <> new.resource_id
    and not exists (select 1 from resources r
      where (r.id = new.resource_id and r.parent_resource_id = old.resource_id)
         or (r.id = old.resource_id and r.parent_resource_id = new.resource_id)))`;
  return {
    insert: [
      { type: 'reservation.created', when: `new.status = 'confirmed'` },
      { type: 'reservation.held', when: `new.status = 'held'` },
      // A pending_payment booking is created once its checkout is attached (below): until
      // then it may still be discarded, and its record has no checkout link to show.
    ],
    update: [
      {
        type: 'payment.succeeded',
        when: `new.payment_status = 'paid' and old.payment_status ${differs} 'paid'`,
      },
      { type: 'reservation.confirmed', when: `new.status = 'confirmed' and old.status <> 'confirmed'` },
      // A paid type's hold confirmed: it waits for payment, still holding its time (decisions.md).
      { type: 'reservation.held', when: `old.status = 'held' and new.status = 'pending_payment'` },
      {
        type: 'reservation.created',
        when: `old.status = 'pending_payment' and new.status = 'pending_payment'
          and old.payment_checkout_id is null and new.payment_checkout_id is not null`,
      },
      {
        type: 'reservation.rescheduled',
        when: `new.status = old.status and (old.start_time <> new.start_time
          or old.end_time <> new.end_time or ${moved}${additions.movedToo ? ` or ${additions.movedToo}` : ''})`,
      },
      { type: 'reservation.cancelled', when: `new.status = 'cancelled' and old.status <> 'cancelled'` },
      { type: 'reservation.expired', when: `new.status = 'expired' and old.status <> 'expired'` },
      {
        type: 'payment.refunded',
        when: `new.payment_status = 'refunded' and old.payment_status ${differs} 'refunded'`,
      },
      ...(additions.updateRules ?? []),
    ],
  };
}

/** Updates that can make an event at all: the trigger does not run for any other. */
export const WATCHED = [
  'status',
  'start_time',
  'end_time',
  'resource_id',
  'payment_status',
  'payment_checkout_id',
];

export function outbox(dialect: Dialect) {
  const c = columnsFor(dialect);
  const pg = dialect === 'postgres';
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('outbox_events')
        // Ids outgrow 32 bits on a busy service (200 a second fill them in four months).
        .addColumn('id', pg ? 'bigint' : 'integer', (col) =>
          pg ? col.primaryKey().generatedByDefaultAsIdentity() : col.primaryKey().autoIncrement(),
        )
        .$call((table) => (pg ? table.addColumn('position', 'bigint') : table))
        .addColumn('type', 'text', (col) => col.notNull())
        .addColumn('occurred_at', c.timestamp, (col) => col.notNull())
        // No foreign keys: an event outlives nothing it names for long (30 days), and a
        // booking's insert checks no more rows for it.
        .addColumn('organisation_id', 'integer')
        .addColumn('user_id', 'integer')
        .addColumn('data_format', 'text', (col) => col.notNull().defaultTo('record'))
        .addColumn('data', 'text', (col) => col.notNull())
        .execute();
      const order = pg ? 'position' : 'id';
      for (const [name, columns] of [
        ['outbox_events_organisation_idx', ['organisation_id', order]],
        ['outbox_events_user_idx', ['user_id', order]],
      ] as const) {
        let index = db.schema
          .createIndex(name)
          .on('outbox_events')
          .columns([...columns]);
        if (pg) index = index.where(sql.ref('position'), 'is not', null);
        await index.execute();
      }
      await db.schema
        .createIndex('outbox_events_occurred_idx')
        .on('outbox_events')
        .column('occurred_at')
        .execute();
      if (pg) {
        await db.schema
          .createIndex('outbox_events_position_idx')
          .on('outbox_events')
          .column('position')
          .unique()
          .where(sql.ref('position'), 'is not', null)
          .execute();
        // What the sequencer finds to position: only rows that have none.
        await db.schema
          .createIndex('outbox_events_unpositioned_idx')
          .on('outbox_events')
          .column('id')
          .where(sql.ref('position'), 'is', null)
          .execute();
        // No cache: every session takes the next value, so values follow the order they are taken.
        await sql`create sequence outbox_event_positions`.execute(db);
      }
      await reservationTriggers(db, dialect);
    },
  };
}

export const EVENT_COLUMNS = 'type, occurred_at, organisation_id, user_id, data_format, data';

/**
 * PostgreSQL: the function both reservation triggers run, writing each event `rules` gives
 * with `snapshot` (an SQL expression of `new`) as its data. Migration 0040 replaces it.
 */
export async function reservationEventsFunction(
  db: Kysely<unknown>,
  verb: 'create' | 'create or replace',
  snapshot: string,
  additions: TriggerAdditions = {},
): Promise<void> {
  const { insert, update } = rules('postgres', additions);
  const values = (type: string) =>
    `values ('${type}', new.updated_at, new.organisation_id, new.created_by_user_id, 'reservation_row', snapshot)`;
  const body = (list: Rule[]) =>
    list
      .map(
        (rule) =>
          `if ${rule.when} then insert into outbox_events (${EVENT_COLUMNS}) ${values(rule.type)}; end if;`,
      )
      .join('\n');
  // search_path pinned: writers with another search_path still find the table.
  await sql
    .raw(`${verb} function outbox_reservation_events() returns trigger language plpgsql
      set search_path from current as $$
      declare snapshot text := ${snapshot};
      begin
        if tg_op = 'INSERT' then ${body(insert)}
        else ${body(update)}
        end if;
        return null;
      end $$`)
    .execute(db);
}

async function reservationTriggers(db: Kysely<unknown>, dialect: Dialect) {
  if (dialect === 'postgres') {
    await reservationEventsFunction(db, 'create', `(to_jsonb(new) - 'manage_token_hash')::text`);
    await pgReservationTriggers(db, WATCHED);
    return;
  }
  await sqliteReservationTriggers(db, RESERVATION_COLUMNS, WATCHED);
}

/** PostgreSQL: the two reservation triggers running the function above on updates of `watched`. */
export async function pgReservationTriggers(
  db: Kysely<unknown>,
  watched: readonly string[],
  additions: TriggerAdditions = {},
): Promise<void> {
  const parts = additions.partsLeftOut ? 'new.part_of is null and ' : '';
  await sql
    .raw(`create trigger outbox_reservations_insert after insert on reservations for each row
      when (${parts}new.status in ('confirmed', 'held')) execute function outbox_reservation_events()`)
    .execute(db);
  await sql
    .raw(`create trigger outbox_reservations_update after update on reservations for each row
      when (${parts}(${watched.map((col) => `old.${col} is distinct from new.${col}`).join(' or ')}))
      execute function outbox_reservation_events()`)
    .execute(db);
}

/**
 * SQLite: the two reservation triggers, storing `columns` of the row in each event and
 * running on updates of `watched`. Later migrations drop them and call this again.
 */
export async function sqliteReservationTriggers(
  db: Kysely<unknown>,
  columns: readonly string[],
  watched: readonly string[],
  additions: TriggerAdditions = {},
): Promise<void> {
  const { insert, update } = rules('sqlite', additions);
  const row = `json_object(${columns.map((col) => `'${col}', new.${col}`).join(', ')})`;
  const body = (list: Rule[]) =>
    list
      .map(
        (rule) => `insert into outbox_events (${EVENT_COLUMNS})
          select '${rule.type}', new.updated_at, new.organisation_id, new.created_by_user_id, 'reservation_row', ${row}
          where ${rule.when};`,
      )
      .join('\n');
  const parts = additions.partsLeftOut ? 'new.part_of is null and ' : '';
  await sql
    .raw(`create trigger outbox_reservations_insert after insert on reservations for each row
      when ${parts}new.status in ('confirmed', 'held') begin ${body(insert)} end`)
    .execute(db);
  await sql
    .raw(`create trigger outbox_reservations_update after update on reservations for each row
      when ${parts}(${watched.map((col) => `old.${col} is not new.${col}`).join(' or ')})
      begin ${body(update)} end`)
    .execute(db);
}
