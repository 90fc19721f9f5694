import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestApp, registerUser, type SignedInUser, type TestApp } from '../../helpers/app.js';
import { createEvent, defaultCalendarId } from '../../helpers/calendars.js';
import { as, expectStatus } from '../../helpers/http.js';

/**
 * The escalation of issue 25: an agent holding only automation.rules.create and
 * automation.rules.trigger made a task (its own tasks_create refused) through a rule,
 * and a rule it planted went on changing its owner's events after it was disabled.
 * A rule an agent writes runs as that agent: its actions and scope at run time, and
 * not at all while the agent is not active.
 */
describe('automation rules bounded by the agent that wrote them', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp();
  });
  after(() => t.close());

  async function agentOf(user: SignedInUser, actionKeys: string[]) {
    const agent = expectStatus(await as(t.app, user).post('/api/agents', { name: 'Planter' }), 201);
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
  const grant = (user: SignedInUser, agentId: number, actionKeys: string[]) =>
    t.app.inject({
      method: 'PUT',
      url: `/api/agents/${agentId}/permissions`,
      headers: user.auth,
      payload: { permissions: actionKeys.map((actionKey) => ({ actionKey })) },
    });
  const tasks = async (user: SignedInUser) =>
    (
      expectStatus(await as(t.app, user).get('/api/tasks?limit=200'), 200).items as Array<{ title: string }>
    ).map((task) => task.title);
  const event = async (user: SignedInUser, id: number) =>
    expectStatus(await as(t.app, user).get(`/api/events/${id}`), 200) as { reminders: unknown[] };

  test('a rule cannot do what its agent may not: the task is not made, the run says why', async () => {
    const user = await registerUser(t.app);
    const agent = await agentOf(user, ['automation.rules.create', 'automation.rules.trigger']);
    const direct = await execute(agent.key, 'tasks.create', { title: 'Direct' });
    assert.equal(direct.statusCode, 404);
    const rule = await execute(agent.key, 'automation.rules.create', {
      name: 'Make a task',
      trigger: 'manual',
      actions: [{ type: 'create_task', task: { title: 'Sneaky' } }],
    });
    assert.equal(rule.statusCode, 200, rule.body);
    const created = rule.json().result as { id: number; createdByAgentId: number };
    assert.equal(created.createdByAgentId, agent.id);
    const run = await execute(agent.key, 'automation.rules.trigger', { ruleId: created.id });
    assert.equal(run.statusCode, 200, run.body);
    const entry = run.json().result as {
      outcome: string;
      error: string;
      actions: Array<{ outcome: string }>;
    };
    assert.equal(entry.outcome, 'failed');
    assert.match(entry.error, /FORBIDDEN: .*may not tasks\.create/);
    // The owner running it changes nothing: it runs as the agent that wrote it.
    expectStatus(await as(t.app, user).post(`/api/automation/rules/${created.id}/trigger`, {}), 200);
    assert.deepEqual(await tasks(user), []);
    // Granted tasks.create, the same rule does it.
    assert.equal(
      (await grant(user, agent.id, ['automation.rules.create', 'automation.rules.trigger', 'tasks.create']))
        .statusCode,
      200,
    );
    expectStatus(await as(t.app, user).post(`/api/automation/rules/${created.id}/trigger`, {}), 200);
    assert.deepEqual(await tasks(user), ['Sneaky']);
  });

  test("a planted rule stops changing the owner's events when its agent is paused or disabled", async () => {
    const user = await registerUser(t.app);
    const calendarId = await defaultCalendarId(t.app, user);
    const agent = await agentOf(user, ['automation.rules.create', 'calendar.events.update']);
    const rule = await execute(agent.key, 'automation.rules.create', {
      name: 'Remind',
      trigger: 'event.created',
      actions: [{ type: 'add_reminder', minutes: 5 }],
    });
    assert.equal(rule.statusCode, 200, rule.body);
    // Active, and allowed to change events: it acts on the owner's new event.
    const first = await createEvent(t.app, user, calendarId, { title: 'One' });
    assert.equal((await event(user, first.id)).reminders.length, 1);
    // Paused: it does not run (the audit says why).
    expectStatus(
      await t.app.inject({
        method: 'PUT',
        url: `/api/agents/${agent.id}`,
        headers: user.auth,
        payload: { status: 'paused' },
      }),
      200,
    );
    const second = await createEvent(t.app, user, calendarId, { title: 'Two' });
    assert.equal((await event(user, second.id)).reminders.length, 0);
    // Disabled: never again.
    expectStatus(await as(t.app, user).delete(`/api/agents/${agent.id}`), 200);
    const third = await createEvent(t.app, user, calendarId, { title: 'Three' });
    assert.equal((await event(user, third.id)).reminders.length, 0);
    const audit = expectStatus(await as(t.app, user).get('/api/automation/audit?limit=10'), 200)
      .items as Array<{ outcome: string; error: string | null }>;
    assert.deepEqual(
      audit.map((e) => [e.outcome, e.error?.replace(/\d+/, 'N') ?? null]),
      [
        ['skipped', 'The agent N this rule acts for is disabled: the rule does not run'],
        ['skipped', 'The agent N this rule acts for is paused: the rule does not run'],
        ['succeeded', null],
      ],
    );
  });

  test("rewriting the owner's rule makes it the agent's: it cannot borrow the owner's rights", async () => {
    const user = await registerUser(t.app);
    const ownerRule = expectStatus(
      await as(t.app, user).post('/api/automation/rules', {
        name: 'Mine',
        trigger: 'manual',
        actions: [{ type: 'create_task', task: { title: 'Owner task' } }],
      }),
      201,
    );
    assert.equal(ownerRule.createdByAgentId, null);
    const agent = await agentOf(user, ['automation.rules.update', 'automation.rules.trigger']);
    const rewritten = await execute(agent.key, 'automation.rules.update', {
      ruleId: ownerRule.id,
      actions: [{ type: 'create_task', task: { title: 'Agent task' } }],
    });
    assert.equal(rewritten.statusCode, 200, rewritten.body);
    assert.equal(rewritten.json().result.createdByAgentId, agent.id);
    expectStatus(await as(t.app, user).post(`/api/automation/rules/${ownerRule.id}/trigger`, {}), 200);
    assert.deepEqual(await tasks(user), []);
  });
});
