import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import {
  compiledOnce,
  createDatabase,
  type Db,
  type Executor,
  inTransaction,
  precompiled,
} from '../../src/db/database.js';
import { createTestDatabase } from '../helpers/app.js';

// Transactions through `inTransaction`: on SQLite, those that queue together share one
// COMMIT (src/db/group-commit.ts); on PostgreSQL each commits alone. What a caller sees is
// the same on both, except where a COMMIT fails (last test).

/** A table whose parent reference is checked at COMMIT: the lever for a COMMIT that fails. */
async function createProbe(db: Db): Promise<void> {
  await sql`create table group_commit_probe (
    id integer primary key,
    parent_id integer references group_commit_probe (id) deferrable initially deferred,
    label text not null
  )`.execute(db.kysely);
}

const labels = async (db: Db) =>
  (
    await db.kysely
      .selectFrom('group_commit_probe' as never)
      .select(sql<string>`label`.as('label'))
      .orderBy(sql`id`)
      .execute()
  ).map((row) => row.label);

const insert = (executor: Executor, id: number, label: string, parentId: number | null = null) =>
  sql`insert into group_commit_probe (id, parent_id, label) values (${id}, ${parentId}, ${label})`.execute(
    executor,
  );

describe('transactions that queue together', () => {
  let db: Db;
  let drop: () => Promise<void>;
  before(async () => {
    ({ db, drop } = await createTestDatabase());
    await createProbe(db);
  });
  after(() => drop());

  test('one that fails rolls back alone; the others commit, and later ones see earlier ones', async () => {
    await sql`delete from group_commit_probe`.execute(db.kysely);
    // Started in one turn of the event loop: on SQLite, one group.
    const results = await Promise.allSettled([
      inTransaction(db.kysely, async (trx) => {
        await insert(trx, 1, 'first');
        return 'first done';
      }),
      inTransaction(db.kysely, async (trx) => {
        await insert(trx, 2, 'second');
        throw new Error('second changed its mind');
      }),
      inTransaction(db.kysely, async (trx) => {
        await insert(trx, 3, 'third');
        const seen = await trx
          .selectFrom('group_commit_probe' as never)
          .select(sql<string>`label`.as('label'))
          .orderBy(sql`id`)
          .execute();
        return seen.map((row) => row.label);
      }),
    ]);
    assert.deepEqual(results[0], { status: 'fulfilled', value: 'first done' });
    assert.equal(results[1].status, 'rejected');
    assert.match(String((results[1] as PromiseRejectedResult).reason), /second changed its mind/);
    const third = results[2] as PromiseFulfilledResult<string[]>;
    assert.equal(third.status, 'fulfilled');
    assert.ok(third.value.includes('third') && !third.value.includes('second'), third.value.join());
    assert.deepEqual(await labels(db), ['first', 'third']);
  });

  test('compiled-once statements run in the member: it reads its own write, and one that fails takes its write back', async () => {
    await sql`delete from group_commit_probe`.execute(db.kysely);
    // On SQLite these run straight on the connection the group's transaction holds.
    const insertCompiled = compiledOnce(() => ({
      compile: () => sql`insert into group_commit_probe (id, label) values (${0}, ${''})`.compile(db.kysely),
    }));
    const labelOf = precompiled(() => ({
      compile: () =>
        sql<{ label: string }>`select label from group_commit_probe where id = ${0}`.compile(db.kysely),
    }));
    const results = await Promise.allSettled([
      inTransaction(db.kysely, async (trx) => {
        await insertCompiled(trx, 30, 'kept');
        return (await labelOf(trx, 30)).map((row) => row.label);
      }),
      inTransaction(db.kysely, async (trx) => {
        await insertCompiled(trx, 31, 'taken back');
        assert.deepEqual(await labelOf(trx, 31), [{ label: 'taken back' }]);
        throw new Error('changed its mind');
      }),
      inTransaction(db.kysely, async (trx) => (await labelOf(trx, 31)).length),
    ]);
    assert.deepEqual(results[0], { status: 'fulfilled', value: ['kept'] });
    assert.equal(results[1].status, 'rejected');
    assert.match(String((results[1] as PromiseRejectedResult).reason), /changed its mind/);
    assert.deepEqual(results[2], { status: 'fulfilled', value: 0 });
    assert.deepEqual(await labels(db), ['kept']);
    // A transaction kept past its commit writes nothing, directly or otherwise.
    let kept: Executor | undefined;
    await inTransaction(db.kysely, async (trx) => {
      kept = trx;
    });
    await assert.rejects(async () => insertCompiled(kept!, 32, 'late'), /already committed/);
    assert.deepEqual(await labels(db), ['kept']);
  });

  test('a statement outside them waits for their COMMIT and never reads what it undid', async () => {
    await sql`delete from group_commit_probe`.execute(db.kysely);
    let written!: () => void;
    const inside = new Promise<void>((resolve) => {
      written = resolve;
    });
    const failing = inTransaction(db.kysely, async (trx) => {
      await insert(trx, 10, 'never committed', 999);
      written();
      // Real time passes with the transaction open; the read below is issued meanwhile.
      await new Promise((resolve) => setTimeout(resolve, 30));
      return 'done';
    }).catch((error: Error) => error);
    await inside;
    const read = labels(db);
    const outcome = await failing;
    assert.ok(outcome instanceof Error, 'a COMMIT that broke a deferred reference failed');
    assert.match(outcome.message, /foreign key/i);
    assert.deepEqual(await read, []);
    assert.deepEqual(await labels(db), []);
  });

  test('when the COMMIT fails, nothing of it is written and no member is answered as done before it', async () => {
    await sql`delete from group_commit_probe`.execute(db.kysely);
    const results = await Promise.allSettled([
      inTransaction(db.kysely, (trx) => insert(trx, 20, 'before')),
      inTransaction(db.kysely, (trx) => insert(trx, 21, 'dangling', 999)),
      inTransaction(db.kysely, (trx) => insert(trx, 22, 'after')),
    ]);
    assert.equal(results[1].status, 'rejected', 'the broken reference fails its COMMIT');
    if (db.dialect === 'sqlite') {
      // One COMMIT for the three: it failed, so none of them is done, and each says so.
      assert.deepEqual(
        results.map((result) => result.status),
        ['rejected', 'rejected', 'rejected'],
      );
      assert.deepEqual(await labels(db), []);
    } else {
      assert.deepEqual(
        results.map((result) => result.status),
        ['fulfilled', 'rejected', 'fulfilled'],
      );
      assert.deepEqual(await labels(db), ['before', 'after']);
    }
  });
});

