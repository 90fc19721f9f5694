import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { compiledOnce } from '../../src/db/database.js';
import { createTestApp, registerUser, type TestApp } from '../helpers/app.js';

// Compiled-once statements (the auth guard's user read among them) run directly on
// SQLite's one connection, past Kysely's executor, unless a transaction holds it.
let t: TestApp;
before(async () => {
  t = await createTestApp();
});
after(() => t.close());

const me = (auth: Record<string, string>) =>
  t.app.inject({ method: 'GET', url: '/api/auth/me', headers: auth });

test("a read while another request's transaction is open never sees its uncommitted rows", async () => {
  const user = await registerUser(t.app, 'Committed Name');
  let release!: () => void;
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  let written!: () => void;
  const inside = new Promise<void>((resolve) => {
    written = resolve;
  });
  const rolledBack = t.db.kysely
    .transaction()
    .execute(async (trx) => {
      await trx.updateTable('users').set({ name: 'Uncommitted Name' }).where('id', '=', user.id).execute();
      written();
      await released;
      throw new Error('roll back');
    })
    .catch((error: Error) => error.message);
  await inside;
  const reading = me(user.auth);
  // Long enough for the request to reach its user read while the transaction is open.
  await new Promise((resolve) => setTimeout(resolve, 50));
  release();
  assert.equal(await rolledBack, 'roll back');
  const answer = await reading;
  assert.equal(answer.statusCode, 200, answer.body);
  assert.equal(answer.json().name, 'Committed Name');
});

test('a read right after a committed write sees it', async () => {
  const user = await registerUser(t.app, 'Before');
  await t.db.kysely.updateTable('users').set({ name: 'After' }).where('id', '=', user.id).execute();
  assert.equal((await me(user.auth)).json().name, 'After');
});

test('a compiled-once write answers as through Kysely, and a failing one rejects rather than throws', async () => {
  const user = await registerUser(t.app);
  let builds = 0;
  const insertUser = compiledOnce(() => {
    builds += 1;
    return t.db.kysely.insertInto('users').values({
      email: '',
      name: '',
      passwordHash: '',
      plan: 'STORE',
      isGlobalAdmin: false,
      createdAt: '',
      updatedAt: '',
    });
  });
  // Built at the first run, not when declared: a repo made per transaction declares statements it never runs.
  assert.equal(builds, 0);
  const now = new Date().toISOString();
  // The parameters in the order they appear in the SQL.
  const insert = (email: string) =>
    insertUser(t.db.kysely, email, 'Twin', 'not a hash', 'STORE', false, now, now);
  const duplicate = insert(user.email);
  assert.ok(duplicate instanceof Promise);
  await assert.rejects(duplicate, /unique/i);
  const inserted = await insert(`other-${user.email}`);
  assert.equal(inserted.numAffectedRows, 1n);
  assert.equal(builds, 1);
  const stored = await t.db.kysely
    .selectFrom('users')
    .select('name')
    .where('email', '=', `other-${user.email}`)
    .executeTakeFirst();
  assert.equal(stored?.name, 'Twin');
});
