// On Node 20, once anything in a process enters an async context store (AsyncLocalStorage.run),
// every promise of that process runs a hook, for good: about a seventh of a booking's
// throughput on SQLite (docs/performance.md, tracing). A rule's run must not turn that on for
// every tenant's requests. Asked of an instance in a child process: node:test enters a store of
// its own in this one.
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../../src/app.js';
import { loadConfig } from '../../../src/config.js';
import { databaseForChild, killed, registerUser, startChild, TEST_ENV } from '../../helpers/app.js';
import { as, expectStatus } from '../../helpers/http.js';
import { remoteApp } from '../../helpers/remote.js';

describe('a rule run by a serving instance', () => {
  let app: FastifyInstance;
  let child: ChildProcess;
  let remote: FastifyInstance;
  let drop: () => Promise<void>;
  before(async () => {
    const database = await databaseForChild('automation-instance');
    drop = database.drop;
    // Migrates the database before the child starts.
    app = await buildApp(loadConfig(TEST_ENV), { db: database.db, logger: false });
    const started = await startChild(database.url, database.schema);
    child = started.child;
    remote = remoteApp(started.url);
  });
  after(async () => {
    await killed(child);
    await app.close();
    await drop();
  });

  /** The instance's answer to SIGUSR2 (test/helpers/instance.fixture.ts). */
  const continuationAsyncId = () =>
    new Promise<number>((resolve) => {
      const read = (chunk: Buffer) => {
        const line = chunk
          .toString('utf8')
          .split('\n')
          .find((l) => l.includes('continuationAsyncId'));
        if (!line) return;
        child.stdout!.off('data', read);
        resolve((JSON.parse(line) as { continuationAsyncId: number }).continuationAsyncId);
      };
      child.stdout!.on('data', read);
      child.kill('SIGUSR2');
    });

  test("leaves no hook on the process's promises", async () => {
    assert.equal(await continuationAsyncId(), 0, 'unhooked before the rule');
    const user = await registerUser(remote);
    const api = as(remote, user);
    expectStatus(
      await api.post('/api/automation/rules', {
        name: 'Follow up',
        trigger: 'task.completed',
        actions: [{ type: 'create_task', task: { title: 'Follow up {{title}}' } }],
      }),
      201,
    );
    const task = expectStatus(await api.post('/api/tasks', { title: 'Call' }), 201);
    expectStatus(await api.patch(`/api/tasks/${task.id}`, { status: 'done' }), 200);
    const audit = expectStatus(await api.get('/api/automation/audit'), 200).items as { outcome: string }[];
    assert.deepEqual(
      audit.map((entry) => entry.outcome),
      ['succeeded'],
      'the rule ran',
    );
    assert.equal(await continuationAsyncId(), 0, 'unhooked after it');
  });
});
