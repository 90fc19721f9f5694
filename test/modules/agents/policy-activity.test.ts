import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { AGENT_ACTIVITY_RETENTION_JOB } from '../../../src/modules/agents/service.js';
import { createTestApp, registerUser, type SignedInUser, type TestApp } from '../../helpers/app.js';
import { as, expectStatus } from '../../helpers/http.js';

/** GET|PUT /api/agents/:id/policy, and the activity's arguments, targets, filters and retention. */
describe('agent policy and activity', () => {
  let t: TestApp;
  let user: SignedInUser;
  let agent: { id: number };
  let key: string;
  before(async () => {
    t = await createTestApp({ AGENT_ACTIVITY_RETENTION_DAYS: '30' });
    user = await registerUser(t.app);
    agent = expectStatus(
      await as(t.app, user).post('/api/agents', { name: 'Helper', permissionGroupId: 'tasks_and_routines' }),
      201,
    );
    key = expectStatus(await as(t.app, user).post(`/api/agents/${agent.id}/keys`, { label: 'k' }), 201).key;
  });
  after(() => t.close());

  const put = (body: unknown, id = agent.id, who = user) =>
    t.app.inject({
      method: 'PUT',
      url: `/api/agents/${id}/policy`,
      headers: who.auth,
      payload: body as Record<string, unknown>,
    });
  const execute = (action: string, input: Record<string, unknown>) =>
    t.app.inject({
      method: 'POST',
      url: '/api/mcp/execute',
      headers: { 'x-agent-key': key },
      payload: { action, input },
    });
  const activity = async (query = '') =>
    expectStatus(await as(t.app, user).get(`/api/agents/${agent.id}/activity?limit=50${query}`), 200)
      .items as Array<{
      actionKey: string;
      outcome: string;
      arguments: Record<string, unknown> | null;
      targetIds: number[];
      approvalId: number | null;
      createdAt: string;
    }>;

  test('the default policy, replaced whole; absent fields take their defaults', async () => {
    const defaults = {
      requireApproval: 'never',
      approvalOverAmount: null,
      limits: { bookingsPerDay: null, cancellationsPerDay: null, spendPerDay: null },
    };
    assert.deepEqual(
      expectStatus(await as(t.app, user).get(`/api/agents/${agent.id}/policy`), 200),
      defaults,
    );
    const set = {
      requireApproval: 'destructive',
      approvalOverAmount: 5000,
      limits: { bookingsPerDay: 5, cancellationsPerDay: 2, spendPerDay: 20000 },
    };
    assert.deepEqual(expectStatus(await put(set), 200), set);
    assert.deepEqual(expectStatus(await as(t.app, user).get(`/api/agents/${agent.id}/policy`), 200), set);
    assert.deepEqual(expectStatus(await put({ limits: { cancellationsPerDay: 1 } }), 200), {
      ...defaults,
      limits: { ...defaults.limits, cancellationsPerDay: 1 },
    });
    // Destructive mode: a delete waits, a write runs.
    expectStatus(await put({ requireApproval: 'destructive' }), 200);
    const made = expectStatus(await execute('tasks.create', { title: 'Keep' }), 200).result as { id: number };
    const removal = expectStatus(await execute('tasks.delete', { taskId: made.id }), 200).result as {
      approvalRequired?: boolean;
    };
    assert.equal(removal.approvalRequired, true);
    expectStatus(await as(t.app, user).get(`/api/tasks/${made.id}`), 200);
    expectStatus(await put({}), 200);
    // A disabled agent's policy stays as it was; an agent cannot read or set policies.
    const gone = expectStatus(await as(t.app, user).post('/api/agents', { name: 'Gone' }), 201);
    expectStatus(await as(t.app, user).delete(`/api/agents/${gone.id}`), 200);
    assert.equal((await put({}, gone.id)).statusCode, 409);
    const byAgent = await t.app.inject({
      method: 'GET',
      url: `/api/agents/${agent.id}/policy`,
      headers: { 'x-agent-key': key },
    });
    assert.equal(byAgent.statusCode, 401);
  });

  test('activity: redacted arguments, targets, filters by action, outcome and time; kept for the retention', async () => {
    const task = expectStatus(
      await execute('tasks.create', { title: 'Call ada@example.test', notes: 'phone +44 20 7946 0000' }),
      200,
    ).result as { id: number };
    const refused = await execute('tasks.get', { taskId: 999_999 });
    assert.equal(refused.statusCode, 404);
    const creates = await activity('&actionKey=tasks.create');
    const created = creates.find((item) => item.targetIds.includes(task.id));
    assert.ok(created, JSON.stringify(creates));
    assert.equal(created.arguments?.title, '[redacted]');
    assert.equal(created.approvalId, null);
    const errors = await activity('&outcome=error');
    assert.ok(errors.length >= 1 && errors.every((item) => item.outcome === 'error'));
    assert.deepEqual(errors[0]?.targetIds, [999_999]);
    const future = new Date(Date.now() + 60_000).toISOString();
    assert.deepEqual(await activity(`&from=${encodeURIComponent(future)}`), []);
    assert.ok((await activity(`&to=${encodeURIComponent(future)}`)).length >= 2);
    const bad = await as(t.app, user).get(`/api/agents/${agent.id}/activity?outcome=maybe`);
    assert.equal(bad.statusCode, 400);
    const inverted = await as(t.app, user).get(
      `/api/agents/${agent.id}/activity?from=${encodeURIComponent(future)}&to=2020-01-01T00:00:00Z`,
    );
    assert.equal(inverted.statusCode, 400);

    // Retention: a call older than AGENT_ACTIVITY_RETENTION_DAYS (30 here) goes with the hourly purge.
    const old = new Date(Date.now() - 31 * 86_400_000).toISOString();
    await t.db.kysely
      .insertInto('agentActivity')
      .values({
        agentId: agent.id,
        actionKey: 'tasks.list',
        outcome: 'ok',
        errorCode: null,
        durationMs: 1,
        createdAt: old,
      })
      .execute();
    assert.equal((await activity('&actionKey=tasks.list')).length, 1);
    await t.app.jobs.send(AGENT_ACTIVITY_RETENTION_JOB, {}, { singletonKey: 'test' });
    await t.app.jobs.idle();
    assert.equal((await activity('&actionKey=tasks.list')).length, 0);
    assert.ok((await activity()).length >= 2, 'recent calls stay');
  });

  test('concurrent calls: each answers once its own activity row is written, and every row is', async () => {
    const before = (await activity('&actionKey=agent.profile')).length;
    // On PostgreSQL the rows of calls arriving while an insert is on its way go in one statement.
    const calls = await Promise.all(Array.from({ length: 12 }, () => execute('agent.profile', {})));
    for (const call of calls) expectStatus(call, 200);
    const rows = await activity('&actionKey=agent.profile');
    assert.equal(rows.length, before + 12);
    assert.ok(rows.every((row) => row.outcome === 'ok'));
  });
});
