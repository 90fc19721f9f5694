import {
  type ClientCapabilities,
  isInitializeRequest,
  type JSONRPCRequest,
  WebStandardStreamableHTTPServerTransport,
} from '@modelcontextprotocol/server';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { sendWebResponse } from './bridge.js';
import { declaresUrlElicitation, type LegacyElicitations } from './elicitation.js';
import { ExchangeTransport } from './exchange.js';
import { authInfoOf, contextOf, messagesOf } from './http-request.js';
import { type AgentRequestContext, type AgentServerDeps, createAgentServer } from './server.js';
import type { McpSessionStore, SessionCapabilities } from './sessions.js';

export const SESSION_HEADER = 'mcp-session-id';

/** A 2025-era session as the database knows it; null while its `initialize` is served. */
export type LegacySession = ({ id: string } & SessionCapabilities) | null;

/** How 2025-era requests are served: one SDK transport per request, or this instance's exchange server. */
export interface LegacyServing {
  /** One SDK server and transport for one request of a 2025-era session (or its `initialize`). */
  servePost(
    request: FastifyRequest,
    reply: FastifyReply,
    web: Request,
    context: AgentRequestContext,
    session: LegacySession,
  ): Promise<FastifyReply>;
  /** The common call (one request of an open session), on the instance's shared server. */
  serveSingleExchange(
    reply: FastifyReply,
    context: AgentRequestContext,
    sessionId: string,
    message: JSONRPCRequest,
  ): Promise<FastifyReply>;
  close(): Promise<void>;
}

/** A body with a call the policy may send for approval (only writes go through it). */
export const mayAskApproval = (deps: AgentServerDeps, body: unknown) =>
  deps.gate !== undefined &&
  messagesOf(body).some((message) => {
    const { method, params } = (message ?? {}) as { method?: unknown; params?: { name?: unknown } };
    if (method !== 'tools/call' || typeof params?.name !== 'string') return false;
    const tool = deps.catalogue.byName.get(params.name);
    return tool !== undefined && tool.risk !== 'read';
  });

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

export async function createLegacyServing(
  deps: AgentServerDeps,
  sessions: McpSessionStore,
  elicitations: LegacyElicitations,
): Promise<LegacyServing> {
  /** The answer to `initialize`: a session is recorded once a version was negotiated. */
  async function answerInitialize(
    request: FastifyRequest,
    reply: FastifyReply,
    response: Response,
    context: AgentRequestContext,
  ) {
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
  }

  async function servePost(
    request: FastifyRequest,
    reply: FastifyReply,
    web: Request,
    context: AgentRequestContext,
    session: LegacySession,
  ) {
    const sessionId = session?.id ?? null;
    // A call that may be sent for approval, in a session whose client declared URL elicitation,
    // answers on an event stream: the elicitation goes to the client on it before the result.
    const asking = session?.urlElicitation === true && mayAskApproval(deps, request.body);
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
      if (sessionId === null) return await answerInitialize(request, reply, response, context);
      // A stream outlives this function: the server closes when the reply is done (or cut).
      streaming = response.headers.get('content-type')?.startsWith('text/event-stream') === true;
      if (streaming) reply.raw.once('close', () => void server.close());
      return await sendWebResponse(reply, response, { [SESSION_HEADER]: sessionId });
    } finally {
      if (!streaming) await server.close();
    }
  }

  // The common 2025-era call (one request of an open session) goes to one server of this
  // instance on a transport without the web bridge; each request names its agent in authInfo.
  const exchanges = new ExchangeTransport();
  await createAgentServer(deps, (ctx) => contextOf(ctx.http?.authInfo)).connect(exchanges);

  return {
    servePost,
    async serveSingleExchange(reply, context, sessionId, message) {
      // A client that leaves before the answer cancels the request (a waiting tasks/result).
      const answer = await exchanges.exchange(message, authInfoOf(context), (cancel) =>
        reply.raw.once('close', () => {
          if (!reply.raw.writableFinished) cancel();
        }),
      );
      return reply
        .code(200)
        .header('content-type', 'application/json')
        .header(SESSION_HEADER, sessionId)
        .send(JSON.stringify(answer));
    },
    close: () => exchanges.close(),
  };
}
