import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  type Client,
  type ClientCapabilities,
  type ElicitRequestURLParams,
  type ElicitResult,
  StreamableHTTPClientTransport,
} from '@modelcontextprotocol/client';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import type { ToolCallGate } from '../../src/mcp/types.js';
import { createTestDatabase, type SignedInUser, type TwoInstances, twoInstances } from '../helpers/app.js';
import { at, customer, futureMonday, hourAfterHour } from '../helpers/booking.js';
import { createResource, createType } from '../helpers/catalogue.js';
import { KEYS, MCP_TEST_ENV, newDirectory, startMcpServer } from '../helpers/mcp.js';
import { type OrgOwner, ownerWithOrganisation } from '../helpers/organisations.js';
import { CheckedClient } from '../helpers/tool-result-check.js';

type Era = 'legacy' | 'modern';
type ToolResult = { isError?: boolean; structuredContent?: Record<string, unknown> };
type Pending = {
  approvalRequired: true;
  approval: { id: number; status: string; expiresAt: string; approveUrl: string };
};
type Approval = { id: number; agentId: number; status: string; summary: string };

/** What a client's elicitation handler saw, and every question that reached the client on the wire. */
interface Asked {
  requests: Array<Record<string, unknown>>;
  /** `elicitation/create` requests (2025) and `input_required` results (2026), before the SDK looks at them. */
  wire: unknown[];
}

/** An SDK client of `era` declaring `capabilities`, whose elicitation handler records and answers with `answer`. */
async function elicitingClient(
  url: URL,
  key: string,
  era: Era,
  capabilities: ClientCapabilities,
  answer: () => Promise<ElicitResult> = async () => ({ action: 'accept' }),
): Promise<{ client: Client; asked: Asked }> {
  const asked: Asked = { requests: [], wire: [] };
  const client = new CheckedClient(
    { name: 'elicitation-test-client', version: '1.0.0' },
    {
      capabilities,
      ...(era === 'modern' ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {}),
    },
  );
  if (capabilities.elicitation) {
    client.setRequestHandler('elicitation/create', async (request) => {
      asked.requests.push(request.params as Record<string, unknown>);
      return answer();
    });
  }
  const transport = new StreamableHTTPClientTransport(url, {
    requestInit: { headers: { 'x-agent-key': key } },
  });
  await client.connect(transport);
  // Seen before the SDK client validates (a client without URL mode would refuse it quietly).
  const deliver = transport.onmessage;
  transport.onmessage = (message) => {
    const { method, result } = message as { method?: unknown; result?: { resultType?: unknown } };
    if (method === 'elicitation/create' || result?.resultType === 'input_required') asked.wire.push(message);
    deliver?.(message);
  };
  return { client, asked };
}

const URL_MODE: ClientCapabilities = { elicitation: { url: {} } };
const FORM_ONLY: ClientCapabilities = { elicitation: { form: {} } };

const call = (client: Client, name: string, args: Record<string, unknown>) =>
  client.callTool({ name, arguments: args }) as Promise<ToolResult>;

function pendingOf(result: ToolResult): Pending['approval'] {
  assert.equal(result.isError, undefined, JSON.stringify(result));
  const answer = result.structuredContent as unknown as Pending;
  assert.equal(answer.approvalRequired, true, JSON.stringify(result));
  assert.equal(answer.approval.status, 'pending');
  return answer.approval;
}

