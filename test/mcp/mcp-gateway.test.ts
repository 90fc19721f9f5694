import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/client';
import type { LightMyRequestResponse } from 'fastify';
import { createTestApp, createTestDatabase, registerUser, type TestApp } from '../helpers/app.js';
import {
  AGENT_A,
  AGENT_B,
  connectClient,
  KEYS,
  type McpTestServer,
  newDirectory,
  oauthToken,
  startMcpServer,
} from '../helpers/mcp.js';

const CHALLENGE =
  'Bearer realm="Reservation Service MCP API", resource_metadata="http://service.test/.well-known/oauth-protected-resource"';
const INVALID_CHALLENGE = `${CHALLENGE}, error="invalid_token"`;
const LINK = '</api/mcp>; rel="successor-version"';

type Method = 'GET' | 'POST' | 'DELETE';

/** Every answer of the gateway, refusals included, says it is deprecated and where to go. */
function assertDeprecated(response: LightMyRequestResponse) {
  assert.equal(response.headers.deprecation, 'true', `${response.statusCode} ${response.body}`);
  assert.equal(response.headers.link, LINK);
}

function assertEnvelope(response: LightMyRequestResponse, status: number, code: string, message?: string) {
  assert.equal(response.statusCode, status, response.body);
  const body = response.json();
  assert.equal(body.success, false);
  assert.equal(body.error.code, code);
  assert.equal(typeof body.error.requestId, 'string');
  if (message !== undefined) assert.equal(body.error.message, message);
  assertDeprecated(response);
}

