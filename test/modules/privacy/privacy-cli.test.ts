import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../../src/app.js';
import { loadConfig } from '../../../src/config.js';
import { registerUser, type SignedInUser, TEST_ENV } from '../../helpers/app.js';
import { cliInProcess, cliProcess } from '../../helpers/cli.js';
import { ok } from '../../helpers/http.js';
import { PRIVACY } from '../../helpers/privacy.js';

// The operator's commands on a SQLite file that an in-test app shares (requests are made over
// HTTP, as people make them): once as the real CLI process, the rest in this process as the CLI
// runs them (a process start costs seconds; test/process.test.ts covers the CLI's own wiring).
const dir = mkdtempSync(join(tmpdir(), 'rs-privacy-cli-'));
const env = {
  ...process.env,
  ...TEST_ENV,
  DATABASE_URL: `sqlite:${join(dir, 'service.db')}`,
  PAYMENT_API_BASE: 'http://127.0.0.1:9',
  PAYMENT_SECRET_KEY: 'sk_test_privacy_cli',
};
describe('privacy operator commands', () => {
  let app: FastifyInstance;
  let person: SignedInUser;
  let other: SignedInUser;
  const ids: Record<'export' | 'delete' | 'others', number> = { export: 0, delete: 0, others: 0 };

  const cli = (command: string, ...args: string[]) => cliInProcess(app, command, ...args);

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

  test('the CLI process runs a privacy command and exits 1 on misuse', () => {
    const all = cliProcess(env, 'privacy:requests');
    assert.equal(all.status, 0, all.stderr);
    assert.match(all.stdout, /3 of 3 request\(s\)/);
    const bad = cliProcess(env, 'privacy:show', 'abc');
    assert.equal(bad.status, 1);
    assert.match(bad.stderr, /Usage/);
  });

  test('privacy:requests lists every person’s requests, with the route’s filters', async () => {
    const all = await cli('privacy:requests');
    assert.equal(all.status, 0, all.stderr);
    assert.match(all.stdout, /^id\ttype\tstatus\tuser\tcreated\tupdated$/m);
    for (const id of Object.values(ids)) assert.match(all.stdout, new RegExp(`^${id}\\t`, 'm'));
    assert.match(all.stdout, /3 of 3 request\(s\)/);
    const deletes = await cli(
      'privacy:requests',
      '--requestTypes=delete,export',
      '--statuses',
      'pending',
      '--limit=1',
    );
    assert.equal(deletes.status, 0, deletes.stderr);
    assert.match(deletes.stdout, new RegExp(`^${ids.delete}\\tdelete\\tpending\\t${person.id}\\t`, 'm'));
    assert.match(deletes.stdout, /1 of 2 request\(s\)/);
    const searched = await cli('privacy:requests', '--search=RECORDS');
    assert.match(searched.stdout, /1 of 1 request\(s\)/);
    const bad = await cli('privacy:requests', '--limit=0');
    assert.equal(bad.status, 1);
    assert.match(bad.stderr, /limit/);
    assert.equal((await cli('privacy:requests', '--statuses=done')).status, 1);
    assert.equal((await cli('privacy:requests', 'stray')).status, 1);
  });

  test('privacy:show names the person and the audit trail', async () => {
    const shown = await cli('privacy:show', String(ids.export));
    assert.equal(shown.status, 0, shown.stderr);
    assert.match(shown.stdout, new RegExp(`Request ${ids.export}: export, pending`));
    assert.match(shown.stdout, new RegExp(`user: ${person.id} <${person.email}> Cli Person`));
    assert.match(shown.stdout, /reason: for my records/);
    assert.match(shown.stdout, /created by person/);
    const missing = await cli('privacy:show', '999999');
    assert.equal(missing.status, 1);
    assert.match(missing.stderr, /not found/);
    assert.match((await cli('privacy:show', 'abc')).stderr, /Usage/);
  });

  test('privacy:reject needs a reason and a request still open', async () => {
    assert.equal((await cli('privacy:reject', String(ids.others))).status, 1);
    const rejected = await cli('privacy:reject', String(ids.others), 'Identity', 'not', 'confirmed');
    assert.equal(rejected.status, 0, rejected.stderr);
    assert.match(rejected.stdout, /is rejected/);
    const again = await cli('privacy:reject', String(ids.others), 'again');
    assert.equal(again.status, 1);
    assert.match(again.stderr, /rejected/);
    const seen = await ok(app, other, 'GET', `${PRIVACY}/requests/${ids.others}`);
    assert.deepEqual([seen.status, seen.resolution], ['rejected', 'Identity not confirmed']);
  });

  test('privacy:process serves an export request, then erases the person for a delete request', async () => {
    const served = await cli('privacy:process', String(ids.export));
    assert.equal(served.status, 0, served.stderr);
    assert.match(served.stdout, new RegExp(`Request ${ids.export} is completed: export_served`));
    assert.equal((await ok(app, person, 'GET', `${PRIVACY}/requests/${ids.export}`)).status, 'completed');

    const erased = await cli('privacy:process', String(ids.delete));
    assert.equal(erased.status, 0, erased.stderr);
    assert.match(erased.stdout, new RegExp(`Request ${ids.delete} is completed: erased .*"verified":true`));
    assert.equal(
      (await app.inject({ method: 'GET', url: '/api/auth/me', headers: person.auth })).statusCode,
      401,
    );
    const shown = await cli('privacy:show', String(ids.delete));
    assert.match(shown.stdout, /user: \(erased\)/);
    assert.ok(!shown.stdout.includes(person.email));
    const listed = await cli('privacy:requests', '--statuses=completed');
    assert.match(listed.stdout, new RegExp(`^${ids.delete}\\tdelete\\tcompleted\\t\\(erased\\)`, 'm'));
    const twice = await cli('privacy:process', String(ids.delete));
    assert.equal(twice.status, 1);
    assert.match(twice.stderr, /is completed/);
  });
});
