import { type Kysely, type Migration, sql } from 'kysely';
import type { Dialect } from '../../../db/database.js';
import {
  pgReservationTriggers,
  RESERVATION_COLUMNS,
  reservationEventsFunction,
  sqliteReservationTriggers,
  type TriggerAdditions,
  WATCHED,
} from '../../outbox/migrations/0023_outbox.js';

/**
 * Collective reservations (DECISIONS.md "Teams"): one reservation over 2-5 resources.
 *
 * - The reservation is one row, as any other; `resource_ids` lists its resources in the
 *   order booked (null on a reservation of one resource).
 * - Each other resource's time is kept by a part: a row of its own on that resource's lane
 *   with `part_of` naming the reservation, so the lane's reads, its exclusion constraint
 *   (PostgreSQL) and every availability answer see that time taken without knowing of
 *   collectives. A part carries no customer and no reference; reads of reservations leave
 *   parts out.
 * - Parts follow their reservation: a trigger copies its status, expiry and cancellation to
 *   them in the statement that changes it (confirm, cancel, expire, payment), so no write
 *   path can leave a part keeping time its reservation gave up.
 * - Events: a part writes none; a reservation's stored row carries `resource_ids` (and on
 *   SQLite, whose triggers name their columns, the pool assignment of migration 0066 too),
 *   and a change of its resources alone is a reschedule.
 */
export function collectiveReservations(dialect: Dialect): Migration {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema.alterTable('reservations').addColumn('part_of', 'integer').execute();
      await db.schema.alterTable('reservations').addColumn('resource_ids', 'text').execute();
      await db.schema
        .createIndex('reservations_part_of_idx')
        .on('reservations')
        .column('part_of')
        .where(sql.ref('part_of'), 'is not', null)
        .execute();
      await partsFollowTheirReservation(db, dialect);
      await eventsLeaveOutParts(db, dialect);
    },
  };
}

/** What a part copies from its reservation whenever one of them changes. */
const FOLLOWED = ['status', 'expires_at', 'cancelled_at'];

async function partsFollowTheirReservation(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  const set = [...FOLLOWED, 'updated_at'].map((col) => `${col} = new.${col}`).join(', ');
  if (dialect === 'sqlite') {
    await sql
      .raw(`create trigger reservations_parts_follow after update on reservations for each row
        when new.resource_ids is not null and (${FOLLOWED.map((col) => `old.${col} is not new.${col}`).join(' or ')})
        begin update reservations set ${set} where part_of = new.id; end`)
      .execute(db);
    return;
  }
  await sql
    .raw(`create function reservations_parts_follow() returns trigger language plpgsql
      set search_path from current as $$
      begin
        update reservations set ${set} where part_of = new.id;
        return null;
      end $$`)
    .execute(db);
  await sql
    .raw(`create trigger reservations_parts_follow after update on reservations for each row
      when (new.resource_ids is not null and (${FOLLOWED.map((col) => `old.${col} is distinct from new.${col}`).join(' or ')}))
      execute function reservations_parts_follow()`)
    .execute(db);
}

async function eventsLeaveOutParts(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  const watched = [...WATCHED, 'resource_ids'];
  const moved = dialect === 'postgres' ? 'is distinct from' : 'is not';
  const additions: TriggerAdditions = {
    partsLeftOut: true,
    movedToo: `old.resource_ids ${moved} new.resource_ids`,
  };
  for (const trigger of ['outbox_reservations_insert', 'outbox_reservations_update'])
    await sql.raw(`drop trigger ${trigger}${dialect === 'postgres' ? ' on reservations' : ''}`).execute(db);
  if (dialect === 'sqlite') {
    const columns = [
      ...RESERVATION_COLUMNS,
      'reference',
      'assignment_strategy',
      'assignment_reason',
      'resource_ids',
    ];
    await sqliteReservationTriggers(db, columns, watched, additions);
    return;
  }
  await reservationEventsFunction(
    db,
    'create or replace',
    `jsonb_strip_nulls(to_jsonb(new) - 'manage_token_hash' - 'manage_token_sealed' - 'part_of')::text`,
    additions,
  );
  await pgReservationTriggers(db, watched, additions);
}
