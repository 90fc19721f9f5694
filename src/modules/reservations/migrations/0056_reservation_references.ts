import { type Kysely, type Migration, sql } from 'kysely';
import type { Dialect } from '../../../db/database.js';
import { newReference } from '../reference.js';

/** Rows given their reference by one statement. */
const BATCH = 500;

/** The outbox's SQLite triggers (outbox migration 0023), which name each column they store. */
const SQLITE_EVENT_TRIGGERS = ['outbox_reservations_insert', 'outbox_reservations_update'];
/** The last column those triggers store, and the same with the reference after it. */
const LAST_STORED = `'updated_at', new.updated_at)`;
const WITH_REFERENCE = `'updated_at', new.updated_at, 'reference', new.reference)`;

/**
 * A public reference on every reservation (DECISIONS.md "Pages people live in"): eight
 * random characters, unique per organisation, shown to customers instead of the sequential
 * id. Existing reservations get one here. The column defaults to '' and the unique index
 * leaves '' out, so a row written by hand (a test's or a bench's fixture) needs none; every
 * booking writes one. A reservation event's stored row carries it: PostgreSQL's trigger
 * stores the whole row, SQLite's are written again with the column added.
 */
export function reservationReferences(dialect: Dialect): Migration {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .alterTable('reservations')
        .addColumn('reference', 'text', (col) => col.notNull().defaultTo(''))
        .execute();
      await giveEveryReservationOne(db);
      await db.schema
        .createIndex('reservations_reference_idx')
        .on('reservations')
        .columns(['organisation_id', 'reference'])
        .unique()
        .where(sql.ref('reference'), '<>', '')
        .execute();
      if (dialect === 'sqlite') await storeReferenceInSqliteEvents(db);
    },
  };
}

/** Gives each reservation (in id order) a reference, unique in its organisation. */
export async function giveEveryReservationOne(db: Kysely<unknown>): Promise<void> {
  const given = new Map<number, Set<string>>();
  for (let after = 0; ; ) {
    const { rows } = await sql<{ id: number; organisation_id: number }>`
      select id, organisation_id from reservations where id > ${after} order by id limit ${BATCH}`.execute(
      db,
    );
    if (rows.length === 0) return;
    const cases = rows.map((row) => {
      const taken = given.get(row.organisation_id) ?? new Set<string>();
      given.set(row.organisation_id, taken);
      let reference = newReference();
      while (taken.has(reference)) reference = newReference();
      taken.add(reference);
      return sql`when ${row.id} then ${reference}`;
    });
    const ids = rows.map((row) => row.id);
    await sql`update reservations set reference = case id ${sql.join(cases, sql` `)} end
      where id in (${sql.join(ids)})`.execute(db);
    after = ids[ids.length - 1]!;
  }
}

async function storeReferenceInSqliteEvents(db: Kysely<unknown>): Promise<void> {
  for (const name of SQLITE_EVENT_TRIGGERS) {
    const { rows } = await sql<{ sql: string }>`
      select sql from sqlite_master where type = 'trigger' and name = ${name}`.execute(db);
    const created = rows[0]?.sql;
    if (!created?.includes(LAST_STORED)) throw new Error(`Trigger ${name} is not as migration 0023 made it`);
    await sql.raw(`drop trigger ${name}`).execute(db);
    await sql.raw(created.replaceAll(LAST_STORED, WITH_REFERENCE)).execute(db);
  }
}