/** URL-mode elicitation of approvals, through the SDK clients of both eras, on the whole app. */
describe('approvals asked through URL-mode elicitation', () => {
  let app: FastifyInstance;
  let dropDb: () => Promise<void>;
  let owner: OrgOwner;
  let room: { id: number };
  let url: URL;

  before(async () => {
    const { db, drop } = await createTestDatabase();
    dropDb = drop;
    app = await buildApp(loadConfig(MCP_TEST_ENV), { db, logger: false });
    await app.listen({ port: 0, host: '127.0.0.1' });
    const address = app.server.address();
    if (!address || typeof address === 'string') throw new Error('no port');
    url = new URL(`http://127.0.0.1:${address.port}/api/mcp`);
    owner = await ownerWithOrganisation(app, { timezone: 'Europe/Berlin' });
    const type = await createType(app, owner, {
      pricingEnabled: true,
      priceAmount: 4000,
      priceCurrency: 'EUR',
    });
    room = await createResource(app, owner, { name: 'Room A', resourceTypeId: type.id });
  });
  after(async () => {
    await app.close();
    await dropDb();
  });

  const inject = (user: SignedInUser, method: 'GET' | 'POST' | 'PUT', path: string, payload?: unknown) =>
    app.inject({
      method,
      url: path,
      headers: user.auth,
      ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }),
    });

  /** A new agent of the owner whose writes need approval, and its key. */
  async function approvingAgent(): Promise<{ id: number; key: string }> {
    const agent = (
      await inject(owner, 'POST', '/api/agents', {
        name: 'Booker',
        permissionGroupId: 'reservations_operator',
      })
    ).json() as { id: number };
    const { key } = (await inject(owner, 'POST', `/api/agents/${agent.id}/keys`, { label: 'k' })).json();
    const put = await inject(owner, 'PUT', `/api/agents/${agent.id}/policy`, { requireApproval: 'writes' });
    assert.equal(put.statusCode, 200, put.body);
    return { id: agent.id, key };
  }

  const booking = hourAfterHour(() => room.id, 6);

  /** Every approval the agent asked for (any status). */
  const approvalsOf = async (agentId: number) => {
    const response = await inject(owner, 'GET', '/api/approvals?limit=100');
    assert.equal(response.statusCode, 200, response.body);
    return (response.json().items as Approval[]).filter((a) => a.agentId === agentId);
  };
  const bookedAt = async (startTime: string) =>
    (
      (await inject(owner, 'GET', `/api/reservations?resourceId=${room.id}&limit=200`)).json()
        .items as Array<{
        startTime: string;
        status: string;
      }>
    ).filter((r) => r.startTime === startTime);

  function assertAskedAbout(asked: Asked, approval: Pending['approval'], era: Era) {
    assert.equal(asked.requests.length, 1, JSON.stringify(asked.requests));
    assert.equal(asked.wire.length, 1, JSON.stringify(asked.wire));
    const request = asked.requests[0] as unknown as ElicitRequestURLParams;
    assert.equal(request.mode, 'url');
    assert.equal(request.url, approval.approveUrl);
    assert.equal(request.url, `http://frontend.test/approvals/${approval.id}`);
    // The summary of the call, in words, and what to do.
    assert.match(request.message, /^Your agent Booker asks to: Book Room A, .* Europe\/Berlin, 40\.00 EUR\./);
    assert.match(request.message, /Approve or deny at the link\.$/);
    // 2025-11-25 names the elicitation by the approval; 2026-07-28 has no such field.
    if (era === 'legacy') assert.equal(request.elicitationId, `approval-${approval.id}`);
  }

  for (const era of ['legacy', 'modern'] as const) {
    test(`${era}: a URL-capable client is asked with the approve link, and still gets the approval; one approval is stored`, async () => {
      const agent = await approvingAgent();
      const { client, asked } = await elicitingClient(url, agent.key, era, URL_MODE);
      const args = booking();
      const approval = pendingOf(await call(client, 'reservations_create', args));
      assertAskedAbout(asked, approval, era);
      const stored = await approvalsOf(agent.id);
      assert.deepEqual(
        stored.map((a) => [a.id, a.status]),
        [[approval.id, 'pending']],
      );
      assert.equal((await bookedAt(args.startTime)).length, 0, 'nothing runs before the owner decides');

      // A call that needs no approval asks nothing.
      const read = await call(client, 'agent_profile', {});
      assert.equal(read.isError, undefined, JSON.stringify(read));
      const dry = await call(client, 'reservations_create', { ...booking(), dryRun: true });
      assert.equal((dry.structuredContent as { wouldSucceed: boolean }).wouldSucceed, true);
      assert.equal(asked.requests.length, 1);
      assert.equal(asked.wire.length, 1);
      assert.equal((await approvalsOf(agent.id)).length, 1);

      // The activity shows the one call that asked.
      const activity = (
        await inject(owner, 'GET', `/api/agents/${agent.id}/activity?actionKey=reservations.create&limit=50`)
      ).json().items as Array<{ approvalId: number | null }>;
      assert.equal(activity.filter((item) => item.approvalId === approval.id).length, 1);
      await client.close();
    });

    test(`${era}: a client without URL mode gets no elicitation, only the approval-required result`, async () => {
      const agent = await approvingAgent();
      for (const capabilities of [{}, FORM_ONLY]) {
        const { client, asked } = await elicitingClient(url, agent.key, era, capabilities);
        pendingOf(await call(client, 'reservations_create', booking()));
        assert.deepEqual(asked.wire, [], JSON.stringify(capabilities));
        assert.equal(asked.requests.length, 0, JSON.stringify(capabilities));
        await client.close();
      }
      assert.equal((await approvalsOf(agent.id)).length, 2);
    });

    test(`${era}: declining to open the link is not a denial; the owner approves and approvals_get shows executed`, async () => {
      const agent = await approvingAgent();
      const { client, asked } = await elicitingClient(url, agent.key, era, URL_MODE, async () => ({
        action: 'decline',
      }));
      const args = booking();
      const approval = pendingOf(await call(client, 'reservations_create', args));
      assertAskedAbout(asked, approval, era);
      const polled = await call(client, 'approvals_get', { approvalId: approval.id });
      assert.equal((polled.structuredContent as Approval).status, 'pending');

      const approved = await inject(owner, 'POST', `/api/approvals/${approval.id}/approve`);
      assert.equal(approved.statusCode, 200, approved.body);
      assert.equal(approved.json().status, 'executed');
      const read = await call(client, 'approvals_get', { approvalId: approval.id });
      assert.equal((read.structuredContent as Approval).status, 'executed');
      assert.equal((await bookedAt(args.startTime)).length, 1);
      assert.equal((await approvalsOf(agent.id)).length, 1);
      await client.close();
    });
  }

  test('2026-07-28: a retry whose requestState was tampered with is refused and creates nothing', async () => {
    const agent = await approvingAgent();
    const client = new CheckedClient(
      { name: 'manual-client', version: '1.0.0' },
      {
        capabilities: URL_MODE,
        versionNegotiation: { mode: { pin: '2026-07-28' } },
        inputRequired: { autoFulfill: false },
      },
    );
    await client.connect(
      new StreamableHTTPClientTransport(url, { requestInit: { headers: { 'x-agent-key': agent.key } } }),
    );
    const args = booking();
    const first = (await client.callTool(
      { name: 'reservations_create', arguments: args },
      { allowInputRequired: true },
    )) as unknown as { inputRequests?: Record<string, { params?: { url?: string } }>; requestState?: string };
    const state = first.requestState;
    assert.ok(state, JSON.stringify(first));
    const [approval] = await approvalsOf(agent.id);
    assert.ok(approval);
    assert.equal(first.inputRequests?.approval?.params?.url, `http://frontend.test/approvals/${approval.id}`);

    const retry = (requestState: string, callArgs = args) =>
      client.callTool(
        {
          name: 'reservations_create',
          arguments: callArgs,
          inputResponses: { approval: { action: 'accept' } },
          requestState,
        } as Parameters<Client['callTool']>[0],
        { allowInputRequired: true },
      ) as Promise<ToolResult>;

    // A state with its body changed (another approval's id) does not verify.
    const [version, body, mac] = state.split('.') as [string, string, string];
    const decoded = JSON.parse(Buffer.from(body, 'base64url').toString()) as {
      p: { approval: { id: number } };
    };
    decoded.p.approval.id += 1000;
    const forged = `${version}.${Buffer.from(JSON.stringify(decoded)).toString('base64url')}.${mac}`;
    await assert.rejects(retry(forged), /Invalid or expired requestState/);
    assert.equal((await approvalsOf(agent.id)).length, 1);

    // Another agent's retry with this agent's genuine state does not verify either (bound to the agent).
    const other = await approvingAgent();
    const stranger = new CheckedClient(
      { name: 'manual-client', version: '1.0.0' },
      {
        capabilities: URL_MODE,
        versionNegotiation: { mode: { pin: '2026-07-28' } },
        inputRequired: { autoFulfill: false },
      },
    );
    await stranger.connect(
      new StreamableHTTPClientTransport(url, { requestInit: { headers: { 'x-agent-key': other.key } } }),
    );
    await assert.rejects(
      stranger.callTool(
        {
          name: 'reservations_create',
          arguments: args,
          inputResponses: { approval: { action: 'accept' } },
          requestState: state,
        } as Parameters<Client['callTool']>[0],
        { allowInputRequired: true },
      ),
      /Invalid or expired requestState/,
    );
    assert.equal((await approvalsOf(other.id)).length, 0);
    await stranger.close();

    // The genuine state answers the approval it created, and creates none.
    assert.equal(pendingOf(await retry(state)).id, approval.id);
    assert.equal((await approvalsOf(agent.id)).length, 1);
    await client.close();
  });
});

