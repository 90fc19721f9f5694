import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import type * as oauth from 'oauth4webapi';
import type { SignedInUser } from './app.js';
import { client, expectStatus } from './http.js';

/** Test helpers of the OAuth server: PKCE pairs, registration, consent, token requests. */

export const REDIRECT_URI = 'http://127.0.0.1:8765/callback';

/** oauth4webapi's transport, answered by app.inject: the issuer can be https:// without a TLS server. */
export function fetchThrough(app: FastifyInstance, origin: string) {
  return async (url: string, options: oauth.CustomFetchOptions<string, unknown>): Promise<Response> => {
    const target = new URL(url);
    assert.equal(target.origin, origin, `the client only talks to ${origin}`);
    const body = options.body;
    const response = await app.inject({
      method: options.method as 'GET' | 'POST',
      url: `${target.pathname}${target.search}`,
      headers: options.headers,
      ...(body === undefined || body === null ? {} : { payload: String(body) }),
    });
    const headers = new Headers();
    for (const [name, value] of Object.entries(response.headers)) {
      if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(', ') : String(value));
    }
    const empty = response.statusCode === 204 || response.statusCode === 302;
    return new Response(empty ? null : response.body, { status: response.statusCode, headers });
  };
}

export function pkce(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

export interface Client {
  client_id: string;
  client_name: string;
  redirect_uris: string[];
}

export async function registerClient(
  app: FastifyInstance,
  metadata: Record<string, unknown> = {},
): Promise<Client> {
  const response = await client(app, null).request('POST', '/api/oauth/register', {
    client_name: 'Test MCP Host',
    redirect_uris: [REDIRECT_URI],
    ...metadata,
  });
  return expectStatus(response, 201);
}

export function authorizeQuery(
  client: Client,
  options: { challenge: string; state?: string; redirectUri?: string; extra?: Record<string, string> },
): URLSearchParams {
  const query = new URLSearchParams({
    response_type: 'code',
    client_id: client.client_id,
    redirect_uri: options.redirectUri ?? client.redirect_uris[0]!,
    code_challenge: options.challenge,
    code_challenge_method: 'S256',
    ...(options.state === undefined ? {} : { state: options.state }),
    ...options.extra,
  });
  return query;
}

export function authorize(app: FastifyInstance, query: URLSearchParams | string) {
  return client(app, null).get(`/api/oauth/authorize?${query}`);
}

export function consent(
  app: FastifyInstance,
  user: SignedInUser,
  body: {
    clientId: string;
    redirectUri: string;
    codeChallenge: string;
    state?: string;
    approve?: boolean;
    permissionGroupId?: string;
    resource?: string;
  },
) {
  return client(app, user).send('POST', '/api/oauth/consent', {
    body: { approve: true, permissionGroupId: 'minimal', state: 'st-1', ...body },
  });
}

/** Approves the client for the user and answers the redirect URL's parameters. */
export async function approve(
  app: FastifyInstance,
  user: SignedInUser,
  client: Client,
  options: { challenge: string; state?: string; permissionGroupId?: string; redirectUri?: string },
): Promise<URLSearchParams> {
  const redirectUri = options.redirectUri ?? client.redirect_uris[0]!;
  const response = await consent(app, user, {
    clientId: client.client_id,
    redirectUri,
    codeChallenge: options.challenge,
    state: options.state ?? 'st-1',
    ...(options.permissionGroupId ? { permissionGroupId: options.permissionGroupId } : {}),
  });
  const { redirectUrl } = expectStatus(response, 200);
  assert.ok(redirectUrl.startsWith(`${redirectUri}?`), redirectUrl);
  return new URL(redirectUrl).searchParams;
}

/** POST /api/oauth/token, form-encoded unless `json`. */
export function tokenRequest(
  app: FastifyInstance,
  params: Record<string, string>,
  options: { json?: boolean; headers?: Record<string, string> } = {},
): Promise<LightMyRequestResponse> {
  return client(app, null).request(
    'POST',
    '/api/oauth/token',
    options.json ? JSON.stringify(params) : new URLSearchParams(params).toString(),
    {
      'content-type': options.json ? 'application/json' : 'application/x-www-form-urlencoded',
      ...options.headers,
    },
  );
}

export interface Tokens {
  access_token: string;
  token_type: string;
  expires_in: number;
  refresh_token: string;
  scope: string;
}

/** Registration, consent and code exchange in one: a client with a live grant for the user. */
export async function grant(
  app: FastifyInstance,
  user: SignedInUser,
  options: { client?: Client; permissionGroupId?: string } = {},
): Promise<{ client: Client; tokens: Tokens; agentId: number }> {
  const client = options.client ?? (await registerClient(app));
  const { verifier, challenge } = pkce();
  const answer = await approve(app, user, client, {
    challenge,
    ...(options.permissionGroupId ? { permissionGroupId: options.permissionGroupId } : {}),
  });
  const response = await tokenRequest(app, {
    grant_type: 'authorization_code',
    client_id: client.client_id,
    code: answer.get('code')!,
    redirect_uri: client.redirect_uris[0]!,
    code_verifier: verifier,
  });
  const tokens = expectStatus(response, 200) as Tokens;
  return { client, tokens, agentId: Number(decodeJwt(tokens.access_token).payload.sub) };
}

export function decodeJwt(token: string): {
  header: Record<string, unknown>;
  payload: Record<string, unknown>;
} {
  const [header, payload] = token.split('.');
  return {
    header: JSON.parse(Buffer.from(header!, 'base64url').toString()),
    payload: JSON.parse(Buffer.from(payload!, 'base64url').toString()),
  };
}

/** An RFC 6749 §5.2 error body: exactly `{error, error_description}`. */
export function assertOAuthError(response: LightMyRequestResponse, error: string, status = 400) {
  assert.equal(response.statusCode, status, response.body);
  const body = response.json();
  assert.deepEqual(Object.keys(body).sort(), ['error', 'error_description']);
  assert.equal(body.error, error, body.error_description);
  assert.equal(response.headers['cache-control'], 'no-store');
  return body.error_description as string;
}
