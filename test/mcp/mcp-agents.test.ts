import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/client';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { createTestDatabase, registerUser, type SignedInUser } from '../helpers/app.js';
import { at, customer, futureMonday } from '../helpers/booking.js';
import { createCalendar, createEvent, rangeQuery } from '../helpers/calendars.js';
import { createResource, createType } from '../helpers/catalogue.js';
import { as, expectStatus } from '../helpers/http.js';
import { connectClient, type Era, MCP_TEST_ENV } from '../helpers/mcp.js';
import { createTeam, ownerWithOrganisation } from '../helpers/organisations.js';

/**
 * /api/mcp as the app wires it by default: the real agents module, every module's
 * tools and resources, with agents, keys and permissions made through the REST API,
 * and the SDK's own client on a listening app.
 */

const CHALLENGE =
  'Bearer realm="Reservation Service MCP API", resource_metadata="http://service.test/.well-known/oauth-protected-resource"';
const INVALID_CHALLENGE = `${CHALLENGE}, error="invalid_token"`;

type ToolError = { error: { code: string; message: string } };
type Agent = {
  id: number;
  name: string;
  status: string;
  permissionGroupId: string | null;
  permissions: Array<{ actionKey: string; scope: unknown }>;
};
type CatalogueAction = { key: string; risk: 'read' | 'write' | 'destructive' };

const toolName = (actionKey: string) => actionKey.replaceAll('.', '_');
/** Listed for every agent besides agent_profile (approvals and time): asserted once, below, and left out of `names`. */
const ALWAYS_LISTED = ['approvals_get', 'time_convert', 'time_now'];
const names = (tools: Array<{ name: string }>) =>
  tools
    .map((t) => t.name)
    .filter((name) => !ALWAYS_LISTED.includes(name))
    .sort();
const errorOf = (result: { structuredContent?: unknown }) => (result.structuredContent as ToolError).error;

const initializeBody = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1.0.0' } },
};
const listToolsBody = { jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} };

