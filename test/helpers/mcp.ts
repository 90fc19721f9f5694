import { StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import type { Db } from '../../src/db/database.js';
import { DomainError } from '../../src/lib/errors.js';
import type { McpRoutesOptions } from '../../src/mcp/routes.js';
import type {
  ActionRisk,
  AgentDirectory,
  ResolvedAgent,
  ToolCallRecord,
  ToolDefinition,
} from '../../src/mcp/types.js';
import { type SignedInUser, TEST_ENV } from './app.js';
import { client, expectStatus, type RequestBody } from './http.js';
import { CheckedClient } from './tool-result-check.js';

/** A fake agents module: agents by key and by id, and the tool calls it was told about. */
export interface FakeAgentDirectory extends AgentDirectory {
  agents: Map<number, ResolvedAgent>;
  keys: Map<string, number>;
  calls: ToolCallRecord[];
}

export function fakeAgentDirectory(
  agents: ResolvedAgent[],
  keys: Record<string, number>,
): FakeAgentDirectory {
  const byId = new Map(agents.map((agent) => [agent.id, agent]));
  const byKey = new Map(Object.entries(keys));
  const calls: ToolCallRecord[] = [];
  // As the contract says: a disabled agent does not resolve at all.
  const visible = (agent: ResolvedAgent | undefined) =>
    agent && agent.status !== 'disabled' ? structuredClone(agent) : null;
  return {
    agents: byId,
    keys: byKey,
    calls,
    resolveKey: async (key) => {
      const id = byKey.get(key);
      return id === undefined ? null : visible(byId.get(id));
    },
    resolveAgent: async (agentId) => visible(byId.get(agentId)),
    recordToolCall: async (call) => {
      calls.push(call);
    },
  };
}

export const AGENT_A: ResolvedAgent = {
  id: 1,
  userId: 10,
  name: 'Planner',
  status: 'active',
  permissionGroupId: null,
  permissions: [
    { actionKey: 'test.echo', scope: { calendarIds: [1, 2] } },
    { actionKey: 'test.fail', scope: {} },
    { actionKey: 'test.crash', scope: {} },
  ],
  description: null,
  oauthClientId: null,
  createdAt: '2026-01-05T09:00:00.000Z',
  lastUsedAt: null,
};
export const AGENT_B: ResolvedAgent = {
  id: 2,
  userId: 11,
  name: 'Reader',
  status: 'active',
  permissionGroupId: 'minimal',
  permissions: [{ actionKey: 'test.echo', scope: {} }],
  description: 'Reads',
  oauthClientId: null,
  createdAt: '2026-01-05T09:00:00.000Z',
  lastUsedAt: null,
};
export const AGENT_PAUSED: ResolvedAgent = { ...AGENT_B, id: 3, name: 'Paused', status: 'paused' };
export const AGENT_DISABLED: ResolvedAgent = { ...AGENT_B, id: 4, name: 'Gone', status: 'disabled' };

export const KEYS = {
  a: 'ag_sk_alpha_0123456789',
  b: 'ag_sk_beta_0123456789',
  paused: 'ag_sk_paused_0123456789',
  disabled: 'ag_sk_disabled_0123456789',
};

/** OAuth access tokens the fake verifier accepts: `oauth-agent-<id>`. */
export const oauthToken = (agentId: number) => `oauth-agent-${agentId}`;
const verifyAccessToken = async (token: string) => {
  const match = /^oauth-agent-(\d+)$/.exec(token);
  return match ? Number(match[1]) : null;
};

const RISKS: Record<string, ActionRisk> = {
  'agent.profile': 'read',
  'test.echo': 'read',
  'test.fail': 'write',
  'test.crash': 'destructive',
  'test.hidden': 'read',
};

/** Two real-looking tools, plus a crashing one, an unpermitted one and the profile. */
export function fakeTools(): ToolDefinition[] {
  const echo: ToolDefinition = {
    actionKey: 'test.echo',
    title: 'Echo',
    description: 'Echoes the text, and reports the scope it ran under.',
    input: z.object({
      text: z.string().min(1).describe('What to echo'),
      times: z.number().int().min(1).max(5).default(1),
    }),
    output: z.object({
      echo: z.string(),
      userId: z.number(),
      agentId: z.number(),
      calendarIds: z.array(z.number()).nullable(),
    }),
    run: async (actor, input: { text: string; times: number }) => ({
      echo: Array.from({ length: input.times }, () => input.text).join(' '),
      userId: actor.userId,
      agentId: actor.agent?.id ?? 0,
      calendarIds: actor.agent?.scope.calendarIds ? [...actor.agent.scope.calendarIds] : null,
    }),
  };
  const fail: ToolDefinition = {
    actionKey: 'test.fail',
    title: 'Fail',
    description: 'Always refused: the slot is taken.',
    input: z.object({}),
    output: z.object({ ok: z.boolean() }),
    run: async () => {
      throw new DomainError('SLOT_UNAVAILABLE', 'The slot is already taken');
    },
  };
  const crash: ToolDefinition = {
    actionKey: 'test.crash',
    title: 'Crash',
    description: 'Throws an unexpected error.',
    input: z.object({}),
    output: z.object({ ok: z.boolean() }),
    run: async () => {
      throw new Error('SQLITE_ERROR: no such table secret_internal_table');
    },
  };
  const hidden: ToolDefinition = {
    actionKey: 'test.hidden',
    title: 'Hidden',
    description: 'No test agent is permitted this.',
    input: z.object({}),
    output: z.object({ ok: z.boolean() }),
    run: async () => ({ ok: true }),
  };
  const profile: ToolDefinition = {
    actionKey: 'agent.profile',
    title: 'Agent profile',
    description: 'Who the agent acts as.',
    input: z.object({}),
    output: z.object({ agentId: z.number(), userId: z.number(), actions: z.array(z.string()) }),
    run: async (actor) => ({
      agentId: actor.agent?.id ?? 0,
      userId: actor.userId,
      actions: [...(actor.agent?.actions ?? [])].sort(),
    }),
  };
  return [echo, fail, crash, hidden, profile];
}

export function fakeMcpOptions(directory: FakeAgentDirectory): McpRoutesOptions {
  return {
    agents: directory,
    tools: fakeTools(),
    riskOf: (actionKey) => RISKS[actionKey] ?? 'write',
    verifyAccessToken,
  };
}

export interface McpTestServer {
  app: FastifyInstance;
  /** `http://127.0.0.1:<port>/api/mcp` */
  url: URL;
  directory: FakeAgentDirectory;
  db: Db;
  close(): Promise<void>;
}

export const MCP_TEST_ENV = { ...TEST_ENV, MCP_ALLOWED_ORIGINS: 'https://agent-console.test' };

/** The whole app on a real port, with the fake agents and tools at /api/mcp. */
export async function startMcpServer(
  db: Db,
  directory: FakeAgentDirectory,
  overrides: Partial<McpRoutesOptions> = {},
  /** Where its log lines go (tests that read them); without it nothing is logged. */
  logStream?: { write(line: string): void },
): Promise<McpTestServer> {
  const app = await buildApp(loadConfig(logStream ? { ...MCP_TEST_ENV, LOG_LEVEL: 'info' } : MCP_TEST_ENV), {
    db,
    ...(logStream ? { logStream } : { logger: false }),
    mcp: { ...fakeMcpOptions(directory), ...overrides },
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  if (!address || typeof address === 'string') throw new Error('no port');
  return {
    app,
    db,
    directory,
    url: new URL(`http://127.0.0.1:${address.port}/api/mcp`),
    close: () => app.close(),
  };
}

export const newDirectory = () =>
  fakeAgentDirectory([AGENT_A, AGENT_B, AGENT_PAUSED, AGENT_DISABLED], {
    [KEYS.a]: AGENT_A.id,
    [KEYS.b]: AGENT_B.id,
    [KEYS.paused]: AGENT_PAUSED.id,
    [KEYS.disabled]: AGENT_DISABLED.id,
  });

/** `legacy`: the plain 2025 handshake; `modern`: pinned to 2026-07-28; `auto`: probes with server/discover. */
export type Era = 'legacy' | 'modern' | 'auto';

/**
 * An SDK client connected with the given headers (every tool result it gets is checked
 * against its published schema: tool-result-check.ts): 2025-era (`initialize`) or 2026-07-28 (stateless). */
export async function connectClient(
  url: URL,
  headers: Record<string, string>,
  era: Era = 'legacy',
  transportOptions: { sessionId?: string; protocolVersion?: string } = {},
): Promise<{ client: CheckedClient; transport: StreamableHTTPClientTransport }> {
  const client = new CheckedClient(
    { name: 'mcp-test-client', version: '1.0.0' },
    era === 'legacy' ? {} : { versionNegotiation: { mode: era === 'auto' ? 'auto' : { pin: '2026-07-28' } } },
  );
  const transport = new StreamableHTTPClientTransport(url, {
    requestInit: { headers },
    ...transportOptions,
  });
  await client.connect(transport);
  return { client, transport };
}

/**
 * A new agent of `owner` (through the HTTP API of `app`, which may be a remote one) holding the
 * permission preset `permissionGroupId`, under `policy` when given, with a key of its own.
 */
export async function newAgent(
  app: FastifyInstance,
  owner: SignedInUser,
  {
    permissionGroupId,
    policy,
    name = 'Booker',
  }: {
    permissionGroupId: RequestBody<'POST', '/api/agents'>['permissionGroupId'];
    policy?: Record<string, unknown>;
    name?: string;
  },
): Promise<{ id: number; key: string }> {
  const api = client(app, owner);
  const agent = expectStatus(
    await api.send('POST', '/api/agents', { body: { name, permissionGroupId } }),
    201,
  );
  if (policy) expectStatus(await api.put(`/api/agents/${agent.id}/policy`, policy), 200);
  const { key } = expectStatus(
    await api.send('POST', '/api/agents/{id}/keys', { params: { id: agent.id }, body: { label: 'k' } }),
    201,
  );
  return { id: agent.id, key };
}

/**
 * The SDK's client connected to a listening `app` as a new agent of `owner` holding the
 * permission preset `permissionGroupId`, with a key of its own.
 */
export async function agentClient(
  app: FastifyInstance,
  owner: SignedInUser,
  permissionGroupId: RequestBody<'POST', '/api/agents'>['permissionGroupId'],
): Promise<CheckedClient> {
  const address = app.server.address();
  if (!address || typeof address === 'string') throw new Error('the app is not listening');
  const { key } = await newAgent(app, owner, { permissionGroupId });
  const url = new URL(`http://127.0.0.1:${address.port}/api/mcp`);
  return (await connectClient(url, { 'x-agent-key': key })).client;
}

/**
 * An MCP `initialize` at /api/mcp with these credentials (a bearer token, or the headers, say an
 * agent key's): 200 when they hold, 401 (with the challenge) when not.
 */
export function mcpInitialize(app: FastifyInstance, credentials: string | Record<string, string>) {
  const headers = typeof credentials === 'string' ? { authorization: `Bearer ${credentials}` } : credentials;
  return client(app, null).request(
    'POST',
    '/api/mcp',
    {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: {
        protocolVersion: '2025-11-25',
        capabilities: {},
        clientInfo: { name: 'raw', version: '1.0.0' },
      },
    },
    { accept: 'application/json, text/event-stream', 'content-type': 'application/json', ...headers },
  );
}
