import type { AuthInfo } from '@modelcontextprotocol/server';
import type { FastifyRequest } from 'fastify';
import type { AgentRequestContext } from './server.js';

/** Carries the request's agent and logger into the SDK's server factory (and the shared exchange server). */
export const authInfoOf = (context: AgentRequestContext): AuthInfo => ({
  token: '',
  clientId: `agent:${context.agent.id}`,
  scopes: [],
  extra: { agentContext: context },
});

/** The agent context `authInfoOf` put on a request. */
export function contextOf(authInfo: AuthInfo | undefined): AgentRequestContext {
  const context = authInfo?.extra?.agentContext as AgentRequestContext | undefined;
  // The route authenticates before the SDK sees the request; reaching here without an agent is a bug.
  if (!context) throw new Error('MCP request without an authenticated agent');
  return context;
}

/** The origin of a URL or an Origin header; null when it has none. */
export const originOf = (url: string): string | null => {
  try {
    const { origin } = new URL(url);
    return origin === 'null' ? null : origin;
  } catch {
    return null;
  }
};

export const headerOf = (request: FastifyRequest, name: string): string | undefined => {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
};

/** The JSON-RPC messages of a body: a batch, or the one message. */
export const messagesOf = (body: unknown): unknown[] => (Array.isArray(body) ? body : [body]);
