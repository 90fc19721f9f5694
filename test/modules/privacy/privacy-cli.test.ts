import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../../src/app.js';
import { loadConfig } from '../../../src/config.js';
import { registerUser, type SignedInUser, TEST_ENV } from '../../helpers/app.js';
import { nodeArgsFor } from '../../helpers/entry-points.js';
import { ok } from '../../helpers/http.js';
import { PRIVACY } from '../../helpers/privacy.js';

// The operator's commands, run as the real CLI process on a SQLite file that an
// in-test app shares (requests are made over HTTP, as people make them).
const dir = mkdtempSync(join(tmpdir(), 'rs-privacy-cli-'));
const env = {
  ...process.env,
  ...TEST_ENV,
  DATABASE_URL: `sqlite:${join(dir, 'service.db')}`,
  PAYMENT_API_BASE: 'http://127.0.0.1:9',
  PAYMENT_SECRET_KEY: 'sk_test_privacy_cli',
};
const cli = (...args: string[]) =>
  spawnSync(process.execPath, [...nodeArgsFor('src/cli.ts'), ...args], { env, encoding: 'utf8' });

describe('privacy operator commands', () => {
  let app: FastifyInstance;
  let person: SignedInUser;
  let other: SignedInUser;
  const ids: Record<'export' | 'delete' | 'others', number> = { export: 0, delete: 0, others: 0 };

  before(async () => {
    app = await buildApp(loadConfig({ ...TEST_ENV, DATABASE_URL: env.DATABASE_URL }), { logger: false });
    await app.ready();
    person = await registerUser(app, 'Cli Person');
    other = await registerUser(app, 'Cli Other');
    ids.export = (
      await ok(app, person, 'POST', `${PRIVACY}/requests`, {
        requestType: 'export',
        reason: 'for my records',
      })
    ).id;
    ids.delete = (
      await ok(app, person, 'POST', `${PRIVACY}/requests`, {
        requestType: 'delete',
        confirmEmail: person.email,
      })
    ).id;
    ids.others = (await ok(app, other, 'POST', `${PRIVACY}/requests`, { requestType: 'access' })).id;
  });
  after(async () => {
    await app.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test('privacy:requests lists every person’s requests, with the route’s filters', () => {
    const all = cli('privacy:requests');
    assert.equal(all.status, 0, all.stderr);
    assert.match(all.stdout, /^id\ttype\tstatus\tuser\tcreated\tupdated$/m);
    for (const id of Object.values(ids)) assert.match(all.stdout, new RegExp(`^${id}\\t`, 'm'));
    assert.match(all.stdout, /3 of 3 request\(s\)/);
    const deletes = cli(
      'privacy:requests',
      '--requestTypes=delete,export',
      '--statuses',
      'pending',
      '--limit=1',
    );
    assert.equal(deletes.status, 0, deletes.stderr);
    assert.match(deletes.stdout, new RegExp(`^${ids.delete}\\tdelete\\tpending\\t${person.id}\\t`, 'm'));
    assert.match(deletes.stdout, /1 of 2 request\(s\)/);
    const searched = cli('privacy:requests', '--search=RECORDS');
    assert.match(searched.stdout, /1 of 1 request\(s\)/);
    const bad = cli('privacy:requests', '--limit=0');
    assert.equal(bad.status, 1);
    assert.match(bad.stderr, /limit/);
    assert.equal(cli('privacy:requests', '--statuses=done').status, 1);
    assert.equal(cli('privacy:requests', 'stray').status, 1);
  });

  test('privacy:show names the person and the audit trail', () => {
    const shown = cli('privacy:show', String(ids.export));
    assert.equal(shown.status, 0, shown.stderr);
    assert.match(shown.stdout, new RegExp(`Request ${ids.export}: export, pending`));
    assert.match(shown.stdout, new RegExp(`user: ${person.id} <${person.email}> Cli Person`));
    assert.match(shown.stdout, /reason: for my records/);
    assert.match(shown.stdout, /created by person/);
    const missing = cli('privacy:show', '999999');
    assert.equal(missing.status, 1);
    assert.match(missing.stderr, /not found/);
    assert.match(cli('privacy:show', 'abc').stderr, /Usage/);
  });

  test('privacy:reject needs a reason and a request still open', async () => {
    assert.equal(cli('privacy:reject', String(ids.others)).status, 1);
    const rejected = cli('privacy:reject', String(ids.others), 'Identity', 'not', 'confirmed');
    assert.equal(rejected.status, 0, rejected.stderr);
    assert.match(rejected.stdout, /is rejected/);
    const again = cli('privacy:reject', String(ids.others), 'again');
    assert.equal(again.status, 1);
    assert.match(again.stderr, /rejected/);
    const seen = await ok(app, other, 'GET', `${PRIVACY}/requests/${ids.others}`);
    assert.deepEqual([seen.status, seen.resolution], ['rejected', 'Identity not confirmed']);
  });

  test('privacy:process serves an export request, then erases the person for a delete request', async () => {
    const served = cli('privacy:process', String(ids.export));
    assert.equal(served.status, 0, served.stderr);
    assert.match(served.stdout, new RegExp(`Request ${ids.export} is completed: export_served`));
    assert.equal((await ok(app, person, 'GET', `${PRIVACY}/requests/${ids.export}`)).status, 'completed');

    const erased = cli('privacy:process', String(ids.delete));
    assert.equal(erased.status, 0, erased.stderr);
    assert.match(erased.stdout, new RegExp(`Request ${ids.delete} is completed: erased .*"verified":true`));
    assert.equal(
      (await app.inject({ method: 'GET', url: '/api/auth/me', headers: person.auth })).statusCode,
      401,
    );
    const shown = cli('privacy:show', String(ids.delete));
    assert.match(shown.stdout, /user: \(erased\)/);
    assert.ok(!shown.stdout.includes(person.email));
    const listed = cli('privacy:requests', '--statuses=completed');
    assert.match(listed.stdout, new RegExp(`^${ids.delete}\\tdelete\\tcompleted\\t\\(erased\\)`, 'm'));
    const twice = cli('privacy:process', String(ids.delete));
    assert.equal(twice.status, 1);
    assert.match(twice.stderr, /is completed/);
  });
});