/** A 2025-era client that never answers: the call answers at the time bound, with its approval. */
describe('a URL elicitation nobody answers', () => {
  let close: () => Promise<void>;
  let url: URL;
  let asked = 0;
  const gate: ToolCallGate = {
    bindRunner() {},
    async admit() {
      asked += 1;
      return {
        kind: 'approval',
        approval: {
          id: 40 + asked,
          status: 'pending',
          expiresAt: new Date(Date.now() + 86_400_000).toISOString(),
          approveUrl: `http://frontend.test/approvals/${40 + asked}`,
          summary: 'Fail the test slot',
        },
      };
    },
  };

  before(async () => {
    const { db, drop } = await createTestDatabase();
    const server = await startMcpServer(db, newDirectory(), { gate, elicitationTimeoutMs: 400 });
    url = server.url;
    close = async () => {
      await server.close();
      await drop();
    };
  });
  after(() => close());

  test('the call answers the approval-required result once the bound passes', async () => {
    let received = 0;
    const { client, asked: seen } = await elicitingClient(url, KEYS.a, 'legacy', URL_MODE, () => {
      received += 1;
      return new Promise<ElicitResult>(() => {});
    });
    const started = performance.now();
    const result = await call(client, 'test_fail', {});
    const took = performance.now() - started;
    const approval = pendingOf(result);
    assert.equal(approval.id, 41);
    assert.equal(received, 1, 'the client was asked');
    assert.equal(
      (seen.requests[0] as { message?: string }).message,
      'Your agent Planner asks to: Fail the test slot. Nothing was done yet. Approve or deny at the link.',
    );
    assert.ok(took >= 350 && took < 5000, `answered after ${Math.round(took)} ms`);
    // The session goes on: the next call is asked (and answered at the bound) too.
    const again = pendingOf(await call(client, 'test_fail', {}));
    assert.equal(again.id, 42);
    assert.equal(received, 2);
    // A read needs no approval and asks nothing.
    const echo = await call(client, 'test_echo', { text: 'hi' });
    assert.equal((echo.structuredContent as { echo: string }).echo, 'hi');
    assert.equal(received, 2);
    await client.close();
  });
});

