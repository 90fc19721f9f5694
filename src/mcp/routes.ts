import { createMcpHandler, isInitializeRequest } from '@modelcontextprotocol/server';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../config.js';
import { sendError } from '../http/errors.js';
import { security } from '../http/schemas.js';
import { forbidden } from '../lib/errors.js';
import type { IdempotencyStore } from '../lib/idempotency.js';
import { jsonRpcError, sendWebResponse, toWebRequest } from './bridge.js';
import { type AccessTokenVerifier, authenticateAgent, wwwAuthenticate } from './credentials.js';
import {
  approvalStateCodec,
  createLegacyElicitations,
  DEFAULT_ELICITATION_TIMEOUT_MS,
  type LegacyElicitations,
} from './elicitation.js';
import { classifyPost, singleExchangeRequest } from './exchange.js';
import { mcpGatewayRoutes } from './gateway.js';
import { authInfoOf, contextOf, headerOf, originOf } from './http-request.js';
import { idempotentCalls } from './idempotent-call.js';
import { createLegacyServing, type LegacyServing, mayAskApproval, SESSION_HEADER } from './legacy-serving.js';
import {
  type AgentRequestContext,
  type AgentServerDeps,
  approvedCallRunner,
  compileTools,
  createAgentServer,
  type McpResourceProvider,
  SUPPORTED_PROTOCOL_VERSIONS,
} from './server.js';
import { createSessionStore, type McpSessionStore } from './sessions.js';
import type { CallTaskStore } from './task-types.js';
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
  /** Where the tasks of task-augmented calls sent for approval are kept; absent: no tasks. */
  tasks?: CallTaskStore | undefined;
  /**
   * Where `idempotencyKey`s of tool calls are kept: the REST `Idempotency-Key` store; absent: the
   * key of an idempotent tool is accepted and ignored.
   */
  idempotency?: IdempotencyStore | undefined;
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

const tags = ['mcp'];
const description =
  'MCP JSON-RPC 2.0 over streamable HTTP. 2025-era clients (2025-11-25, 2025-06-18, 2025-03-26) POST ' +
  '`initialize`, then send the `mcp-session-id` it answers on every request; 2026-07-28 clients send ' +
  'stateless requests (protocol version in `_meta` and `MCP-Protocol-Version`). Requires an agent ' +
  'credential: `x-agent-key`, `x-agent-token`, `Authorization: Agent <key>`, `Authorization: Bearer ' +
  'ag_sk_...` or an OAuth access token as `Authorization: Bearer <token>`.';

/**
 * Checks Origin and agent credential on every request before the SDK sees it, and keeps the
 * request's agent for the handlers.
 */
function guardRequests(
  config: Config,
  options: McpRoutesOptions,
  sessions: McpSessionStore,
  agentOf: WeakMap<FastifyRequest, ResolvedAgent>,
) {
  const allowedOrigins = new Set(
    [config.publicUrl, config.frontendUrl, ...config.mcpAllowedOrigins].map(originOf).filter(Boolean),
  );
  return async (request: FastifyRequest, reply: FastifyReply) => {
    const origin = headerOf(request, 'origin');
    if (origin !== undefined && origin !== '') {
      const normalised = originOf(origin);
      if (!normalised || !allowedOrigins.has(normalised)) {
        return sendError(request, reply, forbidden('This Origin may not call the MCP API'));
      }
    }
    // A request of a 2025-era session has it checked in the statement that reads its agent.
    const session = sessions.probe(headerOf(request, SESSION_HEADER));
    const auth = await authenticateAgent(request.headers, options.agents, options.verifyAccessToken, session);
    if (!auth.ok) {
      if (auth.challenge) reply.header('www-authenticate', wwwAuthenticate(config.publicUrl, auth.challenge));
      return sendError(request, reply, auth.error);
    }
    agentOf.set(request, auth.agent);
  };
}

/** The SDK's stateless handler of 2026-07-28 requests. */
function modernHandler(deps: AgentServerDeps, log: FastifyRequest['log']) {
  return createMcpHandler(
    (ctx) => {
      const context: AgentRequestContext = { ...contextOf(ctx.authInfo), elicitation: 'input-required' };
      return createAgentServer(deps, () => context);
    },
    {
      legacy: 'reject',
      // Rejections are answered to the client; only worth a debug line here.
      onerror: (error) => log.debug({ err: error }, 'MCP request rejected'),
    },
  );
}

