// The statements of one `tools/call`, pinned: each is a round trip on PostgreSQL, and its socket
// write the largest single CPU cost of a call (docs/performance.md). A read that comes back fails here.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestApp, registerUser, type TestApp } from '../helpers/app.js';
import { client } from '../helpers/http.js';
import { newAgent } from '../helpers/mcp.js';
import { grant } from '../helpers/oauth.js';
import { roundTripsOf } from '../helpers/statements.js';

const LEGACY = '2025-11-25';
const MODERN = '2026-07-28';
const ACCEPT = { accept: 'application/json, text/event-stream', 'content-type': 'application/json' };

let t: TestApp;
/** The credentials of one agent each, holding the `all_read_only` preset: a key, an OAuth token. */
const credentials: Record<'key' | 'oauth', Record<string, string>> = { key: {}, oauth: {} };

before(async () => {
  t = await createTestApp();
  const owner = await registerUser(t.app);
  const { key } = await newAgent(t.app, owner, { permissionGroupId: 'all_read_only' });
  credentials.key = { 'x-agent-key': key };
  const { tokens } = await grant(t.app, owner, { permissionGroupId: 'all_read_only' });
  credentials.oauth = { authorization: `Bearer ${tokens.access_token}` };
});
after(() => t.close());

const post = (headers: Record<string, string>, body: unknown) =>
  client(t.app, null).request('POST', '/api/mcp', body, { ...ACCEPT, ...headers });

/** A 2025-era session of `credential`: the headers of its later requests. */
async function openSession(credential: Record<string, string>) {
  const init = await post(credential, {
    jsonrpc: '2.0',
    id: 0,
    method: 'initialize',
    params: { protocolVersion: LEGACY, capabilities: {}, clientInfo: { name: 'count', version: '1.0.0' } },
  });
  assert.equal(init.statusCode, 200, init.body);
  const headers = {
    ...credential,
    'mcp-session-id': String(init.headers['mcp-session-id']),
    'mcp-protocol-version': LEGACY,
  };
  const initialized = await post(headers, { jsonrpc: '2.0', method: 'notifications/initialized' });
  assert.equal(initialized.statusCode, 202, initialized.body);
  return headers;
}

/** One `tools/call` of `tool` as each era's client sends it; answers its tool result. */
async function call(era: 'session' | 'stateless', credential: Record<string, string>, tool: string) {
  const headers =
    era === 'session'
      ? await openSession(credential)
      : { ...credential, 'mcp-method': 'tools/call', 'mcp-name': tool, 'mcp-protocol-version': MODERN };
  const body = {
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/call',
    params: {
      name: tool,
      arguments: {},
      ...(era === 'stateless'
        ? {
            _meta: {
              'io.modelcontextprotocol/protocolVersion': MODERN,
              'io.modelcontextprotocol/clientInfo': { name: 'count', version: '1.0.0' },
              'io.modelcontextprotocol/clientCapabilities': {},
            },
          }
        : {}),
    },
  };
  const send = async () => {
    const response = await post(headers, body);
    assert.equal(response.statusCode, 200, response.body);
    const { result } = response.json() as { result: { isError?: boolean; structuredContent: unknown } };
    assert.notEqual(result.isError, true, response.body);
    return result.structuredContent;
  };
  // The first call marks the key and agent used (at most once a minute): not a call's cost.
  await send();
  return roundTripsOf(send);
}

/**
 * Round trips of one call: the credential read (a key: the key, its agent and the agent's
 * permissions in one statement; an OAuth token: its grant, then the agent with its permissions;
 * either checks a 2025-era session in the same statement), the tool's own read (agent_profile: none, the credential read loaded
 * the agent; calendar_list: own and shared calendars in one), and the activity insert.
 */
const EXPECTED = {
  session: { key: { agent_profile: 2, calendar_list: 3 }, oauth: { agent_profile: 3, calendar_list: 4 } },
  stateless: { key: { agent_profile: 2, calendar_list: 3 }, oauth: { agent_profile: 3, calendar_list: 4 } },
} as const;

for (const era of ['session', 'stateless'] as const)
  describe(`tools/call, ${era === 'session' ? LEGACY : MODERN} (${era})`, () => {
    for (const kind of ['key', 'oauth'] as const)
      for (const tool of ['agent_profile', 'calendar_list'] as const)
        test(`${tool} with ${kind === 'key' ? 'an agent key' : 'an OAuth token'}`, async () => {
          const { statements } = await call(era, credentials[kind], tool);
          assert.equal(statements.length, EXPECTED[era][kind][tool], statements.join('\n'));
        });
  });

describe('a 2025-era session checked in the credential read', () => {
  const agedBy = async (sessionId: string, ms: number) => {
    const at = new Date(Date.now() - ms).toISOString();
    await t.db.kysely
      .updateTable('mcpSessions')
      .set({ lastUsedAt: at })
      .where('id', '=', sessionId)
      .execute();
  };
  const lastUsedAt = async (sessionId: string) =>
    Date.parse(
      (
        await t.db.kysely
          .selectFrom('mcpSessions')
          .select('lastUsedAt')
          .where('id', '=', sessionId)
          .executeTakeFirstOrThrow()
      ).lastUsedAt,
    );
  const profileCall = { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'agent_profile' } };

  for (const kind of ['key', 'oauth'] as const)
    test(`with ${kind === 'key' ? 'an agent key' : 'an OAuth token'}: marked when a minute old, over after a day idle`, async () => {
      const headers = await openSession(credentials[kind]);
      const sessionId = headers['mcp-session-id'];
      await agedBy(sessionId, 2 * 60_000);
      const before = Date.now();
      const { result: marked, statements } = await roundTripsOf(() => post(headers, profileCall));
      assert.equal(marked.statusCode, 200, marked.body);
      // The mark is the one statement more.
      assert.equal(statements.length, EXPECTED.session[kind].agent_profile + 1, statements.join('\n'));
      assert.ok((await lastUsedAt(sessionId)) >= before - 1000);

      await agedBy(sessionId, 24 * 60 * 60_000 + 60_000);
      const over = await post(headers, profileCall);
      assert.equal(over.statusCode, 404, over.body);
      assert.equal(over.json().error.code, -32001);
    });
});
