import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { ACTIONS, findAction, PERMISSION_GROUPS } from '../../../src/catalogue.js';
import { sha256 } from '../../../src/lib/crypto.js';
import { agentAccess } from '../../../src/mcp/server.js';
import { createTestApp, registerUser, type SignedInUser, type TestApp } from '../../helpers/app.js';
import { expectError, expectStatus } from '../../helpers/http.js';

/** What the MCP runtime grants every agent: the actions declared always allowed. */
const ALWAYS_ALLOWED = new Set(ACTIONS.filter((a) => a.alwaysAllowed).map((a) => a.key));

type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

describe('agents', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp();
  });
  after(() => t.close());

  function as(user: SignedInUser) {
    const call = (method: Method, url: string, payload?: unknown): Promise<LightMyRequestResponse> =>
      t.app.inject({
        method,
        url,
        headers: user.auth,
        ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }),
      });
    return {
      get: (url: string) => call('GET', url),
      post: (url: string, payload: unknown = {}) => call('POST', url, payload),
      put: (url: string, payload: unknown) => call('PUT', url, payload),
      delete: (url: string) => call('DELETE', url),
    };
  }

  async function createAgent(user: SignedInUser, body: Record<string, unknown> = { name: 'Helper' }) {
    return expectStatus(await as(user).post('/api/agents', body), 201);
  }
  async function createKey(user: SignedInUser, agentId: number, label = 'laptop') {
    return expectStatus(await as(user).post(`/api/agents/${agentId}/keys`, { label }), 201);
  }
  async function makeGlobalAdmin(user: SignedInUser) {
    await t.app.services.auth.updateUserByEmail(user.email, { isGlobalAdmin: true });
  }
  const setPermissions = (user: SignedInUser, agentId: number, body: unknown) =>
    as(user).put(`/api/agents/${agentId}/permissions`, body);

  test('create, read and list an agent', async () => {
    const user = await registerUser(t.app);
    const created = await createAgent(user, { name: ' Planner ', description: 'Plans my week' });
    assert.deepEqual(created, {
      id: created.id,
      name: 'Planner',
      description: 'Plans my week',
      status: 'active',
      permissionGroupId: null,
      permissions: [],
      oauthClientId: null,
      createdAt: created.createdAt,
      lastUsedAt: null,
    });
    assert.ok(!Number.isNaN(Date.parse(created.createdAt)));
    assert.deepEqual(expectStatus(await as(user).get(`/api/agents/${created.id}`), 200), created);
    const second = await createAgent(user, { name: 'Second' });
    const list = expectStatus(await as(user).get('/api/agents'), 200);
    assert.deepEqual(
      list.map((a: { id: number }) => a.id),
      [created.id, second.id],
    );
  });

  test('creating with a permission group materialises its actions', async () => {
    const user = await registerUser(t.app);
    const created = await createAgent(user, { name: 'Cal', permissionGroupId: 'calendar_only' });
    const group = PERMISSION_GROUPS.find((g) => g.id === 'calendar_only')!;
    assert.equal(created.permissionGroupId, 'calendar_only');
    assert.deepEqual(
      created.permissions,
      group.actionKeys.map((actionKey) => ({ actionKey, scope: null })),
    );
    assert.deepEqual(expectStatus(await as(user).get(`/api/agents/${created.id}`), 200), created);
  });

  test('create refuses bad bodies with 400, and full_mcp_admin for a non-admin with 403', async () => {
    const user = await registerUser(t.app);
    for (const body of [
      {},
      { name: '' },
      { name: 'x'.repeat(201) },
      { name: 'A', extra: 1 },
      { name: 'A', permissionGroupId: 'nope' },
      { name: 'A', status: 'paused' },
      { name: 42 },
    ]) {
      expectError(await as(user).post('/api/agents', body), 400, 'VALIDATION_FAILED');
    }
    expectError(
      await as(user).post('/api/agents', { name: 'A', permissionGroupId: 'full_mcp_admin' }),
      403,
      'FORBIDDEN',
    );
    assert.deepEqual(expectStatus(await as(user).get('/api/agents'), 200), []);
  });

  test('routes need a signed-in user', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/api/agents' });
    expectError(response, 401, 'UNAUTHENTICATED');
  });

  test("another user's agent and its keys are 404 on every route", async () => {
    const owner = await registerUser(t.app);
    const other = await registerUser(t.app);
    const agent = await createAgent(owner);
    const key = await createKey(owner, agent.id);
    const them = as(other);
    expectError(await them.get(`/api/agents/${agent.id}`), 404, 'NOT_FOUND');
    expectError(await them.put(`/api/agents/${agent.id}`, { name: 'Mine' }), 404, 'NOT_FOUND');
    expectError(await them.delete(`/api/agents/${agent.id}`), 404, 'NOT_FOUND');
    expectError(await setPermissions(other, agent.id, { permissionGroupId: 'minimal' }), 404, 'NOT_FOUND');
    expectError(await them.get(`/api/agents/${agent.id}/keys`), 404, 'NOT_FOUND');
    expectError(await them.post(`/api/agents/${agent.id}/keys`, { label: 'x' }), 404, 'NOT_FOUND');
    expectError(await them.delete(`/api/agents/${agent.id}/keys/${key.id}`), 404, 'NOT_FOUND');
    expectError(await them.get(`/api/agents/${agent.id}/activity`), 404, 'NOT_FOUND');
    assert.deepEqual(expectStatus(await them.get('/api/agents'), 200), []);
    // A key of the owner's other agent is not a key of this one.
    const otherAgent = await createAgent(owner, { name: 'Other' });
    expectError(await as(owner).delete(`/api/agents/${otherAgent.id}/keys/${key.id}`), 404, 'NOT_FOUND');
    // Nothing changed.
    const still = expectStatus(await as(owner).get(`/api/agents/${agent.id}`), 200);
    assert.equal(still.name, 'Helper');
    assert.equal(still.status, 'active');
    assert.ok(await t.app.services.agents.resolveKey(key.key));
    expectError(await as(owner).get('/api/agents/999999'), 404, 'NOT_FOUND');
    expectError(await as(owner).get('/api/agents/abc'), 400, 'VALIDATION_FAILED');
  });

  test('PUT renames, pauses and resumes; disabled cannot be set or revived', async () => {
    const user = await registerUser(t.app);
    const agent = await createAgent(user);
    const renamed = expectStatus(
      await as(user).put(`/api/agents/${agent.id}`, { name: 'Renamed', description: null }),
      200,
    );
    assert.equal(renamed.name, 'Renamed');
    assert.equal(renamed.description, null);
    const paused = expectStatus(await as(user).put(`/api/agents/${agent.id}`, { status: 'paused' }), 200);
    assert.equal(paused.status, 'paused');
    const resumed = expectStatus(await as(user).put(`/api/agents/${agent.id}`, { status: 'active' }), 200);
    assert.equal(resumed.status, 'active');
    for (const body of [{ status: 'disabled' }, { status: 'gone' }, { name: '' }, { nope: true }]) {
      expectError(await as(user).put(`/api/agents/${agent.id}`, body), 400, 'VALIDATION_FAILED');
    }
    expectStatus(await as(user).delete(`/api/agents/${agent.id}`), 200);
    expectError(await as(user).put(`/api/agents/${agent.id}`, { status: 'active' }), 409, 'CONFLICT');
    expectError(await as(user).put(`/api/agents/${agent.id}`, { name: 'Back' }), 409, 'CONFLICT');
    expectError(await setPermissions(user, agent.id, { permissionGroupId: 'minimal' }), 409, 'CONFLICT');
    expectError(await as(user).post(`/api/agents/${agent.id}/keys`, { label: 'x' }), 409, 'CONFLICT');
    assert.equal(expectStatus(await as(user).get(`/api/agents/${agent.id}`), 200).status, 'disabled');
  });

  test('keys: shown once, listed without the key, revoked keys stop resolving', async () => {
    const user = await registerUser(t.app);
    const agent = await createAgent(user, { name: 'Keyed', permissionGroupId: 'minimal' });
    const created = await createKey(user, agent.id, ' laptop ');
    assert.deepEqual(Object.keys(created).sort(), ['createdAt', 'id', 'key', 'label', 'mcpUrl', 'prefix']);
    // Where to paste the key: the MCP endpoint under the service's public URL.
    assert.equal(created.mcpUrl, 'http://service.test/api/mcp');
    assert.equal(created.label, 'laptop');
    assert.match(created.key, /^ag_sk_[A-Za-z0-9_-]{43}$/);
    assert.equal(created.prefix, created.key.slice(0, 12));
    const stored = await t.db.kysely
      .selectFrom('agentKeys')
      .select('keyHash')
      .where('id', '=', created.id)
      .executeTakeFirstOrThrow();
    assert.equal(stored.keyHash, sha256(created.key));
    assert.notEqual(stored.keyHash, created.key);

    const listed = expectStatus(await as(user).get(`/api/agents/${agent.id}/keys`), 200);
    assert.deepEqual(listed, [
      {
        id: created.id,
        label: 'laptop',
        prefix: created.prefix,
        createdAt: created.createdAt,
        lastUsedAt: null,
        revokedAt: null,
      },
    ]);
    assert.ok(!JSON.stringify(listed).includes(created.key));

    const resolved = await t.app.services.agents.resolveKey(created.key);
    assert.ok(resolved);
    assert.equal(resolved.id, agent.id);
    assert.equal(resolved.userId, user.id);
    assert.equal(resolved.status, 'active');
    assert.equal(resolved.permissionGroupId, 'minimal');
    assert.deepEqual(
      resolved.permissions.map((p) => p.actionKey),
      agent.permissions.map((p: { actionKey: string }) => p.actionKey),
    );
    // Used: the key's and the agent's last-used times are set.
    const afterUse = expectStatus(await as(user).get(`/api/agents/${agent.id}/keys`), 200)[0];
    assert.ok(afterUse.lastUsedAt);
    assert.ok(expectStatus(await as(user).get(`/api/agents/${agent.id}`), 200).lastUsedAt);

    assert.equal(await t.app.services.agents.resolveKey(`${created.key}x`), null);
    assert.equal(await t.app.services.agents.resolveKey(created.key.replace('ag_sk_', 'rs_uk_')), null);

    const revoked = expectStatus(await as(user).delete(`/api/agents/${agent.id}/keys/${created.id}`), 200);
    assert.ok(revoked.revokedAt);
    assert.equal(revoked.key, undefined);
    assert.equal(await t.app.services.agents.resolveKey(created.key), null);
    // Revoking again answers the same key, unchanged.
    const again = expectStatus(await as(user).delete(`/api/agents/${agent.id}/keys/${created.id}`), 200);
    assert.equal(again.revokedAt, revoked.revokedAt);
    expectError(await as(user).delete(`/api/agents/${agent.id}/keys/999999`), 404, 'NOT_FOUND');
    for (const body of [{}, { label: '' }, { label: 'a', extra: 1 }]) {
      expectError(await as(user).post(`/api/agents/${agent.id}/keys`, body), 400, 'VALIDATION_FAILED');
    }
  });

  test('a paused agent still resolves (the MCP layer answers AGENT_PAUSED)', async () => {
    const user = await registerUser(t.app);
    const agent = await createAgent(user, { name: 'P', permissionGroupId: 'minimal' });
    const key = await createKey(user, agent.id);
    expectStatus(await as(user).put(`/api/agents/${agent.id}`, { status: 'paused' }), 200);
    const resolved = await t.app.services.agents.resolveKey(key.key);
    assert.equal(resolved?.status, 'paused');
    const byId = await t.app.services.agents.resolveAgent(agent.id);
    assert.equal(byId?.status, 'paused');
  });

  test('DELETE disables the agent, revokes its keys and refresh tokens, and keeps it listed', async () => {
    const user = await registerUser(t.app);
    const agent = await createAgent(user, { name: 'Doomed', permissionGroupId: 'minimal' });
    const key1 = await createKey(user, agent.id, 'one');
    const key2 = await createKey(user, agent.id, 'two');
    const keep = await createAgent(user, { name: 'Kept' });
    const keptKey = await createKey(user, keep.id);
    const now = new Date().toISOString();
    const later = new Date(Date.now() + 86_400_000).toISOString();
    const token = (agentId: number, hash: string) => ({
      clientId: 'client-1',
      agentId,
      tokenHash: hash,
      familyId: `family-${hash}`,
      expiresAt: later,
      revokedAt: null,
      createdAt: now,
    });
    await t.db.kysely
      .insertInto('oauthRefreshTokens')
      .values([token(agent.id, 'hash-a'), token(agent.id, 'hash-b'), token(keep.id, 'hash-c')])
      .execute();

    await t.db.kysely
      .insertInto('mcpSessions')
      .values({
        id: `session-of-${agent.id}-xxxxxxxx`,
        agentId: agent.id,
        protocolVersion: '2025-06-18',
        createdAt: now,
        lastUsedAt: now,
        endedAt: null,
      })
      .execute();

    const disabled = expectStatus(await as(user).delete(`/api/agents/${agent.id}`), 200);
    assert.equal(disabled.status, 'disabled');
    assert.equal(disabled.name, 'Doomed');

    assert.equal(await t.app.services.agents.resolveKey(key1.key), null);
    assert.equal(await t.app.services.agents.resolveKey(key2.key), null);
    assert.equal(await t.app.services.agents.resolveAgent(agent.id), null);
    const keys = expectStatus(await as(user).get(`/api/agents/${agent.id}/keys`), 200);
    assert.equal(keys.length, 2);
    assert.ok(keys.every((k: { revokedAt: string | null }) => k.revokedAt));

    const tokens = await t.db.kysely
      .selectFrom('oauthRefreshTokens')
      .select(['tokenHash', 'revokedAt'])
      .orderBy('tokenHash')
      .execute();
    assert.ok(tokens[0]!.revokedAt, 'first refresh token revoked');
    assert.ok(tokens[1]!.revokedAt, 'second refresh token revoked');
    assert.equal(tokens[2]!.revokedAt, null, "another agent's token is untouched");
    assert.ok(await t.app.services.agents.resolveKey(keptKey.key));
    const session = await t.db.kysely
      .selectFrom('mcpSessions')
      .select('endedAt')
      .where('agentId', '=', agent.id)
      .executeTakeFirstOrThrow();
    assert.ok(session.endedAt, 'its MCP sessions end');

    // Still readable and listed.
    assert.equal(expectStatus(await as(user).get(`/api/agents/${agent.id}`), 200).status, 'disabled');
    const list = expectStatus(await as(user).get('/api/agents'), 200);
    assert.deepEqual(
      list.map((a: { id: number; status: string }) => [a.id, a.status]),
      [
        [agent.id, 'disabled'],
        [keep.id, 'active'],
      ],
    );
    // Again: the same answer.
    assert.equal(expectStatus(await as(user).delete(`/api/agents/${agent.id}`), 200).status, 'disabled');
  });

  test('permission groups: full_mcp_admin assignable only by a global admin', async () => {
    const user = await registerUser(t.app);
    const groups = expectStatus(await as(user).get('/api/agents/permission-groups'), 200);
    assert.deepEqual(
      groups.map((g: { id: string }) => g.id),
      [
        'minimal',
        'all_read_only',
        'calendar_only',
        'tasks_and_routines',
        'reservations_operator',
        'automation_manager',
        'household_manager',
        'operational_read_write',
        'full_mcp_admin',
      ],
    );
    for (const group of groups) {
      assert.deepEqual(Object.keys(group).sort(), [
        'actionKeys',
        'canAssign',
        'description',
        'highlights',
        'id',
        'label',
        'requiresGlobalAdmin',
      ]);
      assert.equal(group.canAssign, group.id !== 'full_mcp_admin');
      assert.equal(group.requiresGlobalAdmin, group.id === 'full_mcp_admin');
    }
    const agent = await createAgent(user);
    expectError(
      await setPermissions(user, agent.id, { permissionGroupId: 'full_mcp_admin' }),
      403,
      'FORBIDDEN',
    );
    assert.deepEqual(expectStatus(await as(user).get(`/api/agents/${agent.id}`), 200).permissions, []);

    const admin = await registerUser(t.app);
    await makeGlobalAdmin(admin);
    const adminGroups = expectStatus(await as(admin).get('/api/agents/permission-groups'), 200);
    assert.ok(adminGroups.every((g: { canAssign: boolean }) => g.canAssign));
    const adminAgent = await createAgent(admin);
    const full = expectStatus(
      await setPermissions(admin, adminAgent.id, { permissionGroupId: 'full_mcp_admin' }),
      200,
    );
    assert.equal(full.permissionGroupId, 'full_mcp_admin');
    // Every action of the catalogue, agent.profile included.
    assert.deepEqual(
      full.permissions.map((p: { actionKey: string }) => p.actionKey),
      ACTIONS.map((a) => a.key),
    );
    assert.ok(full.permissions.some((p: { actionKey: string }) => p.actionKey === 'agent.profile'));
    const created = await createAgent(admin, { name: 'Full', permissionGroupId: 'full_mcp_admin' });
    assert.equal(created.permissionGroupId, 'full_mcp_admin');
  });

  test('explicit permissions replace a group, with scopes of own calendars and groups', async () => {
    const user = await registerUser(t.app);
    const calendars = expectStatus(await as(user).get('/api/calendars'), 200);
    const calendarId = calendars[0].id;
    const group = expectStatus(await as(user).post('/api/user-groups', { name: 'Family' }), 201);
    const agent = await createAgent(user, { name: 'Scoped', permissionGroupId: 'minimal' });

    const updated = expectStatus(
      await setPermissions(user, agent.id, {
        permissions: [
          {
            actionKey: 'calendar.events.read',
            scope: { calendarIds: [calendarId, calendarId], groupIds: [] },
          },
          { actionKey: 'calendar.userGroups.attachCalendars', scope: { groupIds: [group.id] } },
          { actionKey: 'tasks.list' },
          { actionKey: 'tasks.create', scope: null },
          { actionKey: 'household.items.list', scope: {} },
        ],
      }),
      200,
    );
    assert.equal(updated.permissionGroupId, null);
    assert.deepEqual(updated.permissions, [
      { actionKey: 'calendar.events.read', scope: { calendarIds: [calendarId], groupIds: [] } },
      { actionKey: 'calendar.userGroups.attachCalendars', scope: { groupIds: [group.id] } },
      { actionKey: 'tasks.list', scope: null },
      { actionKey: 'tasks.create', scope: null },
      { actionKey: 'household.items.list', scope: null },
    ]);
    assert.deepEqual(expectStatus(await as(user).get(`/api/agents/${agent.id}`), 200), updated);

    // The MCP layer's view: each action's actor carries that permission's scope.
    const resolved = (await t.app.services.agents.resolveAgent(agent.id))!;
    const eventsActor = agentAccess(resolved, ALWAYS_ALLOWED).actorFor('calendar.events.read');
    assert.deepEqual(eventsActor?.agent?.scope, { calendarIds: [calendarId], groupIds: [] });
    assert.equal(eventsActor?.userId, user.id);
    assert.equal(eventsActor?.via, 'agent');
    assert.deepEqual(agentAccess(resolved, ALWAYS_ALLOWED).actorFor('tasks.list')?.agent?.scope, {});
    assert.equal(agentAccess(resolved, ALWAYS_ALLOWED).actorFor('tasks.delete'), null);
    assert.equal(
      agentAccess(resolved, ALWAYS_ALLOWED).actorFor('calendar.list'),
      null,
      'the earlier group is gone',
    );
    const profileActor = agentAccess(resolved, ALWAYS_ALLOWED).actorFor('agent.profile');
    assert.ok(profileActor?.agent?.actions.has('tasks.create'));
    // The agent.profile tool answers the calling agent's own record.
    assert.deepEqual(
      await t.app.services.agents.profile(profileActor!, resolved),
      expectStatus(await as(user).get(`/api/agents/${agent.id}`), 200),
    );

    // Back to a group: its keys, scopes gone.
    const regrouped = expectStatus(
      await setPermissions(user, agent.id, { permissionGroupId: 'tasks_and_routines' }),
      200,
    );
    assert.equal(regrouped.permissionGroupId, 'tasks_and_routines');
    assert.ok(regrouped.permissions.every((p: { actionKey: string; scope: unknown }) => p.scope === null));
    assert.ok(regrouped.permissions.some((p: { actionKey: string }) => p.actionKey === 'routines.run'));
    // An empty explicit set leaves only the always-allowed profile.
    const emptied = expectStatus(await setPermissions(user, agent.id, { permissions: [] }), 200);
    assert.deepEqual(emptied.permissions, []);
    assert.equal(emptied.permissionGroupId, null);
  });

  test('permissions: every bad request is a 400 and leaves the set unchanged', async () => {
    const user = await registerUser(t.app);
    const stranger = await registerUser(t.app);
    const strangerCalendar = expectStatus(await as(stranger).get('/api/calendars'), 200)[0].id;
    const strangerGroup = expectStatus(await as(stranger).post('/api/user-groups', { name: 'Theirs' }), 201);
    const ownCalendar = expectStatus(await as(user).get('/api/calendars'), 200)[0].id;
    const agent = await createAgent(user, { name: 'Strict', permissionGroupId: 'minimal' });
    const before = expectStatus(await as(user).get(`/api/agents/${agent.id}`), 200);

    const cases: [unknown, string?][] = [
      [{}],
      [{ permissionGroupId: 'minimal', permissions: [] }],
      [{ permissionGroupId: 'unknown_group' }, 'body.permissionGroupId'],
      [{ permissions: [{ actionKey: 'tasks.teleport' }] }, 'body.permissions.0.actionKey'],
      [
        { permissions: [{ actionKey: 'tasks.list' }, { actionKey: 'tasks.list' }] },
        'body.permissions.1.actionKey',
      ],
      [
        { permissions: [{ actionKey: 'calendar.list', scope: { calendarIds: [strangerCalendar] } }] },
        'body.permissions.0.scope.calendarIds.0',
      ],
      [
        { permissions: [{ actionKey: 'calendar.userGroups.list', scope: { groupIds: [strangerGroup.id] } }] },
        'body.permissions.0.scope.groupIds.0',
      ],
      [
        { permissions: [{ actionKey: 'calendar.list', scope: { calendarIds: [ownCalendar], extra: [1] } }] },
        'body.permissions.0.scope',
      ],
      [{ permissions: [{ actionKey: 'calendar.list', scope: { calendarIds: [0] } }] }],
      [{ permissions: [{ actionKey: 'calendar.list', scope: { calendarIds: [-1] } }] }],
      [{ permissions: [{ actionKey: 'calendar.list', scope: { calendarIds: [1.5] } }] }],
      [{ permissions: [{ actionKey: 'calendar.list', scope: { calendarIds: ['1'] } }] }],
      [{ permissions: [{ actionKey: 'calendar.list', scope: { calendarIds: 1 } }] }],
      [{ permissions: [{ actionKey: 'calendar.list', scope: 'all' }] }],
      [
        { permissions: [{ actionKey: 'tasks.list', scope: { calendarIds: [ownCalendar] } }] },
        'body.permissions.0.scope.calendarIds',
      ],
      [{ permissions: [{ actionKey: 'tasks.list', extra: true }] }],
      [{ permissions: [{}] }],
      [{ permissions: 'all' }],
      [{ permissionGroupId: 'minimal', extra: 1 }],
    ];
    for (const [body, path] of cases) {
      const error = expectError(await setPermissions(user, agent.id, body), 400, 'VALIDATION_FAILED');
      if (path)
        assert.ok(
          error.details?.some((d) => d.path === path),
          `${JSON.stringify(body)}: expected a detail at ${path}, got ${JSON.stringify(error.details)}`,
        );
    }
    expectError(
      await setPermissions(user, agent.id, { permissionGroupId: 'full_mcp_admin' }),
      403,
      'FORBIDDEN',
    );
    assert.deepEqual(expectStatus(await as(user).get(`/api/agents/${agent.id}`), 200), before);
  });

  test('explicit permissions of a non-admin: only the actions of the groups they may assign (403 beyond)', async () => {
    const user = await registerUser(t.app);
    const agent = await createAgent(user, { name: 'Bounded', permissionGroupId: 'minimal' });
    const before = expectStatus(await as(user).get(`/api/agents/${agent.id}`), 200);
    const catalogue: Array<{ key: string; alwaysAllowed: boolean }> = expectStatus(
      await as(user).get('/api/agents/catalog'),
      200,
    ).actions;
    const groups: Array<{ canAssign: boolean; actionKeys: string[] }> = expectStatus(
      await as(user).get('/api/agents/permission-groups'),
      200,
    );
    const assignable = new Set([
      ...groups.filter((g) => g.canAssign).flatMap((g) => g.actionKeys),
      ...catalogue.filter((a) => a.alwaysAllowed).map((a) => a.key),
    ]);
    const beyond = catalogue.map((a) => a.key).filter((key) => !assignable.has(key));
    assert.ok(beyond.includes('reservations.cancel') && beyond.includes('calendar.delete'), beyond.join());

    // The whole catalogue as an explicit list is full_mcp_admin by another name: refused, nothing changes.
    const whole = expectError(
      await setPermissions(user, agent.id, { permissions: catalogue.map((a) => ({ actionKey: a.key })) }),
      403,
      'FORBIDDEN',
    );
    for (const key of beyond) assert.match(whole.message, new RegExp(key.replace('.', '\\.')));
    for (const key of beyond)
      expectError(
        await setPermissions(user, agent.id, { permissions: [{ actionKey: key }] }),
        403,
        'FORBIDDEN',
      );
    assert.deepEqual(expectStatus(await as(user).get(`/api/agents/${agent.id}`), 200), before);
    // A malformed list is a 400 first, whatever it asks for.
    expectError(
      await setPermissions(user, agent.id, {
        permissions: [{ actionKey: 'reservations.cancel' }, { actionKey: 'tasks.teleport' }],
      }),
      400,
      'VALIDATION_FAILED',
    );

    // Everything the assignable groups hold, one by one, is fine.
    const granted = expectStatus(
      await setPermissions(user, agent.id, {
        permissions: [...assignable].map((actionKey) => ({ actionKey })),
      }),
      200,
    );
    assert.deepEqual(
      granted.permissions.map((p: { actionKey: string }) => p.actionKey).sort(),
      [...assignable].sort(),
    );

    // A global admin may grant the whole catalogue explicitly, the same set full_mcp_admin materialises.
    const admin = await registerUser(t.app);
    await makeGlobalAdmin(admin);
    const adminAgent = await createAgent(admin);
    const explicit = expectStatus(
      await setPermissions(admin, adminAgent.id, {
        permissions: catalogue.map((a) => ({ actionKey: a.key })),
      }),
      200,
    );
    const full = expectStatus(
      await setPermissions(admin, adminAgent.id, { permissionGroupId: 'full_mcp_admin' }),
      200,
    );
    assert.deepEqual(explicit.permissions, full.permissions);
    assert.deepEqual(
      full.permissions.map((p: { actionKey: string }) => p.actionKey),
      catalogue.map((a) => a.key),
    );
  });

  test('catalogue: actions of every domain, scoping resources of the caller only', async () => {
    const user = await registerUser(t.app);
    const other = await registerUser(t.app);
    const group = expectStatus(await as(user).post('/api/user-groups', { name: 'Home' }), 201);
    expectStatus(await as(other).post('/api/user-groups', { name: 'Not mine' }), 201);
    const catalogue = expectStatus(await as(user).get('/api/agents/catalog'), 200);

    const keys: string[] = catalogue.actions.map((a: { key: string }) => a.key);
    assert.equal(new Set(keys).size, keys.length, 'keys are unique');
    for (const action of catalogue.actions) {
      assert.deepEqual(Object.keys(action).sort(), [
        'alwaysAllowed',
        'description',
        'key',
        'risk',
        'scopeKinds',
        'title',
      ]);
      assert.ok(['read', 'write', 'destructive'].includes(action.risk), action.key);
      assert.ok(
        action.scopeKinds.every((k: string) => k === 'calendar' || k === 'userGroup'),
        action.key,
      );
      assert.match(action.key.replaceAll('.', '_'), /^[A-Za-z0-9_]{1,64}$/, 'a valid MCP tool name');
      if (/\.(delete|remove|cancel)/.test(action.key)) assert.equal(action.risk, 'destructive', action.key);
    }
    const domains = {
      calendars: 'calendar.list',
      events: 'calendar.events.',
      peopleGroups: 'calendar.userGroups.',
      tasks: 'tasks.',
      labels: 'tasks.labels.',
      checklists: 'tasks.checklist.',
      dependencies: 'tasks.dependencies.',
      routines: 'routines.',
      household: 'household.',
      automationRules: 'automation.rules.',
      automationAudit: 'automation.audit.',
      organisation: 'organisation.',
      resourceTypes: 'resourceTypes.',
      resources: 'resources.',
      availability: 'availability.',
      pricing: 'pricing.',
      reservations: 'reservations.',
      userProfile: 'user.profile.',
      agentContext: 'agent.profile',
    };
    for (const [domain, prefix] of Object.entries(domains))
      assert.ok(
        keys.some((k) => k.startsWith(prefix)),
        `${domain}: no action starts with ${prefix}`,
      );
    for (const key of [
      'calendar.list',
      'calendar.events.read',
      'tasks.list',
      'tasks.create',
      'user.profile.read',
    ])
      assert.ok(keys.includes(key), key);
    const spec: Record<string, [string, string[]]> = {
      'calendar.userGroups.list': ['read', ['userGroup']],
      'calendar.userGroups.details': ['read', ['userGroup']],
      'calendar.userGroups.createInvite': ['write', ['userGroup']],
      'calendar.userGroups.acceptInvite': ['write', ['userGroup']],
      'calendar.userGroups.attachCalendars': ['write', ['userGroup', 'calendar']],
      'calendar.userGroups.detachCalendars': ['write', ['userGroup', 'calendar']],
    };
    for (const [key, [risk, kinds]] of Object.entries(spec)) {
      const action = catalogue.actions.find((a: { key: string }) => a.key === key);
      assert.equal(action?.risk, risk, key);
      assert.deepEqual([...action.scopeKinds].sort(), [...kinds].sort(), key);
    }
    assert.deepEqual(
      keys.filter((k) => k.startsWith('calendar.userGroups.')).sort(),
      Object.keys(spec).sort(),
      'exactly SPEC.md’s people-group keys',
    );
    const profile = catalogue.actions.find((a: { key: string }) => a.key === 'agent.profile');
    assert.equal(profile.alwaysAllowed, true);
    assert.deepEqual(
      catalogue.actions
        .filter((a: { alwaysAllowed: boolean }) => a.alwaysAllowed)
        .map((a: { key: string }) => a.key)
        .sort(),
      ['agent.profile', 'approvals.get', 'time.convert', 'time.now'],
    );

    const ownCalendars = expectStatus(await as(user).get('/api/calendars'), 200);
    assert.deepEqual(catalogue.scopingResources, {
      calendars: ownCalendars.map((c: { id: number; name: string }) => ({ id: c.id, name: c.name })),
      groups: [{ id: group.id, name: 'Home' }],
    });
  });

  test('every preset names catalogue keys and matches its description', () => {
    const byId = new Map<string, (typeof PERMISSION_GROUPS)[number]>(PERMISSION_GROUPS.map((g) => [g.id, g]));
    for (const group of PERMISSION_GROUPS) {
      assert.ok(group.actionKeys.length > 0, group.id);
      assert.equal(new Set(group.actionKeys).size, group.actionKeys.length, `${group.id} repeats a key`);
      for (const key of group.actionKeys)
        assert.ok(findAction(key), `${group.id}: ${key} is not in the catalogue`);
      assert.ok(group.highlights.length > 0, group.id);
    }
    const risks = (id: string) => new Set(byId.get(id)!.actionKeys.map((k) => findAction(k)!.risk));
    assert.deepEqual([...risks('all_read_only')], ['read']);
    assert.deepEqual([...risks('minimal')], ['read']);
    assert.ok(!risks('operational_read_write').has('destructive'));
    assert.ok(!risks('household_manager').has('destructive'));
    assert.ok(!risks('calendar_only').has('destructive'));
    assert.equal(
      byId.get('all_read_only')!.actionKeys.length,
      ACTIONS.filter((a) => a.risk === 'read' && !a.alwaysAllowed).length,
    );
    assert.deepEqual([...byId.get('calendar_only')!.actionKeys].sort(), [
      'calendar.events.create',
      'calendar.events.get',
      'calendar.events.read',
      'calendar.events.update',
      'calendar.get',
      'calendar.list',
    ]);
    assert.ok(byId.get('reservations_operator')!.actionKeys.includes('reservations.create'));
    assert.ok(!byId.get('reservations_operator')!.actionKeys.includes('reservations.cancel'));
    assert.ok(byId.get('automation_manager')!.actionKeys.includes('automation.rules.trigger'));
    assert.ok(!byId.get('automation_manager')!.actionKeys.includes('automation.rules.create'));
    assert.ok(
      byId
        .get('tasks_and_routines')!
        .actionKeys.every((k) => k.startsWith('tasks.') || k.startsWith('routines.')),
    );
    assert.equal(byId.get('full_mcp_admin')!.requiresGlobalAdmin, true);
    assert.ok(
      PERMISSION_GROUPS.filter((g) => g.id !== 'full_mcp_admin').every((g) => !g.requiresGlobalAdmin),
    );
  });

  test('activity pages tool calls newest first', async () => {
    const user = await registerUser(t.app);
    const agent = await createAgent(user);
    const other = await createAgent(user, { name: 'Other' });
    const agents = t.app.services.agents;
    for (let i = 0; i < 5; i++)
      await agents.recordToolCall({
        agentId: agent.id,
        actionKey: `tasks.list`,
        outcome: i === 3 ? 'error' : 'ok',
        errorCode: i === 3 ? 'NOT_FOUND' : null,
        durationMs: i * 10,
      });
    await agents.recordToolCall({
      agentId: other.id,
      actionKey: 'calendar.list',
      outcome: 'ok',
      errorCode: null,
      durationMs: 1,
    });

    const first = expectStatus(await as(user).get(`/api/agents/${agent.id}/activity?limit=2`), 200);
    assert.equal(first.items.length, 2);
    assert.deepEqual(
      first.items.map((i: { durationMs: number }) => i.durationMs),
      [40, 30],
    );
    assert.deepEqual(Object.keys(first.items[0]).sort(), [
      'actionKey',
      'approvalId',
      'arguments',
      'createdAt',
      'durationMs',
      'errorCode',
      'id',
      'outcome',
      'targetIds',
    ]);
    assert.equal(first.items[1].outcome, 'error');
    assert.equal(first.items[1].errorCode, 'NOT_FOUND');
    assert.ok(first.nextCursor);
    const second = expectStatus(
      await as(user).get(`/api/agents/${agent.id}/activity?limit=2&cursor=${first.nextCursor}`),
      200,
    );
    assert.deepEqual(
      second.items.map((i: { durationMs: number }) => i.durationMs),
      [20, 10],
    );
    const third = expectStatus(
      await as(user).get(`/api/agents/${agent.id}/activity?limit=2&cursor=${second.nextCursor}`),
      200,
    );
    assert.deepEqual(
      third.items.map((i: { durationMs: number }) => i.durationMs),
      [0],
    );
    assert.equal(third.nextCursor, null);
    const all = expectStatus(await as(user).get(`/api/agents/${agent.id}/activity`), 200);
    assert.equal(all.items.length, 5);
    assert.ok(all.items.every((i: { actionKey: string }) => i.actionKey === 'tasks.list'));
    assert.equal(all.nextCursor, null);

    for (const query of ['limit=0', 'limit=201', 'limit=x', 'cursor=garbage', 'extra=1']) {
      expectError(await as(user).get(`/api/agents/${agent.id}/activity?${query}`), 400, 'VALIDATION_FAILED');
    }
  });

  test('OAuth: one agent per person and client, reactivated on approval again', async () => {
    const user = await registerUser(t.app);
    const actor = { userId: user.id, via: 'jwt' as const };
    const agents = t.app.services.agents;
    const first = await agents.createOrReactivateForOAuthClient(actor, {
      clientId: 'client-abc',
      clientName: 'Desktop Host',
      permissionGroupId: 'minimal',
    });
    assert.equal(first.oauthClientId, 'client-abc');
    assert.equal(first.name, 'Desktop Host');
    assert.equal(first.permissionGroupId, 'minimal');
    await t.db.kysely
      .insertInto('oauthRefreshTokens')
      .values({
        clientId: 'client-abc',
        agentId: first.id,
        tokenHash: 'oauth-hash-1',
        familyId: 'f1',
        expiresAt: new Date(Date.now() + 60_000).toISOString(),
        revokedAt: null,
        createdAt: new Date().toISOString(),
      })
      .execute();
    expectStatus(await as(user).delete(`/api/agents/${first.id}`), 200);
    const row = await t.db.kysely
      .selectFrom('oauthRefreshTokens')
      .select('revokedAt')
      .where('tokenHash', '=', 'oauth-hash-1')
      .executeTakeFirstOrThrow();
    assert.ok(row.revokedAt);

    const again = await agents.createOrReactivateForOAuthClient(actor, {
      clientId: 'client-abc',
      clientName: 'Desktop Host',
      permissionGroupId: 'calendar_only',
    });
    assert.equal(again.id, first.id);
    assert.equal(again.status, 'active');
    assert.equal(again.permissionGroupId, 'calendar_only');
    const list = expectStatus(await as(user).get('/api/agents'), 200);
    assert.equal(list.length, 1);
    assert.equal(list[0].oauthClientId, 'client-abc');

    const otherClient = await agents.createOrReactivateForOAuthClient(actor, {
      clientId: 'client-xyz',
      clientName: 'Other Host',
      permissionGroupId: 'minimal',
    });
    assert.notEqual(otherClient.id, first.id);
    await assert.rejects(
      agents.createOrReactivateForOAuthClient(actor, {
        clientId: 'client-abc',
        clientName: 'Desktop Host',
        permissionGroupId: 'full_mcp_admin',
      }),
      (error: { code?: string }) => error.code === 'FORBIDDEN',
    );
    assert.equal(await agents.revokeRefreshTokens(first.id), 0);
  });

  test('agents cannot manage agents', async () => {
    const user = await registerUser(t.app);
    const agent = await createAgent(user, { name: 'Sneaky', permissionGroupId: 'minimal' });
    const resolved = (await t.app.services.agents.resolveAgent(agent.id))!;
    const actor = agentAccess(resolved, ALWAYS_ALLOWED).actorFor('agent.profile')!;
    await assert.rejects(
      t.app.services.agents.setPermissions(actor, agent.id, { permissionGroupId: 'operational_read_write' }),
      (error: { code?: string }) => error.code === 'FORBIDDEN',
    );
    await assert.rejects(
      t.app.services.agents.createKey(actor, agent.id, 'mine'),
      (error: { code?: string }) => error.code === 'FORBIDDEN',
    );
  });
});