interface PostDeps {
  config: Config;
  deps: AgentServerDeps;
  modern: ReturnType<typeof modernHandler>;
  legacy: LegacyServing;
  sessions: McpSessionStore;
  elicitations: LegacyElicitations;
  contextFor(request: FastifyRequest): AgentRequestContext;
}

/** POST /api/mcp: a 2026-07-28 request, a 2025-era `initialize`, or a request of an open session. */
function postHandler({ config, deps, modern, legacy, sessions, elicitations, contextFor }: PostDeps) {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    const context = contextFor(request);
    const body = request.body;
    if (body === undefined) return jsonRpcError(reply, 400, -32700, 'Parse error: the request body is empty');
    const post = {
      body,
      contentType: headerOf(request, 'content-type'),
      accept: headerOf(request, 'accept'),
      protocolVersion: headerOf(request, 'mcp-protocol-version'),
      mcpMethod: headerOf(request, 'mcp-method'),
      mcpName: headerOf(request, 'mcp-name'),
    };
    // Classified once: the SDK's handler classifies a 2026-07-28 request again, nothing else does.
    const route = classifyPost(post);
    if (route.kind !== 'legacy') {
      const web = toWebRequest(request, reply, config.publicUrl);
      const response = await modern.fetch(web, { authInfo: authInfoOf(context), parsedBody: body });
      return sendWebResponse(reply, response);
    }
    let web: Request | undefined;
    const single = singleExchangeRequest(post, SUPPORTED_PROTOCOL_VERSIONS, route);
    if (!single) {
      web = toWebRequest(request, reply, config.publicUrl);
      const initializing = Array.isArray(body) ? body.some(isInitializeRequest) : isInitializeRequest(body);
      if (initializing) return legacy.servePost(request, reply, web, context, null);
    }
    const sessionId = headerOf(request, SESSION_HEADER);
    if (!sessionId) {
      return jsonRpcError(reply, 400, -32000, 'Bad Request: Mcp-Session-Id header is required');
    }
    const capabilities = await sessions.touchProbed(sessionId, context.agent);
    if (!capabilities) return jsonRpcError(reply, 404, -32001, 'Session not found');
    // The client's answer to an elicitation: to the call of this session waiting for it.
    if (elicitations.deliver(sessionId, body)) return reply.code(202).send();
    // A call that may ask its approval through the client needs the SDK's event stream.
    if (single && !(capabilities.urlElicitation && mayAskApproval(deps, body))) {
      return legacy.serveSingleExchange(reply, context, sessionId, single);
    }
    web ??= toWebRequest(request, reply, config.publicUrl);
    return legacy.servePost(request, reply, web, context, { id: sessionId, ...capabilities });
  };
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
    idempotency: options.idempotency ? idempotentCalls(options.idempotency) : undefined,
    // What a 2026-07-28 call that asked through URL elicitation carries to its retry, signed.
    approvalState: options.gate ? approvalStateCodec(config.encryptionKey) : undefined,
    tasks: options.gate ? options.tasks : undefined,
  };
  const elicitations = createLegacyElicitations({
    timeoutMs: options.elicitationTimeoutMs ?? DEFAULT_ELICITATION_TIMEOUT_MS,
  });
  // An approved call runs through the very same tool path, as the agent is when it is approved.
  options.gate?.bindRunner(approvedCallRunner(deps, app.log));
  const sessions = createSessionStore(app.db, options.now);
  const agentOf = new WeakMap<FastifyRequest, ResolvedAgent>();

  const modern = modernHandler(deps, app.log);
  // Before the server waits for open connections: ends any open subscription stream.
  app.addHook('preClose', async () => {
    await modern.close();
  });

  app.addHook('onRequest', guardRequests(config, options, sessions, agentOf));

  const contextFor = (request: FastifyRequest): AgentRequestContext => {
    const agent = agentOf.get(request);
    if (!agent) throw new Error('MCP route reached without an authenticated agent');
    return { agent, log: request.log };
  };

  const legacy = await createLegacyServing(deps, sessions, elicitations);
  app.addHook('onClose', async () => {
    await legacy.close();
  });

  const post = postHandler({ config, deps, modern, legacy, sessions, elicitations, contextFor });

  const schema = (summary: string) => ({ tags, summary, description, security: security.agent });

  app.post('/', { schema: schema('MCP JSON-RPC request or notification') }, post);

  app.get('/', { schema: schema('Server-to-client stream (not offered: 405)') }, async (request, reply) => {
    const sessionId = headerOf(request, SESSION_HEADER);
    if (sessionId && !(await sessions.touchProbed(sessionId, contextFor(request).agent))) {
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
