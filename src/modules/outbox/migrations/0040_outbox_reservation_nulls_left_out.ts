import type { Kysely, Migration } from 'kysely';
import type { Dialect } from '../../../db/database.js';
import { reservationEventsFunction } from './0023_outbox.js';

/**
 * PostgreSQL: a reservation event's stored row leaves out its null columns (about half of a
 * booking's), so each event is written, and rewritten when the sequencer gives it its
 * position, at about half the size (issue 24: the outbox's cost per booking). The mapper
 * (reservations `reservationOfStoredRow`) reads a missing column as null, so rows stored
 * before read the same. SQLite writes its rows in the statement's own process and keeps them.
 */
export function outboxReservationNullsLeftOut(dialect: Dialect): Migration {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      if (dialect !== 'postgres') return;
      await reservationEventsFunction(
        db,
        'create or replace',
        `jsonb_strip_nulls(to_jsonb(new) - 'manage_token_hash')::text`,
      );
    },
  };
}
