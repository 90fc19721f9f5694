import {
  type AuthInfo,
  type ClientCapabilities,
  createMcpHandler,
  isInitializeRequest,
  isLegacyRequest,
  type JSONRPCRequest,
  WebStandardStreamableHTTPServerTransport,
} from '@modelcontextprotocol/server';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { sendError } from '../http/errors.js';
import { security } from '../http/schemas.js';
import { forbidden } from '../lib/errors.js';
import { jsonRpcError, sendWebResponse, toWebRequest } from './bridge.js';
import { type AccessTokenVerifier, authenticateAgent, wwwAuthenticate } from './credentials.js';
import {
  approvalStateCodec,
  createLegacyElicitations,
  DEFAULT_ELICITATION_TIMEOUT_MS,
  declaresUrlElicitation,
} from './elicitation.js';
import { ExchangeTransport, singleExchangeRequest } from './exchange.js';
import { mcpGatewayRoutes } from './gateway.js';
import {
  type AgentRequestContext,
  approvedCallRunner,
  compileTools,
  createAgentServer,
  type McpResourceProvider,
  SUPPORTED_PROTOCOL_VERSIONS,
} from './server.js';
import { createSessionStore, type SessionCapabilities } from './sessions.js';
import type { ActionRisk, AgentDirectory, ResolvedAgent, ToolCallGate, ToolDefinition } from './types.js';

export interface McpRoutesOptions {
  agents: AgentDirectory;
  /** Every tool of the catalogue; each agent sees the ones it is permitted. */
  tools: readonly ToolDefinition[];
  /** The catalogue risk of an action key, for the tool annotations. */
  riskOf(actionKey: string): ActionRisk;
  resources?: McpResourceProvider | undefined;
  /** Agents' policies (approvals, limits) on every tool call; absent: every permitted call runs. */
  gate?: ToolCallGate | undefined;
  /** OAuth access tokens (`Authorization: Bearer <not ag_sk_>`); absent: every such token is invalid. */
  verifyAccessToken?: AccessTokenVerifier | undefined;
  /** The clock of session expiry (tests). */
  now?: (() => Date) | undefined;
  /**
   * How long a 2025-era call sent for approval waits for the client's answer to its URL
   * elicitation before answering without it (default 30 s; tests shorten it).
   */
  elicitationTimeoutMs?: number | undefined;
}

const SESSION_HEADER = 'mcp-session-id';
const tags = ['mcp'];
const description =
  'MCP JSON-RPC 2.0 over streamable HTTP. 2025-era clients (2025-11-25, 2025-06-18, 2025-03-26) POST ' +
  '`initialize`, then send the `mcp-session-id` it answers on every request; 2026-07-28 clients send ' +
  'stateless requests (protocol version in `_meta` and `MCP-Protocol-Version`). Requires an agent ' +
  'credential: `x-agent-key`, `x-agent-token`, `Authorization: Agent <key>`, `Authorization: Bearer ' +
  'ag_sk_...` or an OAuth access token as `Authorization: Bearer <token>`.';

/** Carries the request's agent and logger into the SDK's server factory (modern path). */
const authInfoOf = (context: AgentRequestContext): AuthInfo => ({
  token: '',
  clientId: `agent:${context.agent.id}`,
  scopes: [],
  extra: { agentContext: context },
});

function contextOf(authInfo: AuthInfo | undefined): AgentRequestContext {
  const context = authInfo?.extra?.agentContext as AgentRequestContext | undefined;
  // The route authenticates before the SDK sees the request; reaching here without an agent is a bug.
  if (!context) throw new Error('MCP request without an authenticated agent');
  return context;
}

const originOf = (url: string): string | null => {
  try {
    const { origin } = new URL(url);
    return origin === 'null' ? null : origin;
  } catch {
    return null;
  }
};

const headerOf = (request: FastifyRequest, name: string): string | undefined => {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
};

const messagesOf = (body: unknown): unknown[] => (Array.isArray(body) ? body : [body]);

/** The client capabilities an `initialize` request declares. */
const declaredCapabilities = (body: unknown) =>
  (
    messagesOf(body).find(isInitializeRequest) as
      | { params?: { capabilities?: ClientCapabilities } }
      | undefined
  )?.params?.capabilities;

/** The protocol version an `initialize` answer negotiated; undefined when it is an error. */
function negotiatedVersion(text: string): string | undefined {
  try {
    const message = JSON.parse(text) as { result?: { protocolVersion?: unknown } };
    const version = message.result?.protocolVersion;
    return typeof version === 'string' ? version : undefined;
  } catch {
    return undefined;
  }
}

/**
 * `/api/mcp` on the official SDK. Origin and agent credential are checked on
 * every request before the SDK sees it. 2026-07-28 requests go to the SDK's
 * stateless `createMcpHandler`; 2025-era requests (`isLegacyRequest`) are served
 * one SDK transport per request, with the session kept in the database, so any
 * instance serves any session.
 */
