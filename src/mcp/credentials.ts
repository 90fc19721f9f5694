import type { IncomingHttpHeaders } from 'node:http';
import { DomainError, unauthenticated } from '../lib/errors.js';
import type { AgentDirectory, ResolvedAgent, SessionProbe } from './types.js';

const AGENT_KEY_PREFIX = 'ag_sk_';
/** Longer than any key or token we issue: refused without a lookup. */
const MAX_CREDENTIAL_LENGTH = 4096;

/** An agent credential as sent, in one of SPEC.md's five forms. */
export type AgentCredential = { kind: 'key'; value: string } | { kind: 'oauth'; value: string };

/**
 * Verifies an OAuth access token for /api/mcp (issuer PUBLIC_URL, audience
 * `<PUBLIC_URL>/api/mcp`): the agent id it names, or null when it does not verify.
 * A login JWT never verifies here.
 */
export type AccessTokenVerifier = (token: string) => Promise<number | null>;

const single = (value: string | string[] | undefined): string | undefined =>
  Array.isArray(value) ? value[0] : value;

/**
 * The agent credential of a request, checked in SPEC.md's order: `x-agent-key`,
 * `x-agent-token`, `Authorization: Agent <key>`, `Authorization: Bearer ag_sk_...`,
 * then any other Bearer value as an OAuth access token. Null when none is present.
 */
export function readAgentCredential(headers: IncomingHttpHeaders): AgentCredential | null {
  for (const name of ['x-agent-key', 'x-agent-token']) {
    const value = single(headers[name])?.trim();
    if (value) return { kind: 'key', value };
  }
  const authorization = single(headers.authorization)?.trim();
  if (!authorization) return null;
  const space = authorization.indexOf(' ');
  if (space < 0) return null;
  const scheme = authorization.slice(0, space).toLowerCase();
  const value = authorization.slice(space + 1).trim();
  if (!value) return null;
  if (scheme === 'agent') return { kind: 'key', value };
  if (scheme === 'bearer') {
    return value.startsWith(AGENT_KEY_PREFIX) ? { kind: 'key', value } : { kind: 'oauth', value };
  }
  return null;
}

export type AgentAuthResult =
  | { ok: true; agent: ResolvedAgent }
  /** `challenge`: the 401 carries WWW-Authenticate; `invalid` adds `error="invalid_token"`. */
  | { ok: false; error: DomainError; challenge?: 'missing' | 'invalid' };

/**
 * Resolves the request's agent; only an `active` agent may use the MCP runtime. `session`: the
 * request's 2025-era session, checked in the statement that reads the agent.
 */
export async function authenticateAgent(
  headers: IncomingHttpHeaders,
  agents: AgentDirectory,
  verifyAccessToken: AccessTokenVerifier | undefined,
  session?: SessionProbe,
): Promise<AgentAuthResult> {
  const credential = readAgentCredential(headers);
  if (!credential) {
    return { ok: false, error: unauthenticated('An agent credential is required'), challenge: 'missing' };
  }
  const agent = await resolve(credential, agents, verifyAccessToken, session);
  if (!agent || agent.status === 'disabled') {
    return {
      ok: false,
      error: unauthenticated('The agent credential is invalid, expired or revoked'),
      challenge: 'invalid',
    };
  }
  if (agent.status === 'paused') {
    return { ok: false, error: new DomainError('AGENT_PAUSED', 'The agent is paused by its owner') };
  }
  return { ok: true, agent };
}

async function resolve(
  credential: AgentCredential,
  agents: AgentDirectory,
  verifyAccessToken: AccessTokenVerifier | undefined,
  session: SessionProbe | undefined,
): Promise<ResolvedAgent | null> {
  if (credential.value.length > MAX_CREDENTIAL_LENGTH) return null;
  if (credential.kind === 'key') return agents.resolveKey(credential.value, session);
  if (!verifyAccessToken) return null;
  const agentId = await verifyAccessToken(credential.value);
  return agentId === null ? null : agents.resolveAgent(agentId, session);
}

/** RFC 6750 / RFC 9728 challenge of a 401 from /api/mcp. */
export function wwwAuthenticate(publicUrl: string, challenge: 'missing' | 'invalid'): string {
  const base = `Bearer realm="Reservation Service MCP API", resource_metadata="${publicUrl}/.well-known/oauth-protected-resource"`;
  return challenge === 'invalid' ? `${base}, error="invalid_token"` : base;
}
