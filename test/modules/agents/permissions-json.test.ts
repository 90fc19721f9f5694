import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { sql } from 'kysely';
import { agentPermissionsJson } from '../../../src/modules/agents/migrations/0081_agent_permissions_json.js';
import { createTestApp, registerUser, type TestApp } from '../../helpers/app.js';
import { expectStatus } from '../../helpers/http.js';

// Every MCP request reads an agent's permissions from `agents.permissions_json`, a copy of its
// `agent_permissions` rows (migration 0081). Migrating fills it from the rows already there.
let t: TestApp;
before(async () => {
  t = await createTestApp();
});
after(() => t.close());

test('migration 0081 fills each agent’s permissions from its rows, in their order, scopes included', async () => {
  const user = await registerUser(t.app);
  const calendarId = expectStatus(
    await t.app.inject({ method: 'GET', url: '/api/calendars', headers: user.auth }),
    200,
  )[0].id;
  const create = (body: Record<string, unknown>) =>
    t.app.inject({ method: 'POST', url: '/api/agents', headers: user.auth, payload: body });
  const grouped = expectStatus(await create({ name: 'Grouped', permissionGroupId: 'all_read_only' }), 201);
  const scoped = expectStatus(await create({ name: 'Scoped', permissionGroupId: 'minimal' }), 201);
  const none = expectStatus(await create({ name: 'None' }), 201);
  expectStatus(
    await t.app.inject({
      method: 'PUT',
      url: `/api/agents/${scoped.id}/permissions`,
      headers: user.auth,
      payload: {
        permissions: [
          { actionKey: 'tasks.list' },
          { actionKey: 'calendar.events.read', scope: { calendarIds: [calendarId] } },
        ],
      },
    }),
    200,
  );
  const resolvedPermissions = async (id: number) =>
    (await t.app.services.agents.resolveAgent(id))!.permissions;
  const before = await Promise.all([grouped, scoped, none].map((agent) => resolvedPermissions(agent.id)));
  assert.ok(before[0]!.length > 10);
  assert.deepEqual(before[1], [
    { actionKey: 'tasks.list', scope: {} },
    { actionKey: 'calendar.events.read', scope: { calendarIds: [calendarId] } },
  ]);
  assert.deepEqual(before[2], []);

  // The database as it was before 0081, then 0081.
  await sql`alter table agents drop column permissions_json`.execute(t.db.kysely);
  await agentPermissionsJson(t.db.dialect).up(t.db.kysely);

  const after = await Promise.all([grouped, scoped, none].map((agent) => resolvedPermissions(agent.id)));
  assert.deepEqual(after, before);
});