describe('deprecated MCP gateway (fake agents and tools)', () => {
  let server: McpTestServer;
  let dropDb: () => Promise<void>;
  const clients: Client[] = [];

  before(async () => {
    const { db, drop } = await createTestDatabase();
    dropDb = drop;
    server = await startMcpServer(db, newDirectory());
  });
  after(async () => {
    await Promise.all(clients.map((client) => client.close().catch(() => {})));
    await server.close();
    await dropDb();
  });

  const gateway = (method: Method, path: string, headers: Record<string, string>, payload?: unknown) =>
    server.app.inject({
      method,
      url: `/api/mcp/${path}`,
      headers,
      ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }),
    });
  const asA = { 'x-agent-key': KEYS.a };
  const execute = (payload: unknown, headers: Record<string, string> = asA) =>
    gateway('POST', 'execute', headers, payload);

  test('metadata: server information and the calling agent', async () => {
    const response = await gateway('GET', 'metadata', asA);
    assert.equal(response.statusCode, 200, response.body);
    assertDeprecated(response);
    assert.deepEqual(response.json(), {
      server: {
        name: 'reservation-service',
        title: 'Reservation Service',
        version: '0.1.0',
        protocolVersions: ['2026-07-28', '2025-11-25', '2025-06-18', '2025-03-26'],
      },
      agent: {
        id: AGENT_A.id,
        name: 'Planner',
        status: 'active',
        permissionGroupId: null,
        permissions: [
          { actionKey: 'test.echo', scope: { calendarIds: [1, 2] } },
          { actionKey: 'test.fail', scope: null },
          { actionKey: 'test.crash', scope: null },
        ],
      },
      deprecated: true,
      successor: '/api/mcp',
    });
  });

  test('every agent credential form of /api/mcp is accepted', async () => {
    const forms: Array<Record<string, string>> = [
      { 'x-agent-key': KEYS.b },
      { 'x-agent-token': KEYS.b },
      { authorization: `Agent ${KEYS.b}` },
      { authorization: `Bearer ${KEYS.b}` },
      { authorization: `Bearer ${oauthToken(AGENT_B.id)}` },
    ];
    for (const headers of forms) {
      const response = await gateway('GET', 'metadata', headers);
      assert.equal(response.statusCode, 200, JSON.stringify(headers));
      assert.equal(response.json().agent.id, AGENT_B.id);
    }
  });

  test('refusals of the shared hook: 401 with the challenge, 403 paused and foreign Origin, all deprecated', async () => {
    const user = await registerUser(server.app);
    for (const [method, path] of [
      ['GET', 'metadata'],
      ['GET', 'actions'],
      ['POST', 'execute'],
      ['GET', 'stream'],
    ] as const) {
      const body = method === 'POST' ? { tool: 'test_echo', input: { text: 'x' } } : undefined;
      const missing = await gateway(method, path, {}, body);
      assertEnvelope(missing, 401, 'UNAUTHENTICATED');
      assert.equal(missing.headers['www-authenticate'], CHALLENGE);
      const invalid = await gateway(method, path, { 'x-agent-key': KEYS.disabled }, body);
      assertEnvelope(invalid, 401, 'UNAUTHENTICATED');
      assert.equal(invalid.headers['www-authenticate'], INVALID_CHALLENGE);
      const login = await gateway(method, path, user.auth, body);
      assertEnvelope(login, 401, 'UNAUTHENTICATED');
      assert.equal(login.headers['www-authenticate'], INVALID_CHALLENGE);
      const paused = await gateway(method, path, { 'x-agent-key': KEYS.paused }, body);
      assertEnvelope(paused, 403, 'AGENT_PAUSED');
      assert.equal(paused.headers['www-authenticate'], undefined);
      const foreign = await gateway(method, path, { ...asA, origin: 'https://evil.test' }, body);
      assertEnvelope(foreign, 403, 'FORBIDDEN', 'This Origin may not call the MCP API');
      const allowed = await gateway(method, path, { ...asA, origin: 'https://agent-console.test' }, body);
      assert.equal(allowed.statusCode, path === 'stream' ? 410 : 200, `${path}: ${allowed.body}`);
    }
  });

  test('actions: exactly what tools/list shows the agent, plus each action key', async () => {
    for (const [key, expected] of [
      [KEYS.a, ['agent.profile', 'test.crash', 'test.echo', 'test.fail']],
      [KEYS.b, ['agent.profile', 'test.echo']],
    ] as const) {
      const response = await gateway('GET', 'actions', { 'x-agent-key': key });
      assert.equal(response.statusCode, 200, response.body);
      assertDeprecated(response);
      const actions = response.json() as Array<Record<string, unknown> & { name: string; actionKey: string }>;
      assert.deepEqual(actions.map((a) => a.actionKey).sort(), expected);
      const { client } = await connectClient(server.url, { 'x-agent-key': key });
      clients.push(client);
      const { tools } = await client.listTools();
      assert.deepEqual(
        actions.map(({ actionKey, ...tool }) => {
          assert.equal(tool.name, actionKey.replaceAll('.', '_'));
          return tool;
        }),
        tools.map((tool) => ({ ...tool })),
      );
    }
    const echo = (await gateway('GET', 'actions', asA))
      .json()
      .find((a: { name: string }) => a.name === 'test_echo');
    assert.deepEqual(echo.annotations, {
      title: 'Echo',
      readOnlyHint: true,
      destructiveHint: false,
      idempotentHint: true,
    });
    assert.deepEqual(echo.inputSchema.required, ['text']);
    assert.deepEqual([...echo.outputSchema.required].sort(), ['agentId', 'calendarIds', 'echo', 'userId']);
  });

  test('execute: by tool name or action key, as the agent under that scope, recorded like tools/call', async () => {
    server.directory.calls.length = 0;
    const expected = { echo: 'hi hi', userId: AGENT_A.userId, agentId: AGENT_A.id, calendarIds: [1, 2] };
    for (const body of [
      { tool: 'test_echo', input: { text: 'hi', times: 2 } },
      { action: 'test.echo', input: { text: 'hi', times: 2 } },
    ]) {
      const response = await execute(body);
      assert.equal(response.statusCode, 200, response.body);
      assertDeprecated(response);
      assert.deepEqual(response.json(), { result: expected });
    }
    const profile = await execute({ action: 'agent.profile' });
    assert.deepEqual(profile.json(), {
      result: {
        agentId: AGENT_A.id,
        userId: AGENT_A.userId,
        actions: ['agent.profile', 'test.crash', 'test.echo', 'test.fail'],
      },
    });
    assert.deepEqual(
      server.directory.calls.map(({ durationMs, ...call }) => {
        assert.ok(Number.isInteger(durationMs) && durationMs >= 0);
        return call;
      }),
      [
        ...[1, 2].map(() => ({
          agentId: AGENT_A.id,
          actionKey: 'test.echo',
          outcome: 'ok',
          errorCode: null,
          arguments: { text: 'hi', times: 2 },
          targetIds: [],
          approvalId: null,
        })),
        {
          agentId: AGENT_A.id,
          actionKey: 'agent.profile',
          outcome: 'ok',
          errorCode: null,
          arguments: {},
          targetIds: [],
          approvalId: null,
        },
      ],
    );
  });

  test('execute: a refused call answers its error with the status of its code, as tools/call refuses it', async () => {
    const { client } = await connectClient(server.url, asA);
    clients.push(client);
    const cases: Array<{ body: { tool: string; input?: unknown }; status: number; code: string }> = [
      { body: { tool: 'test_fail' }, status: 409, code: 'SLOT_UNAVAILABLE' },
      { body: { tool: 'test_crash' }, status: 500, code: 'INTERNAL' },
      { body: { tool: 'test_hidden' }, status: 404, code: 'NOT_FOUND' },
      { body: { tool: 'no_such_tool' }, status: 404, code: 'NOT_FOUND' },
      { body: { tool: 'test_echo', input: { times: 9 } }, status: 400, code: 'VALIDATION_FAILED' },
    ];
    for (const { body, status, code } of cases) {
      server.directory.calls.length = 0;
      const viaMcp = await client.expectingInternal(() =>
        client.callTool({ name: body.tool, arguments: (body.input ?? {}) as Record<string, unknown> }),
      );
      assert.equal(viaMcp.isError, true);
      const mcpError = (viaMcp.structuredContent as { error: { code: string; message: string } }).error;
      assert.equal(mcpError.code, code);
      const response = await execute(body);
      assertEnvelope(response, status, code, mcpError.message);
      assert.doesNotMatch(response.body, /SQLITE|secret_internal_table/);
      // Both paths record the same call.
      const [first, second] = server.directory.calls.map(({ durationMs: _, ...call }) => call);
      assert.deepEqual(first, second);
      assert.equal(first?.errorCode, code);
    }
    const hidden = await execute({ action: 'test.hidden' });
    assertEnvelope(hidden, 404, 'NOT_FOUND', 'Tool test.hidden not found');
    // An action key is looked up as an action key only.
    const toolNameAsAction = await execute({ action: 'test_echo', input: { text: 'x' } });
    assertEnvelope(toolNameAsAction, 404, 'NOT_FOUND', 'Tool test_echo not found');
    assert.equal(server.directory.calls.at(-1)?.actionKey, 'test_echo');
    const b = await execute({ tool: 'test_fail' }, { 'x-agent-key': KEYS.b });
    assertEnvelope(b, 404, 'NOT_FOUND', 'Tool test_fail not found');
  });

  test('execute: the body is validated (400) before any tool runs', async () => {
    server.directory.calls.length = 0;
    for (const body of [
      {},
      { tool: 'test_echo', action: 'test.echo' },
      { tool: 'test_echo', input: 'text' },
      { tool: 'test_echo', input: [1] },
      { tool: '', input: {} },
      { tool: 'test_echo', input: { text: 'x' }, extra: true },
    ]) {
      const response = await execute(body);
      assertEnvelope(response, 400, 'VALIDATION_FAILED');
    }
    assert.equal(server.directory.calls.length, 0);
  });

  test('stream: 410 Gone, pointing at POST /api/mcp', async () => {
    const response = await gateway('GET', 'stream', { ...asA, accept: 'text/event-stream' });
    assertEnvelope(
      response,
      410,
      'GONE',
      'The gateway stream is gone: the server sends no unsolicited messages. Send MCP JSON-RPC requests to POST /api/mcp.',
    );
    assert.match(String(response.headers['content-type']), /^application\/json/);
  });

  test('a browser client at an MCP_ALLOWED_ORIGINS origin passes CORS and reads the deprecation headers', async () => {
    const origin = 'https://agent-console.test';
    const preflight = await server.app.inject({
      method: 'OPTIONS',
      url: '/api/mcp/execute',
      headers: {
        origin,
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'x-agent-key, content-type',
      },
    });
    assert.equal(preflight.statusCode, 204);
    assert.equal(preflight.headers['access-control-allow-origin'], origin);
    const response = await execute({ tool: 'test_echo', input: { text: 'cors' } }, { ...asA, origin });
    assert.equal(response.statusCode, 200, response.body);
    assert.equal(response.headers['access-control-allow-origin'], origin);
    const exposed = String(response.headers['access-control-expose-headers']).split(', ');
    assert.ok(exposed.includes('deprecation') && exposed.includes('link'), exposed.join());
    assertDeprecated(response);
    // Not an MCP route: CORS_ORIGINS (FRONTEND_URL) only.
    const elsewhere = await server.app.inject({ method: 'GET', url: '/api/health', headers: { origin } });
    assert.equal(elsewhere.headers['access-control-allow-origin'], undefined);
  });

  test('OpenAPI lists the four gateway routes as deprecated, and /api/mcp itself not', async () => {
    const doc = (await server.app.inject({ method: 'GET', url: '/api/openapi.json' })).json();
    const gatewayOperations = [
      doc.paths['/api/mcp/metadata']?.get,
      doc.paths['/api/mcp/actions']?.get,
      doc.paths['/api/mcp/execute']?.post,
      doc.paths['/api/mcp/stream']?.get,
    ];
    for (const operation of gatewayOperations) {
      assert.ok(operation, 'documented');
      assert.equal(operation.deprecated, true);
      assert.deepEqual(operation.tags, ['mcp']);
      assert.deepEqual(operation.security, [{ agentKey: [] }, { oauthBearer: [] }]);
    }
    assert.ok(doc.paths['/api/mcp/execute'].post.requestBody);
    for (const method of ['get', 'post', 'delete']) {
      const operation = doc.paths['/api/mcp'][method];
      assert.ok(operation, method);
      assert.equal(operation.deprecated, undefined);
    }
  });
});

