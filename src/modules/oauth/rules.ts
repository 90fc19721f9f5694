import { createHash } from 'node:crypto';

/**
 * The protocol rules of the authorization server, each a small named check that
 * answers what is wrong (null when nothing is). No HTTP, no SQL: the service
 * decides whether a failure is a refused request (400, page or envelope) or an
 * RFC 6749 §5.2 body.
 */

export const RESPONSE_TYPE = 'code';
export const CODE_CHALLENGE_METHOD = 'S256';
export const GRANT_TYPES = ['authorization_code', 'refresh_token'] as const;
export const SCOPES_SUPPORTED = ['mcp:read', 'mcp:write'] as const;
export const REDIRECT_URIS_MAX = 10;
export const CLIENT_NAME_MAX = 200;
export const CLIENT_DESCRIPTION_MAX = 1000;
export const URI_MAX = 2000;
/** Longest `state` echoed back; longer ones are refused (bounds what we write into a redirect). */
export const STATE_MAX = 2048;
/** Longest client_id accepted anywhere (registered ids are far shorter; CIMD URLs are bounded too). */
export const CLIENT_ID_MAX = 2000;
/** Authorization code lifetime (SPEC.md, Limits). */
export const CODE_TTL_SECONDS = 60;

const LOOPBACK_HTTP_HOSTS = new Set(['localhost', '127.0.0.1']);

/** `http://localhost[:port]` or `http://127.0.0.1[:port]`. */
export function isLoopbackHttpUrl(url: URL): boolean {
  return url.protocol === 'http:' && LOOPBACK_HTTP_HOSTS.has(url.hostname);
}

/**
 * A redirect URI a client may register: absolute, no fragment (RFC 6749 §3.1.2),
 * no userinfo, and `https:` or loopback `http:` on any port (RFC 8252 §7.3; OAuth 2.1 §2.3.1).
 * Matching is exact string comparison later, so nothing is normalised here.
 */
export function redirectUriProblem(value: string): string | null {
  if (value.length > URI_MAX) return `must be at most ${URI_MAX} characters`;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'must be an absolute URI (RFC 6749 §3.1.2)';
  }
  if (value.includes('#')) return 'must not include a fragment (RFC 6749 §3.1.2)';
  if (url.username || url.password) return 'must not include user information';
  if (url.protocol === 'https:' && url.hostname) return null;
  if (isLoopbackHttpUrl(url)) return null;
  return 'must use https://, or http://localhost or http://127.0.0.1 with any port (RFC 8252 §7.3)';
}

/** An absolute http(s) URL shown to people (logo, homepage). */
export function displayUrlProblem(value: string): string | null {
  if (value.length > URI_MAX) return `must be at most ${URI_MAX} characters`;
  try {
    const url = new URL(value);
    if ((url.protocol === 'https:' || url.protocol === 'http:') && url.hostname) return null;
  } catch {
    // falls through
  }
  return 'must be an absolute http(s) URL';
}

/** Exactly one of the client's registered redirect URIs, compared as strings (OAuth 2.1 §4.1.1). */
export function isRedirectUriRegistered(registered: readonly string[], redirectUri: string): boolean {
  return registered.includes(redirectUri);
}

/** base64url(SHA-256(verifier)): a 43-character S256 challenge (RFC 7636 §4.2). */
const S256_CHALLENGE = /^[A-Za-z0-9_-]{43}$/;
/** code_verifier = 43*128unreserved (RFC 7636 §4.1). */
const CODE_VERIFIER = /^[A-Za-z0-9\-._~]{43,128}$/;

/** What is wrong with an authorization request's PKCE parameters, and which one, or null. */
export function pkceChallengeProblem(
  challenge: string | undefined,
  method: string | undefined,
): { parameter: 'code_challenge' | 'code_challenge_method'; message: string } | null {
  if (challenge === undefined || challenge === '')
    return {
      parameter: 'code_challenge',
      message: 'code_challenge is required: PKCE is mandatory (OAuth 2.1 §4.1.1)',
    };
  if (method === undefined || method === '')
    return {
      parameter: 'code_challenge_method',
      message: 'code_challenge_method is required and must be S256 (plain is not supported; RFC 7636 §4.3)',
    };
  if (method !== CODE_CHALLENGE_METHOD)
    return {
      parameter: 'code_challenge_method',
      message: `code_challenge_method ${method} is not supported: only S256 (RFC 7636 §4.4.1)`,
    };
  if (!S256_CHALLENGE.test(challenge))
    return {
      parameter: 'code_challenge',
      message:
        'code_challenge must be the 43-character base64url SHA-256 of the code_verifier (RFC 7636 §4.2)',
    };
  return null;
}

export function isS256Challenge(challenge: string): boolean {
  return S256_CHALLENGE.test(challenge);
}

export function codeVerifierProblem(verifier: string): string | null {
  return CODE_VERIFIER.test(verifier)
    ? null
    : 'code_verifier must be 43 to 128 characters of A-Z, a-z, 0-9, "-", ".", "_", "~" (RFC 7636 §4.1)';
}

/** The S256 transform of RFC 7636 §4.2. */
export function s256(verifier: string): string {
  return createHash('sha256').update(verifier, 'ascii').digest('base64url');
}

/** scope = scope-token *( SP scope-token ), scope-token = 1*( %x21 / %x23-5B / %x5D-7E ) (RFC 6749 §3.3). */
const SCOPE = /^[\x21\x23-\x5B\x5D-\x7E]+( [\x21\x23-\x5B\x5D-\x7E]+)*$/;
export function scopeSyntaxProblem(scope: string): string | null {
  return SCOPE.test(scope) ? null : 'scope must be space-separated scope tokens (RFC 6749 §3.3)';
}

/** The RFC 8707 resource, when given, must be this server's one protected resource. */
export function resourceProblem(resource: string | undefined, mcpResource: string): string | null {
  if (resource === undefined) return null;
  return resource === mcpResource
    ? null
    : `resource must be ${mcpResource}, the only protected resource of this server (RFC 8707 §2)`;
}

/**
 * Appends query parameters to a redirect URI exactly as registered, keeping its own
 * query (RFC 6749 §3.1.2). Registered URIs carry no fragment, so appending is safe.
 */
export function withQuery(base: string, parameters: Record<string, string | undefined>): string {
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(parameters)) {
    if (value !== undefined) query.append(name, value);
  }
  const text = query.toString();
  if (!text) return base;
  const separator = !base.includes('?') ? '?' : base.endsWith('?') || base.endsWith('&') ? '' : '&';
  return `${base}${separator}${text}`;
}