describe('MCP runtime with the real agents, tools and resources', () => {
  let app: FastifyInstance;
  let url: URL;
  let dropDb: () => Promise<void>;
  const clients: Client[] = [];

  before(async () => {
    const { db, drop } = await createTestDatabase();
    dropDb = drop;
    app = await buildApp(loadConfig(MCP_TEST_ENV), { db, logger: false });
    await app.listen({ port: 0, host: '127.0.0.1' });
    const address = app.server.address();
    if (!address || typeof address === 'string') throw new Error('no port');
    url = new URL(`http://127.0.0.1:${address.port}/api/mcp`);
  });
  after(async () => {
    await Promise.all(clients.map((client) => client.close().catch(() => {})));
    await app.close();
    await dropDb();
  });

  const connect = async (headers: Record<string, string>, era: Era = 'legacy') => {
    const connected = await connectClient(url, headers, era);
    clients.push(connected.client);
    return connected;
  };

  /** A plain HTTP request to /api/mcp, for the status codes and headers the SDK client hides. */
  const raw = (headers: Record<string, string>, body?: unknown, method = body ? 'POST' : 'GET') =>
    fetch(url, {
      method,
      headers: {
        accept: 'application/json, text/event-stream',
        ...(body ? { 'content-type': 'application/json' } : {}),
        ...headers,
      },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });

  const put = (user: SignedInUser, path: string, payload: Record<string, unknown>) =>
    app.inject({ method: 'PUT', url: path, headers: user.auth, payload });

  async function createAgent(user: SignedInUser, body: Record<string, unknown> = {}): Promise<Agent> {
    return expectStatus(await as(app, user).post('/api/agents', { name: 'Helper', ...body }), 201);
  }
  async function createKey(user: SignedInUser, agentId: number): Promise<string> {
    const created = expectStatus(
      await as(app, user).post(`/api/agents/${agentId}/keys`, { label: 'k' }),
      201,
    );
    assert.match(created.key, /^ag_sk_/);
    return created.key;
  }
  /** A new agent with a key: `body` as for POST /api/agents; `permissions` set through PUT. */
  async function agentWithKey(
    user: SignedInUser,
    body: Record<string, unknown> = {},
    permissions?: Array<{ actionKey: string; scope?: Record<string, number[]> }>,
  ) {
    let agent = await createAgent(user, body);
    if (permissions) {
      agent = expectStatus(await put(user, `/api/agents/${agent.id}/permissions`, { permissions }), 200);
    }
    const key = await createKey(user, agent.id);
    return { agent, key, headers: { 'x-agent-key': key } };
  }
  const activityOf = async (user: SignedInUser, agentId: number) =>
    expectStatus(await as(app, user).get(`/api/agents/${agentId}/activity`), 200) as {
      items: Array<{
        id: number;
        actionKey: string;
        outcome: string;
        errorCode: string | null;
        durationMs: number;
        createdAt: string;
      }>;
      nextCursor: string | null;
    };

  describe('credentials', () => {
    test('each agent-key form of SPEC.md resolves the real agent', async () => {
      const user = await registerUser(app);
      const { agent, key } = await agentWithKey(user, { permissionGroupId: 'minimal' });
      const forms: Array<Record<string, string>> = [
        { 'x-agent-key': key },
        { 'x-agent-token': key },
        { authorization: `Agent ${key}` },
        { authorization: `Bearer ${key}` },
      ];
      for (const headers of forms) {
        const { client } = await connect(headers);
        const profile = await client.callTool({ name: 'agent_profile', arguments: {} });
        assert.equal(profile.isError, undefined, JSON.stringify(headers));
        assert.equal((profile.structuredContent as Agent).id, agent.id);
      }
    });

    test('a user API key and a login JWT are no agent credential: 401 with the challenge', async () => {
      const user = await registerUser(app);
      await agentWithKey(user, { permissionGroupId: 'minimal' });
      const apiKey: string = expectStatus(
        await as(app, user).post('/api/auth/api-keys', { label: 'cli' }),
        201,
      ).key;
      assert.match(apiKey, /^rs_uk_/);
      // No agent credential form present at all: the plain discovery challenge.
      const absent: Array<Record<string, string>> = [
        { 'x-api-key': apiKey },
        { authorization: `ApiKey ${apiKey}` },
      ];
      for (const headers of absent) {
        const response = await raw(headers, initializeBody);
        assert.equal(response.status, 401, JSON.stringify(headers));
        assert.equal(response.headers.get('www-authenticate'), CHALLENGE);
        assert.equal((await response.json()).error.code, 'UNAUTHENTICATED');
      }
      // Present in an agent form, but not verifying: invalid_token.
      const invalid: Array<Record<string, string>> = [
        { authorization: `Bearer ${apiKey}` },
        { 'x-agent-key': apiKey },
        { authorization: `Agent ${apiKey}` },
        { authorization: `Bearer ${user.token}` },
        { 'x-agent-token': user.token },
      ];
      for (const headers of invalid) {
        const response = await raw(headers, initializeBody);
        assert.equal(response.status, 401, JSON.stringify(headers));
        assert.equal(response.headers.get('www-authenticate'), INVALID_CHALLENGE);
        assert.equal((await response.json()).error.code, 'UNAUTHENTICATED');
      }
    });

    test('a revoked key stops verifying; the agent other keys still work', async () => {
      const user = await registerUser(app);
      const { agent, key } = await agentWithKey(user, { permissionGroupId: 'minimal' });
      const second = await createKey(user, agent.id);
      const keys = expectStatus(await as(app, user).get(`/api/agents/${agent.id}/keys`), 200);
      const first = keys.find((k: { prefix: string }) => key.startsWith(k.prefix));
      expectStatus(await as(app, user).delete(`/api/agents/${agent.id}/keys/${first.id}`), 200);
      const revoked = await raw({ 'x-agent-key': key }, initializeBody);
      assert.equal(revoked.status, 401);
      assert.equal(revoked.headers.get('www-authenticate'), INVALID_CHALLENGE);
      assert.equal((await raw({ 'x-agent-key': second }, initializeBody)).status, 200);
    });

    test('a paused agent: 403 AGENT_PAUSED; resumed, it works again', async () => {
      const user = await registerUser(app);
      const { agent, headers } = await agentWithKey(user, { permissionGroupId: 'minimal' });
      expectStatus(await put(user, `/api/agents/${agent.id}`, { status: 'paused' }), 200);
      const paused = await raw(headers, initializeBody);
      assert.equal(paused.status, 403);
      assert.equal(paused.headers.get('www-authenticate'), null);
      assert.equal((await paused.json()).error.code, 'AGENT_PAUSED');
      expectStatus(await put(user, `/api/agents/${agent.id}`, { status: 'active' }), 200);
      assert.equal((await raw(headers, initializeBody)).status, 200);
    });

    test('a disabled agent (DELETE /api/agents/:id): 401, and its open session is ended', async () => {
      const user = await registerUser(app);
      const { agent, headers } = await agentWithKey(user, { permissionGroupId: 'minimal' });
      const { client, transport } = await connect(headers);
      const sessionId = transport.sessionId;
      assert.ok(sessionId);
      await client.listTools();
      const sessionRow = () =>
        app.db.kysely
          .selectFrom('mcpSessions')
          .select(['agentId', 'endedAt'])
          .where('id', '=', sessionId)
          .executeTakeFirstOrThrow();
      assert.deepEqual(await sessionRow(), { agentId: agent.id, endedAt: null });

      const disabled = expectStatus(await as(app, user).delete(`/api/agents/${agent.id}`), 200);
      assert.equal(disabled.status, 'disabled');
      const row = await sessionRow();
      assert.ok(row.endedAt, 'the session is ended with the agent');
      const onSession = await raw({ ...headers, 'mcp-session-id': sessionId }, listToolsBody);
      assert.equal(onSession.status, 401);
      assert.equal(onSession.headers.get('www-authenticate'), INVALID_CHALLENGE);
      await assert.rejects(client.listTools());
      const fresh = await raw(headers, initializeBody);
      assert.equal(fresh.status, 401);
    });
  });

  describe('tools/list per permission group', () => {
    let catalogue: CatalogueAction[];
    let riskOf: Map<string, CatalogueAction['risk']>;
    before(async () => {
      const user = await registerUser(app);
      catalogue = expectStatus(await as(app, user).get('/api/agents/catalog'), 200).actions;
      riskOf = new Map(catalogue.map((a) => [toolName(a.key), a.risk]));
      assert.ok(catalogue.length > 50);
    });

    async function listedFor(groupId: string, globalAdmin = false) {
      const user = await registerUser(app);
      if (globalAdmin) await app.services.auth.updateUserByEmail(user.email, { isGlobalAdmin: true });
      const groups = expectStatus(await as(app, user).get('/api/agents/permission-groups'), 200) as Array<{
        id: string;
        actionKeys: string[];
        canAssign: boolean;
      }>;
      const group = groups.find((g) => g.id === groupId);
      assert.ok(group?.canAssign, groupId);
      const { headers } = await agentWithKey(user, { permissionGroupId: groupId });
      const { client } = await connect(headers);
      const { tools } = await client.listTools();
      // agent_profile is always listed, once, whether the group lists it (full_mcp_admin) or not.
      assert.deepEqual(
        names(tools),
        [...new Set([...group.actionKeys, 'agent.profile'])]
          .map(toolName)
          .filter((name) => !ALWAYS_LISTED.includes(name))
          .sort(),
      );
      for (const tool of tools) {
        const risk = riskOf.get(tool.name);
        assert.ok(risk, `${tool.name} is an action of the catalogue`);
        assert.equal(tool.inputSchema.type, 'object', tool.name);
        assert.equal(tool.outputSchema?.type, 'object', tool.name);
        assert.ok(tool.description, tool.name);
        assert.deepEqual(
          { ...tool.annotations, title: undefined },
          {
            title: undefined,
            readOnlyHint: risk === 'read',
            destructiveHint: risk === 'destructive',
            idempotentHint: risk === 'read',
          },
          tool.name,
        );
      }
      return { tools, client };
    }

    test('minimal', async () => {
      const { tools, client } = await listedFor('minimal');
      assert.deepEqual(names(tools), [
        'agent_profile',
        'calendar_events_get',
        'calendar_events_read',
        'calendar_get',
        'calendar_list',
        'organisation_get',
        'tasks_get',
        'tasks_list',
        'user_profile_read',
      ]);
      assert.ok(tools.every((t) => t.annotations?.readOnlyHint === true));
      const notListed = await client.callTool({ name: 'tasks_create', arguments: { title: 'x' } });
      assert.equal(notListed.isError, true);
      assert.deepEqual(errorOf(notListed), { code: 'NOT_FOUND', message: 'Tool tasks_create not found' });
    });

    test('calendar_only', async () => {
      const { tools } = await listedFor('calendar_only');
      assert.deepEqual(names(tools), [
        'agent_profile',
        'calendar_events_create',
        'calendar_events_get',
        'calendar_events_read',
        'calendar_events_update',
        'calendar_get',
        'calendar_list',
      ]);
      const create = tools.find((t) => t.name === 'calendar_events_create')!;
      assert.equal(create.annotations?.readOnlyHint, false);
      assert.equal(create.annotations?.destructiveHint, false);
      assert.deepEqual([...(create.inputSchema.required ?? [])].sort(), [
        'calendarId',
        'endTime',
        'startTime',
        'title',
      ]);
    });

    test('all_read_only: every read action of the catalogue, nothing else', async () => {
      const { tools } = await listedFor('all_read_only');
      assert.deepEqual(
        names(tools),
        catalogue
          .filter((a) => a.risk === 'read')
          .map((a) => toolName(a.key))
          .filter((name) => !ALWAYS_LISTED.includes(name))
          .sort(),
      );
      assert.ok(tools.every((t) => t.annotations?.readOnlyHint === true && !t.annotations.destructiveHint));
      const read = tools.find((t) => t.name === 'calendar_events_read')!;
      assert.deepEqual([...(read.inputSchema.required ?? [])].sort(), ['calendarId', 'from', 'to']);
    });

    test('full_mcp_admin (global admin): the whole catalogue; deletes are destructive', async () => {
      const { tools } = await listedFor('full_mcp_admin', true);
      assert.deepEqual(
        names(tools),
        catalogue
          .map((a) => toolName(a.key))
          .filter((name) => !ALWAYS_LISTED.includes(name))
          .sort(),
      );
      for (const name of [
        'calendar_delete',
        'calendar_events_delete',
        'tasks_delete',
        'resources_delete',
        'resources_deleteWithLanes',
        'resourceTypes_delete',
        'reservations_cancel',
      ]) {
        const tool = tools.find((t) => t.name === name);
        assert.equal(tool?.annotations?.destructiveHint, true, name);
        assert.equal(tool?.annotations?.readOnlyHint, false, name);
      }
      assert.equal(tools.find((t) => t.name === 'calendar_list')?.annotations?.readOnlyHint, true);
    });

    test('an agent without permissions lists only agent_profile', async () => {
      const user = await registerUser(app);
      const { headers } = await agentWithKey(user);
      const { client } = await connect(headers);
      const listed = (await client.listTools()).tools.map((t) => t.name).sort();
      assert.deepEqual(listed, ['agent_profile', ...ALWAYS_LISTED]);
    });
  });

  test('scope: calendar permissions scoped to X never reach calendar Y', async () => {
    const user = await registerUser(app);
    const x = await createCalendar(app, user, { name: 'X' });
    const y = await createCalendar(app, user, { name: 'Y' });
    await createEvent(app, user, y.id, { title: 'Secret in Y' });
    const scope = { calendarIds: [x.id] };
    const { agent, headers } = await agentWithKey(user, {}, [
      { actionKey: 'calendar.list', scope },
      { actionKey: 'calendar.events.read', scope },
      { actionKey: 'calendar.events.create', scope },
    ]);
    assert.equal(agent.permissionGroupId, null);
    const { client } = await connect(headers);
    assert.deepEqual(names((await client.listTools()).tools), [
      'agent_profile',
      'calendar_events_create',
      'calendar_events_read',
      'calendar_list',
    ]);

    const listed = await client.callTool({ name: 'calendar_list', arguments: {} });
    assert.equal(listed.isError, undefined);
    const calendars = (listed.structuredContent as { calendars: Array<{ id: number; name: string }> })
      .calendars;
    assert.deepEqual(
      calendars.map((c) => [c.id, c.name]),
      [[x.id, 'X']],
    );
    const all = expectStatus(await as(app, user).get('/api/calendars'), 200) as Array<{ id: number }>;
    assert.ok(all.length >= 3, 'the owner has more calendars than the agent sees');

    const range = { from: '2025-06-01T00:00:00Z', to: '2025-06-30T00:00:00Z' };
    const readY = await client.callTool({
      name: 'calendar_events_read',
      arguments: { calendarId: y.id, ...range },
    });
    assert.equal(readY.isError, true);
    assert.equal(errorOf(readY).code, 'NOT_FOUND');
    assert.doesNotMatch(JSON.stringify(readY), /Secret in Y/);

    const event = {
      title: 'Agent event',
      startTime: '2025-06-03T09:00:00Z',
      endTime: '2025-06-03T10:00:00Z',
    };
    const createY = await client.callTool({
      name: 'calendar_events_create',
      arguments: { calendarId: y.id, ...event },
    });
    assert.equal(createY.isError, true);
    assert.equal(errorOf(createY).code, 'NOT_FOUND');
    const inY = expectStatus(
      await as(app, user).get(`/api/calendars/${y.id}/events?${rangeQuery(range.from, range.to)}`),
      200,
    ) as Array<{ title: string }>;
    assert.deepEqual(
      inY.map((e) => e.title),
      ['Secret in Y'],
    );

    const createX = await client.callTool({
      name: 'calendar_events_create',
      arguments: { calendarId: x.id, ...event },
    });
    assert.equal(createX.isError, undefined, JSON.stringify(createX.structuredContent));
    const created = createX.structuredContent as { id: number; calendarId: number; title: string };
    assert.equal(created.calendarId, x.id);
    assert.equal(created.title, 'Agent event');
    const readX = await client.callTool({
      name: 'calendar_events_read',
      arguments: { calendarId: x.id, ...range },
    });
    const occurrences = (readX.structuredContent as { occurrences: Array<{ title: string }> }).occurrences;
    assert.deepEqual(
      occurrences.map((o) => o.title),
      ['Agent event'],
    );
  });

  test("the owner's rights are the ceiling: a MEMBER's agent cannot create resources, an ADMIN's can", async () => {
    const team = await createTeam(app);
    const type = await createType(app, team.owner, { name: 'Desk type' });
    const arguments_ = { name: 'Desk 1', resourceTypeId: type.id };

    const member = await agentWithKey(team.member, { permissionGroupId: 'operational_read_write' });
    const memberClient = (await connect(member.headers)).client;
    assert.ok(names((await memberClient.listTools()).tools).includes('resources_create'));
    const refused = await memberClient.callTool({ name: 'resources_create', arguments: arguments_ });
    assert.equal(refused.isError, true);
    assert.equal(errorOf(refused).code, 'FORBIDDEN');
    // The member's own REST call is refused the same way.
    const rest = await as(app, team.member).post('/api/resources', arguments_);
    assert.equal(rest.statusCode, 403);

    const admin = await agentWithKey(team.admin, { permissionGroupId: 'operational_read_write' });
    const adminClient = (await connect(admin.headers)).client;
    const created = await adminClient.callTool({ name: 'resources_create', arguments: arguments_ });
    assert.equal(created.isError, undefined, JSON.stringify(created.structuredContent));
    const resource = created.structuredContent as { id: number; name: string; organisationId: number };
    assert.equal(resource.name, 'Desk 1');
    assert.equal(resource.organisationId, team.organisationId);
    const listed = expectStatus(await as(app, team.owner).get('/api/resources'), 200) as Array<{
      id: number;
    }>;
    assert.deepEqual(
      listed.map((r) => r.id),
      [resource.id],
    );
    assert.deepEqual(
      (await activityOf(team.member, member.agent.id)).items.map((i) => [
        i.actionKey,
        i.outcome,
        i.errorCode,
      ]),
      [['resources.create', 'error', 'FORBIDDEN']],
    );
  });

  test('a reservation made through reservations_create is listed with source mcp; calls are recorded', async () => {
    const owner = await ownerWithOrganisation(app, { name: 'Booked', timezone: 'UTC' });
    const type = await createType(app, owner, { name: 'Room' });
    const room = await createResource(app, owner, { name: 'Room 1', resourceTypeId: type.id });
    const { agent, headers } = await agentWithKey(owner, { permissionGroupId: 'reservations_operator' });
    const { client } = await connect(headers);
    const monday = futureMonday();
    const booking = { resourceId: room.id, startTime: at(monday, 9), endTime: at(monday, 10), customer };

    const made = await client.callTool({ name: 'reservations_create', arguments: booking });
    assert.equal(made.isError, undefined, JSON.stringify(made.structuredContent));
    const reservation = made.structuredContent as { id: number; source: string; status: string };
    assert.equal(reservation.source, 'mcp');
    assert.equal(reservation.status, 'confirmed');

    const list = expectStatus(await as(app, owner).get('/api/reservations'), 200) as {
      items: Array<{ id: number; source: string }>;
    };
    assert.deepEqual(
      list.items.map((r) => [r.id, r.source]),
      [[reservation.id, 'mcp']],
    );
    assert.deepEqual(list.items[0], reservation);

    const again = await client.callTool({ name: 'reservations_create', arguments: booking });
    assert.equal(again.isError, true);
    assert.equal(errorOf(again).code, 'SLOT_UNAVAILABLE');
    const cancel = await client.callTool({
      name: 'reservations_cancel',
      arguments: { reservationId: reservation.id },
    });
    assert.deepEqual(errorOf(cancel), { code: 'NOT_FOUND', message: 'Tool reservations_cancel not found' });
    const invalid = await client.callTool({
      name: 'reservations_create',
      arguments: { ...booking, customer: {} },
    });
    assert.equal(errorOf(invalid).code, 'VALIDATION_FAILED');
    await client.callTool({ name: 'agent_profile', arguments: {} });

    const activity = await activityOf(owner, agent.id);
    assert.deepEqual(
      activity.items.map((i) => [i.actionKey, i.outcome, i.errorCode]),
      [
        ['agent.profile', 'ok', null],
        ['reservations.create', 'error', 'VALIDATION_FAILED'],
        ['reservations.cancel', 'error', 'NOT_FOUND'],
        ['reservations.create', 'error', 'SLOT_UNAVAILABLE'],
        ['reservations.create', 'ok', null],
      ],
    );
    assert.equal(activity.nextCursor, null);
    for (const item of activity.items) {
      assert.ok(Number.isInteger(item.durationMs) && item.durationMs >= 0, String(item.durationMs));
      assert.ok(Date.parse(item.createdAt) > Date.now() - 60_000);
    }
  });

  test('resources/list and resources/read: calendars within scope, the active organisation catalogue', async () => {
    const owner = await ownerWithOrganisation(app, { name: 'Catalogue', timezone: 'UTC' });
    const type = await createType(app, owner, { name: 'Studio' });
    const studio = await createResource(app, owner, { name: 'Studio A', resourceTypeId: type.id });
    const x = await createCalendar(app, owner, { name: 'Shared X' });
    const y = await createCalendar(app, owner, { name: 'Hidden Y' });
    const { headers } = await agentWithKey(owner, {}, [
      { actionKey: 'calendar.list', scope: { calendarIds: [x.id] } },
      { actionKey: 'resourceTypes.list' },
      { actionKey: 'resources.list' },
    ]);
    const uri = (path: string, id: number) => `reservation-service://${path}/${id}`;

    for (const era of ['legacy', 'modern'] as const) {
      const { client } = await connect(headers, era);
      const { resources } = await client.listResources();
      assert.deepEqual(
        resources.map((r) => [r.uri, r.name, r.mimeType]),
        [
          [uri('calendars', x.id), 'Calendar: Shared X', 'application/json'],
          [uri('resource-types', type.id), 'Resource type: Studio', 'application/json'],
          [uri('resources', studio.id), 'Resource: Studio A', 'application/json'],
        ],
        era,
      );
      const read = async (target: string) => {
        const { contents } = await client.readResource({ uri: target });
        assert.equal(contents.length, 1);
        const [content] = contents as Array<{ uri: string; mimeType: string; text: string }>;
        assert.equal(content?.uri, target);
        assert.equal(content?.mimeType, 'application/json');
        return JSON.parse(content!.text);
      };
      assert.deepEqual(
        await read(uri('calendars', x.id)),
        expectStatus(await as(app, owner).get(`/api/calendars/${x.id}`), 200),
      );
      assert.deepEqual(
        await read(uri('resource-types', type.id)),
        expectStatus(await as(app, owner).get(`/api/resource-types/${type.id}`), 200),
      );
      assert.deepEqual(
        await read(uri('resources', studio.id)),
        expectStatus(await as(app, owner).get(`/api/resources/${studio.id}`), 200),
      );
      for (const outside of [
        uri('calendars', y.id),
        uri('resources', 999999),
        'reservation-service://tasks/1',
      ]) {
        await assert.rejects(client.readResource({ uri: outside }), outside);
      }
    }

    // Another user's agent, without an organisation: its own calendars only (and the slot picker
    // app of the availability reads it holds); the studio is not readable.
    const stranger = await registerUser(app);
    const strangerAgent = await agentWithKey(stranger, { permissionGroupId: 'all_read_only' });
    const { client } = await connect(strangerAgent.headers);
    const theirs = (await client.listResources()).resources.map((r) => r.uri);
    const strangerCalendars = expectStatus(await as(app, stranger).get('/api/calendars'), 200) as Array<{
      id: number;
    }>;
    assert.deepEqual(theirs, [
      ...strangerCalendars.map((c) => uri('calendars', c.id)),
      'ui://booking/slot-picker',
    ]);
    await assert.rejects(client.readResource({ uri: uri('resources', studio.id) }));
    await assert.rejects(client.readResource({ uri: uri('calendars', x.id) }));
  });

  describe('sessions and protocol eras', () => {
    test('2025-era: initialize, session id, DELETE ends it (then 404); another agent on it is 404', async () => {
      const user = await registerUser(app);
      const mine = await agentWithKey(user, { permissionGroupId: 'minimal' });
      const other = await agentWithKey(user, { permissionGroupId: 'minimal' });
      const { client, transport } = await connect(mine.headers);
      const sessionId = transport.sessionId;
      assert.ok(sessionId && sessionId.length >= 22);
      const stored = await app.db.kysely
        .selectFrom('mcpSessions')
        .select(['agentId', 'protocolVersion', 'endedAt'])
        .where('id', '=', sessionId)
        .executeTakeFirstOrThrow();
      assert.deepEqual(stored, { agentId: mine.agent.id, protocolVersion: '2025-11-25', endedAt: null });
      assert.equal((await client.listTools()).tools.length, 9 + ALWAYS_LISTED.length);

      const foreign = await raw({ ...other.headers, 'mcp-session-id': sessionId }, listToolsBody);
      assert.equal(foreign.status, 404);
      const foreignDelete = await raw({ ...other.headers, 'mcp-session-id': sessionId }, undefined, 'DELETE');
      assert.equal(foreignDelete.status, 404);
      const own = await raw({ ...mine.headers, 'mcp-session-id': sessionId }, listToolsBody);
      assert.equal(own.status, 200);
      assert.equal(own.headers.get('mcp-session-id'), sessionId);

      await transport.terminateSession();
      const ended = await raw({ ...mine.headers, 'mcp-session-id': sessionId }, listToolsBody);
      assert.equal(ended.status, 404);
      assert.equal((await ended.json()).error.code, -32001);
      const again = await raw({ ...mine.headers, 'mcp-session-id': sessionId }, undefined, 'DELETE');
      assert.equal(again.status, 404);
    });

    test('a 2026-07-28 client (stateless) calls the same tools with the same answers', async () => {
      const user = await registerUser(app);
      await createCalendar(app, user, { name: 'Both eras' });
      const { headers } = await agentWithKey(user, { permissionGroupId: 'calendar_only' });
      const sessionsBefore = await app.db.kysely
        .selectFrom('mcpSessions')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow();

      const modern = await connect(headers, 'modern');
      assert.equal(modern.transport.sessionId, undefined);
      const sessionsAfter = await app.db.kysely
        .selectFrom('mcpSessions')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow();
      assert.equal(Number(sessionsAfter.n), Number(sessionsBefore.n), 'no session is stored');
      const legacy = await connect(headers, 'legacy');
      assert.ok(legacy.transport.sessionId);

      const modernTools = (await modern.client.listTools()).tools;
      // The same tools; a 2025-era tool that writes may also be called as a task (2026-07-28 has no tasks).
      const legacyTools = (await legacy.client.listTools()).tools;
      assert.deepEqual(
        modernTools,
        legacyTools.map(({ execution, ...tool }) => {
          assert.equal(execution?.taskSupport ?? 'optional', 'optional');
          return tool;
        }),
      );
      assert.deepEqual(names(modernTools), [
        'agent_profile',
        'calendar_events_create',
        'calendar_events_get',
        'calendar_events_read',
        'calendar_events_update',
        'calendar_get',
        'calendar_list',
      ]);
      const viaModern = await modern.client.callTool({ name: 'calendar_list', arguments: {} });
      const viaLegacy = await legacy.client.callTool({ name: 'calendar_list', arguments: {} });
      assert.deepEqual(viaModern.structuredContent, viaLegacy.structuredContent);
      assert.deepEqual(
        (viaModern.structuredContent as { calendars: Array<{ name: string }> }).calendars
          .map((c) => c.name)
          .sort(),
        (expectStatus(await as(app, user).get('/api/calendars'), 200) as Array<{ name: string }>)
          .map((c) => c.name)
          .sort(),
      );
      const refused = await modern.client.callTool({ name: 'calendar_delete', arguments: { calendarId: 1 } });
      assert.deepEqual(errorOf(refused), { code: 'NOT_FOUND', message: 'Tool calendar_delete not found' });
      const invalid = await modern.client.callTool({
        name: 'calendar_events_read',
        arguments: { calendarId: 1 },
      });
      assert.equal(errorOf(invalid).code, 'VALIDATION_FAILED');
    });
  });

  test("agent_profile is always listed and answers the agent's own record, in both eras", async () => {
    const user = await registerUser(app);
    const x = await createCalendar(app, user, { name: 'Profiled' });
    const { agent, headers } = await agentWithKey(user, { name: 'Checker', description: 'Checks first' }, [
      { actionKey: 'calendar.list', scope: { calendarIds: [x.id] } },
      { actionKey: 'tasks.list' },
    ]);
    for (const era of ['legacy', 'modern'] as const) {
      const { client } = await connect(headers, era);
      const { tools } = await client.listTools();
      assert.deepEqual(names(tools), ['agent_profile', 'calendar_list', 'tasks_list']);
      const profileTool = tools.find((t) => t.name === 'agent_profile')!;
      assert.equal(profileTool.annotations?.readOnlyHint, true);
      const profile = await client.callTool({ name: 'agent_profile', arguments: {} });
      assert.equal(profile.isError, undefined);
      const record = expectStatus(await as(app, user).get(`/api/agents/${agent.id}`), 200);
      assert.deepEqual(profile.structuredContent, record);
      assert.deepEqual(
        {
          id: record.id,
          name: record.name,
          description: record.description,
          status: record.status,
          permissionGroupId: record.permissionGroupId,
          permissions: record.permissions,
        },
        {
          id: agent.id,
          name: 'Checker',
          description: 'Checks first',
          status: 'active',
          permissionGroupId: null,
          permissions: [
            { actionKey: 'calendar.list', scope: { calendarIds: [x.id] } },
            { actionKey: 'tasks.list', scope: null },
          ],
        },
      );
      const withArguments = await client.callTool({ name: 'agent_profile', arguments: { agentId: 1 } });
      assert.equal(errorOf(withArguments).code, 'VALIDATION_FAILED');
    }
  });
});