export const mcpRoutes: FastifyPluginAsync<McpRoutesOptions> = async (app, options) => {
  const { config } = app;
  const deps = {
    catalogue: compileTools(options.tools, options.riskOf, { approvals: options.gate !== undefined }),
    agents: options.agents,
    resources: options.resources,
    gate: options.gate,
    // What a 2026-07-28 call that asked through URL elicitation carries to its retry, signed.
    approvalState: options.gate ? approvalStateCodec(config.encryptionKey) : undefined,
  };
  const elicitations = createLegacyElicitations({
    timeoutMs: options.elicitationTimeoutMs ?? DEFAULT_ELICITATION_TIMEOUT_MS,
  });
  /** A body with a call the policy may send for approval (only writes go through it). */
  const mayAskApproval = (body: unknown) =>
    deps.gate !== undefined &&
    messagesOf(body).some((message) => {
      const { method, params } = (message ?? {}) as { method?: unknown; params?: { name?: unknown } };
      if (method !== 'tools/call' || typeof params?.name !== 'string') return false;
      const tool = deps.catalogue.byName.get(params.name);
      return tool !== undefined && tool.risk !== 'read';
    });
  // An approved call runs through the very same tool path, as the agent is when it is approved.
  options.gate?.bindRunner(approvedCallRunner(deps, app.log));
  const sessions = createSessionStore(app.db, options.now);
  const allowedOrigins = new Set(
    [config.publicUrl, config.frontendUrl, ...config.mcpAllowedOrigins].map(originOf).filter(Boolean),
  );
  const agentOf = new WeakMap<FastifyRequest, ResolvedAgent>();

  const modern = createMcpHandler(
    (ctx) => {
      const context: AgentRequestContext = { ...contextOf(ctx.authInfo), elicitation: 'input-required' };
      return createAgentServer(deps, () => context);
    },
    {
      legacy: 'reject',
      // Rejections are answered to the client; only worth a debug line here.
      onerror: (error) => app.log.debug({ err: error }, 'MCP request rejected'),
    },
  );
  // Before the server waits for open connections: ends any open subscription stream.
  app.addHook('preClose', async () => {
    await modern.close();
  });

  app.addHook('onRequest', async (request, reply) => {
    const origin = headerOf(request, 'origin');
    if (origin !== undefined && origin !== '') {
      const normalised = originOf(origin);
      if (!normalised || !allowedOrigins.has(normalised)) {
        return sendError(request, reply, forbidden('This Origin may not call the MCP API'));
      }
    }
    const auth = await authenticateAgent(request.headers, options.agents, options.verifyAccessToken);
    if (!auth.ok) {
      if (auth.challenge) reply.header('www-authenticate', wwwAuthenticate(config.publicUrl, auth.challenge));
      return sendError(request, reply, auth.error);
    }
    agentOf.set(request, auth.agent);
  });

  const contextFor = (request: FastifyRequest): AgentRequestContext => {
    const agent = agentOf.get(request);
    if (!agent) throw new Error('MCP route reached without an authenticated agent');
    return { agent, log: request.log };
  };

  /** One SDK server and transport for one request of a 2025-era session (or its `initialize`). */
  async function serveLegacyPost(
    request: FastifyRequest,
    reply: FastifyReply,
    web: Request,
    context: AgentRequestContext,
    session: ({ id: string } & SessionCapabilities) | null,
  ) {
    const sessionId = session?.id ?? null;
    // A call that may be sent for approval, in a session whose client declared URL elicitation,
    // answers on an event stream: the elicitation goes to the client on it before the result.
    const asking = session?.urlElicitation === true && mayAskApproval(request.body);
    const transport = new WebStandardStreamableHTTPServerTransport({
      // Only `initialize` mints an id; later requests were checked against the database already.
      sessionIdGenerator: sessionId === null ? () => sessions.newId() : undefined,
      enableJsonResponse: !asking,
    });
    const serverContext =
      asking && sessionId !== null
        ? { ...context, elicitation: elicitations.askerFor(sessionId, transport) }
        : context;
    const server = createAgentServer(deps, () => serverContext);
    await server.connect(transport);
    let streaming = false;
    try {
      const response = await transport.handleRequest(web, {
        parsedBody: request.body,
        authInfo: authInfoOf(context),
      });
      if (sessionId !== null) {
        // A stream outlives this function: the server closes when the reply is done (or cut).
        streaming = response.headers.get('content-type')?.startsWith('text/event-stream') === true;
        if (streaming) reply.raw.once('close', () => void server.close());
        return await sendWebResponse(reply, response, { [SESSION_HEADER]: sessionId });
      }
      const text = await response.text();
      const minted = response.headers.get(SESSION_HEADER);
      const version = response.ok ? negotiatedVersion(text) : undefined;
      reply.code(response.status);
      response.headers.forEach((value, name) => {
        if (name !== 'content-length' && name !== SESSION_HEADER) reply.header(name, value);
      });
      if (minted && version) {
        await sessions.create({
          id: minted,
          agentId: context.agent.id,
          protocolVersion: version,
          urlElicitation: declaresUrlElicitation(declaredCapabilities(request.body)),
        });
        reply.header(SESSION_HEADER, minted);
      }
      return reply.send(text);
    } finally {
      if (!streaming) await server.close();
    }
  }

  // The common 2025-era call (one request of an open session) goes to one server of this
  // instance on a transport without the web bridge; each request names its agent in authInfo.
  const exchanges = new ExchangeTransport();
  await createAgentServer(deps, (ctx) => contextOf(ctx.http?.authInfo)).connect(exchanges);
  app.addHook('onClose', async () => {
    await exchanges.close();
  });

  async function serveSingleExchange(
    reply: FastifyReply,
    context: AgentRequestContext,
    sessionId: string,
    message: JSONRPCRequest,
  ) {
    const answer = await exchanges.exchange(message, authInfoOf(context));
    return reply
      .code(200)
      .header('content-type', 'application/json')
      .header(SESSION_HEADER, sessionId)
      .send(JSON.stringify(answer));
  }

  async function post(request: FastifyRequest, reply: FastifyReply) {
    const context = contextFor(request);
    const body = request.body;
    if (body === undefined) return jsonRpcError(reply, 400, -32700, 'Parse error: the request body is empty');
    const single = singleExchangeRequest(
      {
        body,
        contentType: headerOf(request, 'content-type'),
        accept: headerOf(request, 'accept'),
        protocolVersion: headerOf(request, 'mcp-protocol-version'),
        mcpMethod: headerOf(request, 'mcp-method'),
        mcpName: headerOf(request, 'mcp-name'),
      },
      SUPPORTED_PROTOCOL_VERSIONS,
    );
    let web: Request | undefined;
    if (!single) {
      web = toWebRequest(request, reply, config.publicUrl);
      if (!(await isLegacyRequest(web, body))) {
        const response = await modern.fetch(web, { authInfo: authInfoOf(context), parsedBody: body });
        return sendWebResponse(reply, response);
      }
      const initializing = Array.isArray(body) ? body.some(isInitializeRequest) : isInitializeRequest(body);
      if (initializing) return serveLegacyPost(request, reply, web, context, null);
    }
    const sessionId = headerOf(request, SESSION_HEADER);
    if (!sessionId) {
      return jsonRpcError(reply, 400, -32000, 'Bad Request: Mcp-Session-Id header is required');
    }
    const capabilities = await sessions.touch(sessionId, context.agent.id);
    if (!capabilities) return jsonRpcError(reply, 404, -32001, 'Session not found');
    // The client's answer to an elicitation: to the call of this session waiting for it.
    if (elicitations.deliver(sessionId, body)) return reply.code(202).send();
    // A call that may ask its approval through the client needs the SDK's event stream.
    if (single && !(capabilities.urlElicitation && mayAskApproval(body))) {
      return serveSingleExchange(reply, context, sessionId, single);
    }
    web ??= toWebRequest(request, reply, config.publicUrl);
    return serveLegacyPost(request, reply, web, context, { id: sessionId, ...capabilities });
  }

  const schema = (summary: string) => ({ tags, summary, description, security: security.agent });

  app.post('/', { schema: schema('MCP JSON-RPC request or notification') }, post);

  app.get('/', { schema: schema('Server-to-client stream (not offered: 405)') }, async (request, reply) => {
    const sessionId = headerOf(request, SESSION_HEADER);
    if (sessionId && !(await sessions.touch(sessionId, contextFor(request).agent.id))) {
      return jsonRpcError(reply, 404, -32001, 'Session not found');
    }
    // The server sends no unsolicited messages, so there is no stream to open.
    return jsonRpcError(reply, 405, -32000, 'Method not allowed.', { allow: 'POST, DELETE' });
  });

  app.delete('/', { schema: schema('End a 2025-era session') }, async (request, reply) => {
    const sessionId = headerOf(request, SESSION_HEADER);
    if (!sessionId) return jsonRpcError(reply, 400, -32000, 'Bad Request: Mcp-Session-Id header is required');
    if (!(await sessions.end(sessionId, contextFor(request).agent.id))) {
      return jsonRpcError(reply, 404, -32001, 'Session not found');
    }
    return reply.code(200).send();
  });

  // The deprecated gateway (/metadata, /actions, /execute, /stream): inside this plugin, so the
  // Origin and credential hook above guards it too, and its tool calls share `callAgentTool`.
  await app.register(mcpGatewayRoutes, { deps, contextFor });
};