describe('SQLite: one COMMIT for a group', () => {
  const dir = mkdtempSync(join(tmpdir(), 'group-commit-'));
  const file = join(dir, 'probe.db');
  let db: Db;
  before(async () => {
    db = createDatabase(`sqlite:${file}`);
    await createProbe(db);
  });
  after(async () => {
    await db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** Pages written to the WAL since it was last reset: every COMMIT appends the pages it changed. */
  const walFrames = () => (statSync(`${file}-wal`).size - 32) / (24 + 4096);

  test('ten transactions started in one turn of the event loop write the page they share once', async () => {
    await insert(db.kysely, 1, 'warm');
    const before = walFrames();
    // Each from a callback of its own, as requests arriving together are: between two such
    // callbacks Node runs every microtask, so a transaction begun at once would be done.
    await Promise.all(
      Array.from(
        { length: 10 },
        (_, i) =>
          new Promise((resolve) =>
            setImmediate(() => resolve(inTransaction(db.kysely, (trx) => insert(trx, 100 + i, `row ${i}`)))),
          ),
      ),
    );
    assert.equal((await labels(db)).length, 11);
    assert.ok(
      walFrames() - before <= 2,
      `${walFrames() - before} pages appended for ten one-page transactions`,
    );
    // One after the other, each commits alone: a page each.
    const alone = walFrames();
    for (let i = 0; i < 3; i += 1)
      await inTransaction(db.kysely, (trx) => insert(trx, 200 + i, `alone ${i}`));
    assert.equal(walFrames() - alone, 3);
  });
});
