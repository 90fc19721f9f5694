import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/client';
import { ConfigError, loadConfig } from '../../src/config.js';
import type { McpResourceProvider } from '../../src/mcp/server.js';
import { endAgentSessions } from '../../src/mcp/sessions.js';
import { createTestDatabase, registerUser, sharedDatabase } from '../helpers/app.js';
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
import type { CheckedClient } from '../helpers/tool-result-check.js';

const CHALLENGE =
  'Bearer realm="Reservation Service MCP API", resource_metadata="http://service.test/.well-known/oauth-protected-resource"';
const INVALID_CHALLENGE = `${CHALLENGE}, error="invalid_token"`;

const initializeBody = (protocolVersion = '2025-11-25') => ({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion, capabilities: {}, clientInfo: { name: 'raw-client', version: '1.0.0' } },
});
const listToolsBody = { jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} };

/** A plain HTTP request to /api/mcp, for what the SDK client hides (status codes, headers). */
function raw(url: URL, headers: Record<string, string>, body?: unknown, method = body ? 'POST' : 'GET') {
  return fetch(url, {
    method,
    headers: {
      accept: 'application/json, text/event-stream',
      ...(body ? { 'content-type': 'application/json' } : {}),
      ...headers,
    },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
}

/** Initializes a 2025-era session over plain HTTP; answers its id. */
async function openSession(url: URL, headers: Record<string, string>, version?: string): Promise<string> {
  const response = await raw(url, headers, initializeBody(version));
  assert.equal(response.status, 200, await response.clone().text());
  const id = response.headers.get('mcp-session-id');
  assert.ok(id);
  return id;
}

const toolNames = (tools: Array<{ name: string }>) => tools.map((t) => t.name).sort();
type ToolError = { error: { code: string; message: string } };

describe('MCP runtime', () => {
  let server: McpTestServer;
  let dropDb: () => Promise<void>;
  const clients: Client[] = [];
  const connect = async (...args: Parameters<typeof connectClient>) => {
    const connected = await connectClient(...args);
    clients.push(connected.client);
    return connected;
  };

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

  describe('credentials', () => {
    const forms: Array<[string, Record<string, string>]> = [
      ['x-agent-key', { 'x-agent-key': KEYS.a }],
      ['x-agent-token', { 'x-agent-token': KEYS.a }],
      ['Authorization: Agent', { authorization: `Agent ${KEYS.a}` }],
      ['Authorization: Bearer ag_sk_', { authorization: `Bearer ${KEYS.a}` }],
      ['Authorization: Bearer <OAuth access token>', { authorization: `Bearer ${oauthToken(AGENT_A.id)}` }],
    ];
    for (const [name, headers] of forms) {
      test(`${name} resolves the agent`, async () => {
        const { client } = await connect(server.url, headers);
        const { tools } = await client.listTools();
        assert.ok(
          tools.some((t) => t.name === 'test_crash'),
          'agent A sees its own tools',
        );
        const result = await client.callTool({ name: 'agent_profile', arguments: {} });
        assert.deepEqual((result.structuredContent as { agentId: number }).agentId, AGENT_A.id);
      });
    }

    test('the first form present wins: a bad x-agent-key is not rescued by a good Authorization', async () => {
      const response = await raw(
        server.url,
        { 'x-agent-key': 'ag_sk_unknown', authorization: `Agent ${KEYS.a}` },
        initializeBody(),
      );
      assert.equal(response.status, 401);
      assert.equal(response.headers.get('www-authenticate'), INVALID_CHALLENGE);
    });

    test('no credential: 401 with the discovery challenge, in the error envelope', async () => {
      const absent: Array<Record<string, string>> = [
        {},
        { authorization: 'Basic dXNlcjpwYXNz' },
        { authorization: 'Bearer' },
      ];
      for (const headers of absent) {
        const response = await raw(server.url, headers, initializeBody());
        assert.equal(response.status, 401);
        assert.equal(response.headers.get('www-authenticate'), CHALLENGE);
        const body = await response.json();
        assert.equal(body.success, false);
        assert.equal(body.error.code, 'UNAUTHENTICATED');
        assert.ok(body.error.requestId);
      }
      for (const method of ['GET', 'DELETE']) {
        const response = await raw(server.url, {}, undefined, method);
        assert.equal(response.status, 401);
        assert.equal(response.headers.get('www-authenticate'), CHALLENGE);
      }
    });

    test('a credential that does not verify: 401 with error="invalid_token"', async () => {
      const user = await registerUser(server.app);
      const cases: Array<Record<string, string>> = [
        { 'x-agent-key': 'ag_sk_unknown' },
        { 'x-agent-token': KEYS.disabled },
        { authorization: `Agent ${KEYS.disabled}` },
        { authorization: 'Bearer ag_sk_revoked' },
        { authorization: 'Bearer not-a-token' },
        { authorization: `Bearer ${oauthToken(999)}` },
        { authorization: `Bearer ${oauthToken(4)}` }, // the disabled agent
        { authorization: `Bearer ${user.token}` }, // a login JWT is no agent credential
      ];
      for (const headers of cases) {
        const response = await raw(server.url, headers, initializeBody());
        assert.equal(response.status, 401, JSON.stringify(headers));
        assert.equal(response.headers.get('www-authenticate'), INVALID_CHALLENGE);
        assert.equal((await response.json()).error.code, 'UNAUTHENTICATED');
      }
    });

    test('a paused agent: 403 AGENT_PAUSED, without a challenge', async () => {
      const paused: Array<Record<string, string>> = [
        { 'x-agent-key': KEYS.paused },
        { authorization: `Bearer ${oauthToken(3)}` },
      ];
      for (const headers of paused) {
        const response = await raw(server.url, headers, initializeBody());
        assert.equal(response.status, 403);
        assert.equal(response.headers.get('www-authenticate'), null);
        assert.equal((await response.json()).error.code, 'AGENT_PAUSED');
      }
    });
  });

  test('Origin: absent or one of PUBLIC_URL, FRONTEND_URL, MCP_ALLOWED_ORIGINS; anything else 403', async () => {
    for (const origin of ['http://service.test', 'http://frontend.test', 'https://agent-console.test']) {
      const response = await raw(server.url, { 'x-agent-key': KEYS.a, origin }, initializeBody());
      assert.equal(response.status, 200, origin);
    }
    for (const origin of ['https://evil.test', 'null', 'http://service.test:8080', 'https://service.test']) {
      const response = await raw(server.url, { 'x-agent-key': KEYS.a, origin }, initializeBody());
      assert.equal(response.status, 403, origin);
      assert.equal((await response.json()).error.code, 'FORBIDDEN');
    }
    // Checked before the credential: a foreign page learns nothing about it.
    const anonymous = await raw(server.url, { origin: 'https://evil.test' }, initializeBody());
    assert.equal(anonymous.status, 403);
  });

  describe('tools', () => {
    let a: CheckedClient;
    before(async () => {
      a = (await connect(server.url, { 'x-agent-key': KEYS.a })).client;
    });

    test('tools/list shows only permitted tools (and the profile), with schemas and annotations', async () => {
      const { tools } = await a.listTools();
      assert.deepEqual(toolNames(tools), ['agent_profile', 'test_crash', 'test_echo', 'test_fail']);
      const echo = tools.find((t) => t.name === 'test_echo')!;
      assert.equal(echo.title, 'Echo');
      assert.equal(echo.inputSchema.type, 'object');
      assert.deepEqual(echo.inputSchema.required, ['text']);
      assert.ok(echo.inputSchema.properties?.times);
      assert.equal(echo.outputSchema?.type, 'object');
      assert.deepEqual([...((echo.outputSchema?.required as string[] | undefined) ?? [])].sort(), [
        'agentId',
        'calendarIds',
        'echo',
        'userId',
      ]);
      assert.deepEqual(
        { ...echo.annotations, title: undefined },
        { title: undefined, readOnlyHint: true, destructiveHint: false, idempotentHint: true },
      );
      const fail = tools.find((t) => t.name === 'test_fail')!;
      assert.equal(fail.annotations?.readOnlyHint, false);
      assert.equal(fail.annotations?.destructiveHint, false);
      assert.equal(fail.annotations?.idempotentHint, false);
      const crash = tools.find((t) => t.name === 'test_crash')!;
      assert.equal(crash.annotations?.destructiveHint, true);

      const b = (await connect(server.url, { authorization: `Agent ${KEYS.b}` })).client;
      assert.deepEqual(toolNames((await b.listTools()).tools), ['agent_profile', 'test_echo']);
    });

    test('tools/call runs as the agent under that permission scope; structured and text content', async () => {
      server.directory.calls.length = 0;
      const result = await a.callTool({ name: 'test_echo', arguments: { text: 'hi', times: 2 } });
      assert.equal(result.isError, undefined);
      const expected = { echo: 'hi hi', userId: AGENT_A.userId, agentId: AGENT_A.id, calendarIds: [1, 2] };
      assert.deepEqual(result.structuredContent, expected);
      const content = result.content as Array<{ type: string; text: string }>;
      assert.equal(content[0]?.type, 'text');
      assert.deepEqual(JSON.parse(content[0]!.text), expected);
      assert.equal(server.directory.calls.length, 1);
      const call = server.directory.calls[0]!;
      assert.deepEqual(
        { ...call, durationMs: 0 },
        {
          agentId: AGENT_A.id,
          actionKey: 'test.echo',
          outcome: 'ok',
          errorCode: null,
          durationMs: 0,
          arguments: { text: 'hi', times: 2 },
          targetIds: [],
          approvalId: null,
        },
      );
      assert.ok(call.durationMs >= 0);

      const profile = await a.callTool({ name: 'agent_profile', arguments: {} });
      assert.deepEqual(profile.structuredContent, {
        agentId: AGENT_A.id,
        userId: AGENT_A.userId,
        actions: ['agent.profile', 'test.crash', 'test.echo', 'test.fail'],
      });
    });

    test('invalid arguments: an isError result naming the field, VALIDATION_FAILED', async () => {
      server.directory.calls.length = 0;
      const missing = await a.callTool({ name: 'test_echo', arguments: { times: 9 } });
      assert.equal(missing.isError, true);
      const { error } = missing.structuredContent as ToolError;
      assert.equal(error.code, 'VALIDATION_FAILED');
      assert.match(error.message, /^Invalid arguments for tool test_echo: /);
      assert.match(error.message, /text: /);
      assert.match(error.message, /times: .*5/);
      const noArguments = await a.callTool({ name: 'test_echo' });
      assert.equal((noArguments.structuredContent as ToolError).error.code, 'VALIDATION_FAILED');
      assert.deepEqual(
        server.directory.calls.map((c) => [c.actionKey, c.outcome, c.errorCode]),
        [
          ['test.echo', 'error', 'VALIDATION_FAILED'],
          ['test.echo', 'error', 'VALIDATION_FAILED'],
        ],
      );
    });

    test('a DomainError is an isError result with its code and message', async () => {
      const result = await a.callTool({ name: 'test_fail', arguments: {} });
      assert.equal(result.isError, true);
      assert.deepEqual(result.structuredContent, {
        error: { code: 'SLOT_UNAVAILABLE', message: 'The slot is already taken' },
      });
      assert.equal(server.directory.calls.at(-1)?.errorCode, 'SLOT_UNAVAILABLE');
    });

    test('any other error is a generic INTERNAL result: nothing internal leaks', async () => {
      const result = await a.expectingInternal(() => a.callTool({ name: 'test_crash', arguments: {} }));
      assert.equal(result.isError, true);
      assert.deepEqual(result.structuredContent, { error: { code: 'INTERNAL', message: 'Internal error' } });
      assert.doesNotMatch(JSON.stringify(result), /SQLITE|secret_internal_table/);
      assert.equal(server.directory.calls.at(-1)?.errorCode, 'INTERNAL');
    });

    test('an unpermitted tool answers exactly like an unknown one', async () => {
      const hidden = await a.callTool({ name: 'test_hidden', arguments: {} });
      const unknown = await a.callTool({ name: 'no_such_tool', arguments: {} });
      for (const [result, name] of [
        [hidden, 'test_hidden'],
        [unknown, 'no_such_tool'],
      ] as const) {
        assert.equal(result.isError, true);
        assert.deepEqual(result.structuredContent, {
          error: { code: 'NOT_FOUND', message: `Tool ${name} not found` },
        });
      }
      const b = (await connect(server.url, { 'x-agent-key': KEYS.b })).client;
      const notB = await b.callTool({ name: 'test_fail', arguments: {} });
      assert.deepEqual(notB.structuredContent, {
        error: { code: 'NOT_FOUND', message: 'Tool test_fail not found' },
      });
      assert.deepEqual(
        server.directory.calls.slice(-3).map((c) => [c.agentId, c.actionKey, c.errorCode]),
        [
          [AGENT_A.id, 'test.hidden', 'NOT_FOUND'],
          [AGENT_A.id, 'no_such_tool', 'NOT_FOUND'],
          [AGENT_B.id, 'test.fail', 'NOT_FOUND'],
        ],
      );
    });

    test('resources are not offered without a provider', async () => {
      assert.equal(a.getServerCapabilities()?.resources, undefined);
      assert.ok(a.getServerCapabilities()?.tools);
    });
  });

  describe('2025-era sessions', () => {
    const headersA = { 'x-agent-key': KEYS.a };

    test('initialize answers a random session id stored with its agent and protocol version', async () => {
      const { transport } = await connect(server.url, headersA);
      const id = transport.sessionId;
      assert.ok(id && id.length >= 22, 'at least 128 bits');
      const row = await server.db.kysely
        .selectFrom('mcpSessions')
        .selectAll()
        .where('id', '=', id)
        .executeTakeFirstOrThrow();
      assert.equal(row.agentId, AGENT_A.id);
      assert.equal(row.protocolVersion, '2025-11-25');
      assert.equal(row.endedAt, null);

      const older = await openSession(server.url, headersA, '2025-06-18');
      const olderRow = await server.db.kysely
        .selectFrom('mcpSessions')
        .select('protocolVersion')
        .where('id', '=', older)
        .executeTakeFirstOrThrow();
      assert.equal(olderRow.protocolVersion, '2025-06-18');
      // An unknown version is answered with the server's preferred one.
      const future = await raw(server.url, headersA, initializeBody('2024-01-01'));
      assert.equal((await future.json()).result.protocolVersion, '2025-11-25');
    });

    test('a 2025-03-26 client works end to end', async () => {
      const id = await openSession(server.url, headersA, '2025-03-26');
      const list = await raw(
        server.url,
        { ...headersA, 'mcp-session-id': id, 'mcp-protocol-version': '2025-03-26' },
        listToolsBody,
      );
      assert.equal(list.status, 200);
      assert.equal(list.headers.get('mcp-session-id'), id);
      assert.ok((await list.json()).result.tools.length >= 4);
    });

    test('a session request is checked as the SDK transport checks it, single or batched', async () => {
      const id = await openSession(server.url, headersA);
      const session = { ...headersA, 'mcp-session-id': id };
      const single = await raw(
        server.url,
        { ...session, 'mcp-protocol-version': '2025-11-25' },
        listToolsBody,
      );
      assert.equal(single.status, 200);
      assert.match(single.headers.get('content-type') ?? '', /^application\/json/);
      assert.equal(single.headers.get('mcp-session-id'), id);
      assert.deepEqual(Object.keys(await single.json()).sort(), ['id', 'jsonrpc', 'result']);
      // What a single request is held to, with the SDK's own answers.
      const notAcceptable = await raw(server.url, { ...session, accept: 'application/json' }, listToolsBody);
      assert.equal(notAcceptable.status, 406);
      const wrongType = await raw(server.url, { ...session, 'content-type': 'text/plain' }, listToolsBody);
      assert.equal(wrongType.status, 415);
      const unsupported = await raw(
        server.url,
        { ...session, 'mcp-protocol-version': '1999-01-01' },
        listToolsBody,
      );
      assert.equal(unsupported.status, 400);
      assert.match((await unsupported.json()).error.message, /Unsupported protocol version/);
      const unknownMethod = await raw(server.url, session, { jsonrpc: '2.0', id: 7, method: 'no/such' });
      assert.equal(unknownMethod.status, 200);
      assert.deepEqual((await unknownMethod.json()).id, 7);
      // A batch goes through the SDK transport and is answered as one.
      const batch = await raw(server.url, session, [listToolsBody, { ...listToolsBody, id: 3 }]);
      assert.equal(batch.status, 200);
      assert.deepEqual(
        ((await batch.json()) as Array<{ id: number }>).map((answer) => answer.id).sort(),
        [2, 3],
      );
    });

    test('requests after initialize need the session id; unknown ids are 404', async () => {
      const missing = await raw(server.url, headersA, listToolsBody);
      assert.equal(missing.status, 400);
      for (const id of ['unknown-session-id-000000000000', 'x', 'a'.repeat(500)]) {
        const unknown = await raw(server.url, { ...headersA, 'mcp-session-id': id }, listToolsBody);
        assert.equal(unknown.status, 404);
        assert.equal((await unknown.json()).error.code, -32001);
      }
    });

    test('a session is bound to its agent: another agent credential answers 404', async () => {
      const id = await openSession(server.url, headersA);
      const other = await raw(server.url, { 'x-agent-key': KEYS.b, 'mcp-session-id': id }, listToolsBody);
      assert.equal(other.status, 404);
      const otherDelete = await raw(
        server.url,
        { 'x-agent-key': KEYS.b, 'mcp-session-id': id },
        undefined,
        'DELETE',
      );
      assert.equal(otherDelete.status, 404);
      // The same agent through another credential form is the same agent.
      const viaOauth = await raw(
        server.url,
        { authorization: `Bearer ${oauthToken(AGENT_A.id)}`, 'mcp-session-id': id },
        listToolsBody,
      );
      assert.equal(viaOauth.status, 200);
    });

    test('the session id is never a credential', async () => {
      const id = await openSession(server.url, headersA);
      const anonymous = await raw(server.url, { 'mcp-session-id': id }, listToolsBody);
      assert.equal(anonymous.status, 401);
      assert.equal(anonymous.headers.get('www-authenticate'), CHALLENGE);
    });

    test('DELETE ends the session; afterwards it is 404', async () => {
      const { client, transport } = await connect(server.url, headersA);
      const id = transport.sessionId!;
      await client.listTools();
      await transport.terminateSession();
      const row = await server.db.kysely
        .selectFrom('mcpSessions')
        .select('endedAt')
        .where('id', '=', id)
        .executeTakeFirstOrThrow();
      assert.ok(row.endedAt);
      const after = await raw(server.url, { ...headersA, 'mcp-session-id': id }, listToolsBody);
      assert.equal(after.status, 404);
      const again = await raw(server.url, { ...headersA, 'mcp-session-id': id }, undefined, 'DELETE');
      assert.equal(again.status, 404);
      const noId = await raw(server.url, headersA, undefined, 'DELETE');
      assert.equal(noId.status, 400);
    });

    test('GET: 405 with Allow: POST, DELETE (no server stream); 404 for an unknown session', async () => {
      const id = await openSession(server.url, headersA);
      const get = await raw(server.url, { ...headersA, 'mcp-session-id': id, accept: 'text/event-stream' });
      assert.equal(get.status, 405);
      assert.equal(get.headers.get('allow'), 'POST, DELETE');
      const unknown = await raw(server.url, { ...headersA, 'mcp-session-id': 'unknown-session-id-0000000' });
      assert.equal(unknown.status, 404);
    });

    test('a session idle for 24 hours is over', async () => {
      const id = await openSession(server.url, headersA);
      const stale = new Date(Date.now() - 24 * 60 * 60 * 1000 - 60_000).toISOString();
      await server.db.kysely
        .updateTable('mcpSessions')
        .set({ lastUsedAt: stale })
        .where('id', '=', id)
        .execute();
      const response = await raw(server.url, { ...headersA, 'mcp-session-id': id }, listToolsBody);
      assert.equal(response.status, 404);
    });

    test('use keeps a session alive', async () => {
      const id = await openSession(server.url, headersA);
      const recent = new Date(Date.now() - 23 * 60 * 60 * 1000).toISOString();
      await server.db.kysely
        .updateTable('mcpSessions')
        .set({ lastUsedAt: recent })
        .where('id', '=', id)
        .execute();
      const response = await raw(server.url, { ...headersA, 'mcp-session-id': id }, listToolsBody);
      assert.equal(response.status, 200);
      const row = await server.db.kysely
        .selectFrom('mcpSessions')
        .select('lastUsedAt')
        .where('id', '=', id)
        .executeTakeFirstOrThrow();
      assert.ok(Date.parse(row.lastUsedAt) > Date.now() - 60_000);
    });

    test('disabling the agent ends its sessions', async () => {
      const first = await openSession(server.url, headersA);
      const second = await openSession(server.url, headersA);
      const others = await openSession(server.url, { 'x-agent-key': KEYS.b });
      await endAgentSessions(server.db.kysely, AGENT_A.id);
      for (const id of [first, second]) {
        const response = await raw(server.url, { ...headersA, 'mcp-session-id': id }, listToolsBody);
        assert.equal(response.status, 404);
      }
      const stillOpen = await raw(
        server.url,
        { 'x-agent-key': KEYS.b, 'mcp-session-id': others },
        listToolsBody,
      );
      assert.equal(stillOpen.status, 200);
    });

    test('the credential is checked on every request of a session', async () => {
      const id = await openSession(server.url, { 'x-agent-key': KEYS.b });
      const agent = server.directory.agents.get(AGENT_B.id)!;
      agent.status = 'paused';
      try {
        const paused = await raw(server.url, { 'x-agent-key': KEYS.b, 'mcp-session-id': id }, listToolsBody);
        assert.equal(paused.status, 403);
        assert.equal((await paused.json()).error.code, 'AGENT_PAUSED');
        agent.status = 'disabled';
        const disabled = await raw(
          server.url,
          { 'x-agent-key': KEYS.b, 'mcp-session-id': id },
          listToolsBody,
        );
        assert.equal(disabled.status, 401);
      } finally {
        agent.status = 'active';
      }
    });
  });

  describe('2026-07-28 (stateless)', () => {
    const sessionCount = async () => {
      const row = await server.db.kysely
        .selectFrom('mcpSessions')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow();
      return Number(row.n);
    };

    test('a pinned 2026-07-28 client lists and calls tools without a session', async () => {
      const sessionsBefore = await sessionCount();
      const { client, transport } = await connect(server.url, { authorization: `Agent ${KEYS.a}` }, 'modern');
      assert.equal(transport.sessionId, undefined);
      const { tools } = await client.listTools();
      assert.deepEqual(toolNames(tools), ['agent_profile', 'test_crash', 'test_echo', 'test_fail']);
      const echo = tools.find((t) => t.name === 'test_echo')!;
      assert.equal(echo.annotations?.readOnlyHint, true);
      assert.ok(echo.outputSchema);
      const ok = await client.callTool({ name: 'test_echo', arguments: { text: 'modern' } });
      assert.deepEqual(ok.structuredContent, {
        echo: 'modern',
        userId: AGENT_A.userId,
        agentId: AGENT_A.id,
        calendarIds: [1, 2],
      });
      const refused = await client.callTool({ name: 'test_fail', arguments: {} });
      assert.equal(refused.isError, true);
      assert.equal((refused.structuredContent as ToolError).error.code, 'SLOT_UNAVAILABLE');
      const invalid = await client.callTool({ name: 'test_echo', arguments: { text: 7 } });
      assert.equal((invalid.structuredContent as ToolError).error.code, 'VALIDATION_FAILED');
      const hidden = await client.callTool({ name: 'test_hidden', arguments: {} });
      assert.equal((hidden.structuredContent as ToolError).error.code, 'NOT_FOUND');
      assert.equal(await sessionCount(), sessionsBefore, 'no session is stored');
    });

    test('an auto-negotiating client picks 2026-07-28 too, and still needs a credential', async () => {
      const { client, transport } = await connect(server.url, { 'x-agent-key': KEYS.b }, 'auto');
      assert.equal(transport.sessionId, undefined);
      assert.deepEqual(toolNames((await client.listTools()).tools), ['agent_profile', 'test_echo']);
      const anonymous = await raw(
        server.url,
        { 'mcp-protocol-version': '2026-07-28' },
        {
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/list',
          params: { _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28' } },
        },
      );
      assert.equal(anonymous.status, 401);
      assert.equal(anonymous.headers.get('www-authenticate'), CHALLENGE);
    });
  });
});

describe('MCP sessions across app instances', () => {
  test('a session initialized on one instance is served, and ended, by another', async () => {
    const shared = await sharedDatabase();
    const directory = newDirectory();
    const one = await startMcpServer(shared.first, directory);
    const two = await startMcpServer(shared.second, directory);
    const headers = { 'x-agent-key': KEYS.a };
    try {
      const { client, transport } = await connectClient(one.url, headers);
      const id = transport.sessionId!;
      await client.listTools();
      await client.close();

      // A client that resumes the session on the other instance: no new initialize.
      const resumed = await connectClient(two.url, headers, 'legacy', {
        sessionId: id,
        protocolVersion: '2025-11-25',
      });
      const result = await resumed.client.callTool({ name: 'test_echo', arguments: { text: 'elsewhere' } });
      assert.equal((result.structuredContent as { echo: string }).echo, 'elsewhere');
      const sessions = await shared.second.kysely.selectFrom('mcpSessions').select('id').execute();
      assert.deepEqual(
        sessions.map((s) => s.id),
        [id],
      );
      await resumed.transport.terminateSession();
      await resumed.client.close();

      const onFirst = await raw(one.url, { ...headers, 'mcp-session-id': id }, listToolsBody);
      assert.equal(onFirst.status, 404);
    } finally {
      await one.close();
      await two.close();
      await shared.drop();
    }
  });
});

describe('MCP resources and configuration', () => {
  test('an injected resource provider lists and reads with the agent per-action actor', async () => {
    const provider: McpResourceProvider = {
      list: async (access) =>
        access.actorFor('test.echo')
          ? [{ uri: 'test://echo/scope', name: 'Echo scope', mimeType: 'application/json' }]
          : [],
      read: async (access, uri) => {
        const actor = access.actorFor('test.echo');
        if (uri !== 'test://echo/scope' || !actor) return null;
        const text = JSON.stringify({ userId: actor.userId, calendarIds: actor.agent?.scope.calendarIds });
        return [{ uri, mimeType: 'application/json', text }];
      },
    };
    const { db, drop } = await createTestDatabase();
    const server = await startMcpServer(db, newDirectory(), { resources: provider });
    try {
      for (const era of ['legacy', 'modern'] as const) {
        const { client } = await connectClient(server.url, { 'x-agent-key': KEYS.a }, era);
        const { resources } = await client.listResources();
        assert.deepEqual(
          resources.map((r) => r.uri),
          ['test://echo/scope'],
        );
        const read = await client.readResource({ uri: 'test://echo/scope' });
        const first = read.contents[0] as { text: string };
        assert.deepEqual(JSON.parse(first.text), { userId: AGENT_A.userId, calendarIds: [1, 2] });
        await assert.rejects(client.readResource({ uri: 'test://nothing' }));
        await client.close();
      }
    } finally {
      await server.close();
      await drop();
    }
  });

  test('MCP_ALLOWED_ORIGINS is a comma-separated list of origins', () => {
    const config = loadConfig({ MCP_ALLOWED_ORIGINS: 'https://a.test/, http://b.test:8080' });
    assert.deepEqual(config.mcpAllowedOrigins, ['https://a.test', 'http://b.test:8080']);
    assert.deepEqual(loadConfig({}).mcpAllowedOrigins, []);
    assert.throws(
      () => loadConfig({ MCP_ALLOWED_ORIGINS: 'https://a.test,not an origin' }),
      (error) => {
        assert.ok(error instanceof ConfigError);
        assert.match(error.message, /MCP_ALLOWED_ORIGINS/);
        return true;
      },
    );
  });
});
