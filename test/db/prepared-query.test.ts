// A named prepared statement's rows are built from the row shape kept for it, where pg would
// rebuild each column's parser on every run, and only its first run on a connection asks for
// a description of its rows. The shape must follow the statement when its columns change: a
// connection preparing it after a migration describes other columns, and one that prepared it
// before is refused by PostgreSQL rather than sent rows of another shape.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import pg from 'pg';
import type { Db } from '../../src/db/database.js';
import { preparedQueryClass } from '../../src/db/prepared-query.js';
import { createTestDatabase } from '../helpers/app.js';

// SQLite prepares statements of its own (better-sqlite3 keeps them by text).
if (process.env.TEST_DATABASE_URL)
  describe('prepared statements on PostgreSQL', () => {
    let db: Db;
    let drop: () => Promise<void>;
    before(async () => {
      ({ db, drop } = await createTestDatabase());
    });
    after(() => drop());

    test('rows follow the columns a connection describes, not a shape kept from before', async () => {
      const pool = db.pool as pg.Pool;
      await sql`create table shape_probe (id integer, label text)`.execute(db.kysely);
      await sql`insert into shape_probe values (1, '7')`.execute(db.kysely);
      const PreparedQuery = preparedQueryClass(pg, new Map());
      const read = (client: pg.PoolClient) =>
        new Promise<unknown[]>((resolve, reject) => {
          client.query(
            new PreparedQuery('shape_probe_read', 'select * from shape_probe', [], (error, result) =>
              error ? reject(error) : resolve((result as pg.QueryResult).rows),
            ) as unknown as pg.QueryConfig,
          );
        });
      const clients: pg.PoolClient[] = [];
      const connection = async () => {
        clients.push(await pool.connect());
        return clients.at(-1)!;
      };
      /** The row descriptions `client`'s connection receives while `work` runs. */
      const descriptionsDuring = async (client: pg.PoolClient, work: () => Promise<unknown>) => {
        const { connection: wire } = client as unknown as { connection: NodeJS.EventEmitter };
        let descriptions = 0;
        const count = () => descriptions++;
        wire.on('rowDescription', count);
        try {
          await work();
        } finally {
          wire.off('rowDescription', count);
        }
        return descriptions;
      };
      try {
        const first = await connection();
        const firstRuns = await descriptionsDuring(first, async () => {
          assert.deepEqual(await read(first), [{ id: 1, label: '7' }]);
          assert.deepEqual(await read(first), [{ id: 1, label: '7' }], 'the kept shape');
        });
        assert.equal(firstRuns, 1, 'the second run on the connection asks for no description');
        await sql`alter table shape_probe alter column label type integer using label::integer`.execute(
          db.kysely,
        );
        await assert.rejects(read(first), { code: '0A000' }, 'the connection that prepared it is refused');
        assert.deepEqual(await read(await connection()), [{ id: 1, label: 7 }], 'a new type, a new parser');
        await sql`alter table shape_probe add column note text`.execute(db.kysely);
        assert.deepEqual(await read(await connection()), [{ id: 1, label: 7, note: null }], 'a new column');
      } finally {
        for (const client of clients) client.release();
      }
    });
  });