/**
 * Whether a session's client takes URL elicitation is kept with the session: a session opened
 * on one instance is asked on the other (on PostgreSQL two apps share the database; the client
 * answers the question on the instance that asked it).
 */
describe('URL elicitation across instances', () => {
  let instances: TwoInstances;
  let secondUrl: string;
  before(async () => {
    const listening = await twoInstances({}, { listen: true });
    instances = listening;
    secondUrl = `${listening.urls[1]}/api/mcp`;
  });
  after(() => instances.close());

  test('a session opened on one instance is asked through URL mode on the other', async () => {
    const { first } = instances;
    const owner = await ownerWithOrganisation(first, { timezone: 'Europe/Berlin' });
    const type = await createType(first, owner, {});
    const room = await createResource(first, owner, { name: 'Room B', resourceTypeId: type.id });
    const post = (url: string, payload: Record<string, unknown>) =>
      first.inject({ method: 'POST', url, headers: owner.auth, payload });
    const agent = (
      await post('/api/agents', { name: 'Booker', permissionGroupId: 'reservations_operator' })
    ).json();
    const { key } = (await post(`/api/agents/${agent.id}/keys`, { label: 'k' })).json();
    const policy = await first.inject({
      method: 'PUT',
      url: `/api/agents/${agent.id}/policy`,
      headers: owner.auth,
      payload: { requireApproval: 'writes' },
    });
    assert.equal(policy.statusCode, 200, policy.body);
    const headers = {
      'x-agent-key': key,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    };
    const init = await first.inject({
      method: 'POST',
      url: '/api/mcp',
      headers,
      payload: {
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: {
          protocolVersion: '2025-11-25',
          capabilities: URL_MODE,
          clientInfo: { name: 'raw', version: '1' },
        },
      },
    });
    assert.equal(init.statusCode, 200, init.body);
    const sessionId = init.headers['mcp-session-id'] as string;
    const inSession = { ...headers, 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-11-25' };

    // The call, on the other instance: its answer is an event stream whose first message asks.
    const response = await fetch(secondUrl, {
      method: 'POST',
      headers: inSession,
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 2,
        method: 'tools/call',
        params: {
          name: 'reservations_create',
          arguments: {
            resourceId: room.id,
            startTime: at(futureMonday(), 9),
            endTime: at(futureMonday(), 10),
            customer,
          },
        },
      }),
    });
    assert.equal(response.headers.get('content-type')?.startsWith('text/event-stream'), true);
    const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
    const messages: Array<Record<string, unknown>> = [];
    let buffered = '';
    const nextMessage = async () => {
      for (;;) {
        const event = /(?:^|\n)data: (.*)\n/.exec(buffered);
        if (event) {
          buffered = buffered.slice(event.index + event[0].length);
          return JSON.parse(event[1]!) as Record<string, unknown>;
        }
        const { value, done } = await reader.read();
        if (done) throw new Error(`the stream ended: ${JSON.stringify(messages)}`);
        buffered += value;
      }
    };
    const asked = await nextMessage();
    assert.equal(asked.method, 'elicitation/create');
    const params = asked.params as { mode: string; url: string };
    assert.equal(params.mode, 'url');
    assert.match(params.url, /\/approvals\/\d+$/);
    const answered = await fetch(secondUrl, {
      method: 'POST',
      headers: inSession,
      body: JSON.stringify({ jsonrpc: '2.0', id: asked.id, result: { action: 'accept' } }),
    });
    assert.equal(answered.status, 202);
    const result = await nextMessage();
    assert.equal(result.id, 2);
    const content = (result.result as { structuredContent: { approvalRequired: boolean } }).structuredContent;
    assert.equal(content.approvalRequired, true);
    await reader.cancel();
  });
});
