import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { createTestApp, registerUser, type SignedInUser, type TestApp } from '../../helpers/app.js';
import { as, expectStatus } from '../../helpers/http.js';
import { connectClient } from '../../helpers/mcp.js';

/**
 * Issue 25's review: an agent without an action cannot reach its effect by another route.
 * Each case names the route it closes; automation rules have their own file
 * (test/modules/automation/agent-bound.test.ts).
 */
describe('an agent reaches no effect it was not granted', () => {
  let t: TestApp;
  let user: SignedInUser;
  before(async () => {
    t = await createTestApp();
    user = await registerUser(t.app);
  });
  after(() => t.close());

  async function agentWith(actionKeys: string[]) {
    const agent = expectStatus(await as(t.app, user).post('/api/agents', { name: 'Reach' }), 201);
    const put = await t.app.inject({
      method: 'PUT',
      url: `/api/agents/${agent.id}/permissions`,
      headers: user.auth,
      payload: { permissions: actionKeys.map((actionKey) => ({ actionKey })) },
    });
    assert.equal(put.statusCode, 200, put.body);
    const { key } = expectStatus(
      await as(t.app, user).post(`/api/agents/${agent.id}/keys`, { label: 'k' }),
      201,
    );
    return { id: agent.id as number, key: key as string };
  }
  const execute = (key: string, action: string, input: Record<string, unknown> = {}) =>
    t.app.inject({
      method: 'POST',
      url: '/api/mcp/execute',
      headers: { 'x-agent-key': key },
      payload: { action, input },
    });
  const taskTitles = async () =>
    (
      expectStatus(await as(t.app, user).get('/api/tasks?limit=200'), 200).items as Array<{ title: string }>
    ).map((x) => x.title);

  test('routines: a routine an agent writes cannot make tasks without tasks.create', async () => {
    const agent = await agentWith(['routines.create', 'routines.run']);
    const routine = await execute(agent.key, 'routines.create', {
      name: 'Daily',
      timezone: 'UTC',
      startDate: '2025-01-01',
      recurrence: ['RRULE:FREQ=DAILY'],
      templates: [{ title: 'Made by a routine' }],
    });
    assert.equal(routine.statusCode, 200, routine.body);
    const run = await execute(agent.key, 'routines.run', { routineId: routine.json().result.id });
    assert.equal(run.statusCode, 403, run.body);
    assert.equal(run.json().error.code, 'FORBIDDEN');
    assert.deepEqual(await taskTitles(), []);
  });

  test('REST: an agent credential opens no REST route (approvals, tasks, agents, privacy)', async () => {
    const agent = await agentWith(['tasks.create']);
    for (const [method, url] of [
      ['GET', '/api/approvals'],
      ['POST', '/api/approvals/1/approve'],
      ['POST', '/api/tasks'],
      ['GET', `/api/agents/${agent.id}/policy`],
      ['PUT', `/api/agents/${agent.id}/policy`],
      ['GET', '/api/compliance/me/privacy/export'],
    ] as const) {
      for (const headers of [{ 'x-agent-key': agent.key }, { authorization: `Bearer ${agent.key}` }]) {
        const response = await t.app.inject({
          method,
          url,
          headers,
          ...(method === 'GET' ? {} : { payload: {} }),
        });
        assert.equal(response.statusCode, 401, `${method} ${url}: ${response.body}`);
      }
    }
  });

  test('approvals: an agent reads only its own, and cannot decide any', async () => {
    const agent = await agentWith(['tasks.create', 'tasks.delete']);
    await t.app.inject({
      method: 'PUT',
      url: `/api/agents/${agent.id}/policy`,
      headers: user.auth,
      payload: { requireApproval: 'writes' },
    });
    const asked = expectStatus(await execute(agent.key, 'tasks.create', { title: 'Waits' }), 200).result as {
      approval: { id: number };
    };
    const other = await agentWith([]);
    const foreign = await execute(other.key, 'approvals.get', { approvalId: asked.approval.id });
    assert.equal(foreign.statusCode, 404);
    // No tool decides an approval, whatever the agent holds.
    const catalogue = expectStatus(await as(t.app, user).get('/api/agents/catalog'), 200).actions as Array<{
      key: string;
    }>;
    assert.deepEqual(
      catalogue.filter((a) => a.key.startsWith('approvals.')).map((a) => a.key),
      ['approvals.get'],
    );
    assert.deepEqual(await taskTitles(), []);
  });

  test('MCP resources: without the list action no resource of that kind is listed or read', async () => {
    const agent = await agentWith(['tasks.list']);
    const calendars = expectStatus(await as(t.app, user).get('/api/calendars'), 200) as Array<{ id: number }>;
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const address = t.app.server.address() as AddressInfo;
    const { client } = await connectClient(new URL(`http://127.0.0.1:${address.port}/api/mcp`), {
      'x-agent-key': agent.key,
    });
    const { resources } = await client.listResources();
    assert.deepEqual(
      resources.filter((r) => r.uri.includes('calendars/')),
      [],
    );
    await assert.rejects(client.readResource({ uri: `reservation-service://calendars/${calendars[0]!.id}` }));
    await client.close();
  });
});