describe('deprecated MCP gateway (the real agents and tools)', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp();
  });
  after(() => t.close());

  test('a real agent key executes a real tool; the call shows in the agent activity', async () => {
    const user = await registerUser(t.app);
    const inject = (method: Method, url: string, headers: Record<string, string>, payload?: unknown) =>
      t.app.inject({
        method,
        url,
        headers,
        ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }),
      });
    const agent = (
      await inject('POST', '/api/agents', user.auth, { name: 'Legacy', permissionGroupId: 'minimal' })
    ).json();
    const { key } = (
      await inject('POST', `/api/agents/${agent.id}/keys`, user.auth, { label: 'old' })
    ).json();
    const headers = { authorization: `Agent ${key}` };

    const metadata = await inject('GET', '/api/mcp/metadata', headers);
    assert.equal(metadata.statusCode, 200, metadata.body);
    assert.deepEqual(metadata.json().agent, {
      id: agent.id,
      name: 'Legacy',
      status: 'active',
      permissionGroupId: 'minimal',
      permissions: agent.permissions,
    });

    const actions = (await inject('GET', '/api/mcp/actions', headers)).json() as Array<{ actionKey: string }>;
    assert.deepEqual(
      actions.map((a) => a.actionKey).sort(),
      [
        'agent.profile',
        'approvals.get',
        'time.convert',
        'time.now',
        ...agent.permissions.map((p: { actionKey: string }) => p.actionKey),
      ].sort(),
    );

    const calendars = (await inject('GET', '/api/calendars', user.auth)).json();
    const listed = await inject('POST', '/api/mcp/execute', headers, { action: 'calendar.list' });
    assert.equal(listed.statusCode, 200, listed.body);
    assert.deepEqual(listed.json(), { result: { calendars } });
    const refused = await inject('POST', '/api/mcp/execute', headers, {
      tool: 'calendar_events_create',
      input: { calendarId: calendars[0].id },
    });
    assertEnvelope(refused, 404, 'NOT_FOUND', 'Tool calendar_events_create not found');

    const activity = (await inject('GET', `/api/agents/${agent.id}/activity`, user.auth)).json();
    assert.deepEqual(
      activity.items.map((i: { actionKey: string; outcome: string; errorCode: string | null }) => [
        i.actionKey,
        i.outcome,
        i.errorCode,
      ]),
      [
        ['calendar.events.create', 'error', 'NOT_FOUND'],
        ['calendar.list', 'ok', null],
      ],
    );

    // Disabled: the key stops verifying on the gateway too.
    assert.equal((await inject('DELETE', `/api/agents/${agent.id}`, user.auth)).statusCode, 200);
    const gone = await inject('GET', '/api/mcp/metadata', headers);
    assertEnvelope(gone, 401, 'UNAUTHENTICATED');
    assert.equal(gone.headers['www-authenticate'], INVALID_CHALLENGE);
  });
});
