import { createHmac, randomBytes, randomUUID } from 'node:crypto';
import { jwtVerify } from 'jose';
import type { Config } from '../../config.js';
import { type Db, inTransaction } from '../../db/database.js';
import type { JobQueue } from '../../jobs/queue.js';
import type { Actor } from '../../lib/actor.js';
import { BoundedCache } from '../../lib/bounded-cache.js';
import { randomToken, sha256 } from '../../lib/crypto.js';
import { DomainError, validationFailed } from '../../lib/errors.js';
import { isoAfterSeconds, nowIso } from '../../lib/time.js';
import type { AgentService } from '../agents/service.js';
import {
  ClientMetadataError,
  type ClientMetadataResolver,
  clientIdUrlProblem,
  createClientMetadataResolver,
  isClientMetadataUrl,
} from './client-metadata.js';
import { invalidClient, invalidGrant, invalidRequest, invalidTarget, OAuthError } from './errors.js';
import { type ClientRow, createOAuthRepo } from './repo.js';
import {
  CLIENT_ID_MAX,
  CODE_CHALLENGE_METHOD,
  CODE_TTL_SECONDS,
  codeVerifierProblem,
  GRANT_TYPES,
  isRedirectUriRegistered,
  pkceChallengeProblem,
  RESPONSE_TYPE,
  resourceProblem,
  SCOPES_SUPPORTED,
  STATE_MAX,
  s256,
  scopeSyntaxProblem,
  withQuery,
} from './rules.js';
import type {
  AuthorizationServerMetadata,
  ConsentDetails,
  ConsentDetailsQuery,
  ConsentInput,
  ProtectedResourceMetadata,
  RegisterClientInput,
  RegisteredClient,
  TokenResponse,
} from './schemas.js';

/** The access token's JWT `typ` (RFC 9068 §2.1); a login JWT (`JWT`) never verifies as one. */
const ACCESS_TOKEN_TYP = 'at+jwt';
const ACCESS_TOKEN_HEADER = Buffer.from(JSON.stringify({ alg: 'HS256', typ: ACCESS_TOKEN_TYP })).toString(
  'base64url',
);
/** Expired codes and refresh tokens are kept this long (for replay detection), then purged. */
const PURGE_AFTER_SECONDS = 86_400;
/** A registered client nobody approved within this long is deleted (DECISIONS.md, OAuth hardening). */
const UNUSED_CLIENT_LIFETIME_SECONDS = 86_400;
/** The periodic clean-up: expired codes and refresh tokens, and clients nobody approved. */
export const OAUTH_HOUSEKEEPING_JOB = 'oauth_housekeeping';
const HOUSEKEEPING_EVERY_MINUTES = 15;
/** Longest code or refresh token looked up; ours are 43 characters. */
const CREDENTIAL_MAX = 512;

/** A client as the flow sees it: registered (RFC 7591) or described by its metadata document. */
export interface OAuthClient {
  clientId: string;
  clientName: string;
  clientDescription: string;
  logoUrl: string | null;
  homepageUrl: string | null;
  redirectUris: string[];
  /** Registered here (a row of oauth_clients), not described by a metadata document. */
  registered: boolean;
}

/** Why a client_id names no usable client. */
class UnknownClientError extends Error {}

/** A refused authorization request: 400 VALIDATION_FAILED naming the query parameter. */
function refusedRequest(parameter: string, message: string) {
  const path = `querystring.${parameter}`;
  return validationFailed(`Invalid querystring: ${path}: ${message}`, [{ path, message }]);
}

export type OAuthService = ReturnType<typeof createOAuthService>;

export function createOAuthService({
  db,
  config,
  agents,
  jobs,
  clientMetadata,
}: {
  db: Db;
  config: Config;
  agents: Pick<AgentService, 'permissionGroups' | 'createOrReactivateForOAuthClient' | 'resolveAgent'>;
  jobs: Pick<JobQueue, 'work' | 'every'>;
  /** The Client ID Metadata Document fetcher (tests may inject one). */
  clientMetadata?: ClientMetadataResolver;
}) {
  const repo = createOAuthRepo(db.kysely);
  const issuer = config.publicUrl;
  const mcpResource = `${config.publicUrl}/api/mcp`;
  const allowPrivate = config.oauthCimdAllowPrivate;
  const enabled = config.featureFlags.oauth !== false;
  const documents = clientMetadata ?? createClientMetadataResolver({ allowPrivate });
  // Imported once: jose would import a raw secret again on every verification.
  const accessTokenKey = crypto.subtle.importKey(
    'raw',
    new TextEncoder().encode(config.oauthJwtSecret),
    { name: 'HMAC', hash: 'SHA-256' },
    false,
    ['verify'],
  );
  // Only the signature and claim checks are cached (until the token's exp); the grant is looked up every time.
  const verifiedTokens = new BoundedCache<string, { agentId: number; clientId: string; familyId: string }>(
    10_000,
  );
  // An approved client is never deleted, so it can be remembered (token endpoint hot path).
  const approvedClients = new BoundedCache<string, true>(10_000);

  // ------------------------------------------------------------ clients

  function fromRow(row: ClientRow): OAuthClient {
    return {
      clientId: row.clientId,
      clientName: row.clientName,
      clientDescription: row.clientDescription ?? '',
      logoUrl: row.logoUrl,
      homepageUrl: row.homepageUrl,
      redirectUris: JSON.parse(row.redirectUris) as string[],
      registered: true,
    };
  }

  /** The client a client_id names, fetching its metadata document when it is a URL. */
  async function resolveClient(clientId: string): Promise<OAuthClient> {
    if (isClientMetadataUrl(clientId, allowPrivate)) {
      try {
        return { ...(await documents.resolve(clientId)), clientDescription: '', registered: false };
      } catch (error) {
        if (error instanceof ClientMetadataError)
          throw new UnknownClientError(`The client_id metadata document cannot be used: ${error.message}`);
        throw error;
      }
    }
    const row = clientId.length <= CLIENT_ID_MAX ? await repo.findClient(clientId) : undefined;
    if (!row) throw new UnknownClientError('client_id is not a registered client');
    return fromRow(row);
  }

  /**
   * The token endpoint's client check: a registered client, or a well-formed metadata
   * document URL. The document is not fetched again here: the code or refresh token
   * presented is bound to this client_id, which is what the grant checks.
   */
  async function assertTokenClient(clientId: string): Promise<void> {
    if (isClientMetadataUrl(clientId, allowPrivate)) {
      const problem = clientIdUrlProblem(clientId, allowPrivate);
      if (problem) throw invalidClient(problem);
      return;
    }
    if (approvedClients.get(clientId)) return;
    const row = clientId.length <= CLIENT_ID_MAX ? await repo.findClient(clientId) : undefined;
    if (!row) throw invalidClient('client_id is not a registered client');
    if (row.firstAuthorizedAt !== null) approvedClients.set(clientId, true, Date.now() + 3_600_000);
  }

  // ------------------------------------------------------------ authorization responses

  /** An authorization response or error on the client's redirect URI, with `iss` (RFC 9207 §2). */
  function redirectTo(redirectUri: string, parameters: Record<string, string | undefined>): string {
    return withQuery(redirectUri, { ...parameters, iss: issuer });
  }

  function errorRedirect(redirectUri: string, error: string, description: string, state: string | undefined) {
    return redirectTo(redirectUri, { error, error_description: description, state });
  }

  // ------------------------------------------------------------ tokens

  /**
   * The access token: a compact JWS (RFC 7515) over RFC 9068-style claims, HMAC-SHA256
   * with OAUTH_JWT_SECRET. Signed with node:crypto's synchronous HMAC: jose's WebCrypto
   * signing imports the key and crosses to the thread pool on every token, which was the
   * largest cost of a code exchange. Verification (below) stays with jose.
   */
  function signAccessToken(grant: {
    agentId: number;
    clientId: string;
    familyId: string;
    scope: string;
  }): string {
    const now = Math.floor(Date.now() / 1000);
    const payload = {
      iss: issuer,
      aud: mcpResource,
      sub: String(grant.agentId),
      client_id: grant.clientId,
      scope: grant.scope,
      sid: grant.familyId,
      iat: now,
      exp: now + config.oauthAccessTokenTtl,
      jti: randomUUID(),
    };
    const signingInput = `${ACCESS_TOKEN_HEADER}.${Buffer.from(JSON.stringify(payload)).toString('base64url')}`;
    const signature = createHmac('sha256', config.oauthJwtSecret).update(signingInput).digest('base64url');
    return `${signingInput}.${signature}`;
  }

  async function tokenResponse(
    grant: { agentId: number; clientId: string; familyId: string; scope: string },
    refreshToken: string,
  ): Promise<TokenResponse> {
    return {
      access_token: signAccessToken(grant),
      token_type: 'Bearer',
      expires_in: config.oauthAccessTokenTtl,
      refresh_token: refreshToken,
      scope: grant.scope,
    };
  }

  /** The agent of a grant must still exist and not be disabled; otherwise the grant ends here. */
  async function assertAgentUsable(agentId: number, familyId: string): Promise<void> {
    if (await agents.resolveAgent(agentId)) return;
    await repo.revokeFamily(familyId, nowIso());
    throw invalidGrant('The agent this grant was issued for is disabled; authorise the client again');
  }

  async function exchangeAuthorizationCode(clientId: string, params: Record<string, string>) {
    const code = params.code;
    const redirectUri = params.redirect_uri;
    const codeVerifier = params.code_verifier;
    if (!code) throw invalidRequest('code is required (RFC 6749 §4.1.3)');
    if (!redirectUri) throw invalidRequest('redirect_uri is required (RFC 6749 §4.1.3)');
    if (!codeVerifier) throw invalidRequest('code_verifier is required: PKCE is mandatory (RFC 7636 §4.5)');
    const verifierProblem = codeVerifierProblem(codeVerifier);
    if (verifierProblem) throw invalidRequest(verifierProblem);
    if (code.length > CREDENTIAL_MAX) throw invalidGrant('The authorization code is invalid');

    const codeHash = sha256(code);
    const codeChallenge = s256(codeVerifier);
    const familyId = randomToken();
    const refreshToken = randomToken();
    const nowMs = Date.now();
    const now = new Date(nowMs).toISOString();
    // Redeeming and issuing commit together: a replay waits for this row, then sees the family.
    const redeemed = await inTransaction(db.kysely, async (trx) => {
      const row = await repo.consumeCode(trx, {
        codeHash,
        clientId,
        redirectUri,
        codeChallenge,
        familyId,
        now,
      });
      if (!row) return undefined;
      await repo.insertRefreshToken(trx, {
        clientId,
        agentId: row.agentId,
        tokenHash: sha256(refreshToken),
        familyId,
        scope: row.scope,
        expiresAt: isoAfterSeconds(config.oauthRefreshTokenTtl, nowMs),
        now,
      });
      return row;
    });
    if (!redeemed) throw await whyCodeRefused(codeHash, clientId, redirectUri, codeChallenge, now);
    await assertAgentUsable(redeemed.agentId, familyId);
    return tokenResponse(
      { agentId: redeemed.agentId, clientId, familyId, scope: redeemed.scope },
      refreshToken,
    );
  }

  /** Names the rule a refused code broke; a replayed code also loses every token issued from it. */
  async function whyCodeRefused(
    codeHash: string,
    clientId: string,
    redirectUri: string,
    codeChallenge: string,
    now: string,
  ): Promise<OAuthError> {
    const row = await repo.findCode(codeHash);
    if (!row) return invalidGrant('The authorization code is invalid');
    if (row.consumedAt !== null) {
      if (row.issuedFamilyId) await repo.revokeFamily(row.issuedFamilyId, nowIso());
      return invalidGrant(
        'The authorization code was already used; the tokens issued from it are revoked (RFC 6749 §4.1.2)',
      );
    }
    if (row.expiresAt <= now) return invalidGrant('The authorization code has expired (RFC 6749 §4.1.2)');
    if (row.clientId !== clientId) return invalidGrant('The authorization code was issued to another client');
    if (row.redirectUri !== redirectUri)
      return invalidGrant('redirect_uri does not match the authorization request (RFC 6749 §4.1.3)');
    if (row.codeChallenge !== codeChallenge)
      return invalidGrant(
        'PKCE verification failed: code_verifier does not match code_challenge (RFC 7636 §4.6)',
      );
    return invalidGrant('The authorization code is invalid');
  }

  async function refresh(clientId: string, params: Record<string, string>) {
    const presented = params.refresh_token;
    if (!presented) throw invalidRequest('refresh_token is required (RFC 6749 §6)');
    if (presented.length > CREDENTIAL_MAX) throw invalidGrant('The refresh token is invalid');
    const tokenHash = sha256(presented);
    if (params.scope !== undefined) {
      // A refresh may not widen the grant (RFC 6749 §6); ours carries exactly one scope.
      const current = await repo.findRefreshToken(tokenHash);
      if (current && current.scope !== params.scope)
        throw new OAuthError('invalid_scope', 'scope must be the scope already granted (RFC 6749 §6)');
    }
    const refreshToken = randomToken();
    const nowMs = Date.now();
    const now = new Date(nowMs).toISOString();
    const rotated = await inTransaction(db.kysely, async (trx) => {
      const grant = await repo.revokeForRotation(trx, { tokenHash, clientId, now });
      if (!grant) return undefined;
      await repo.insertRefreshToken(trx, {
        clientId,
        agentId: grant.agentId,
        tokenHash: sha256(refreshToken),
        familyId: grant.familyId,
        scope: grant.scope,
        expiresAt: isoAfterSeconds(config.oauthRefreshTokenTtl, nowMs),
        now,
      });
      return grant;
    });
    if (!rotated) throw await whyRefreshRefused(tokenHash, clientId, now);
    await assertAgentUsable(rotated.agentId, rotated.familyId);
    return tokenResponse({ ...rotated, clientId }, refreshToken);
  }

  /** Names the rule a refused refresh token broke; a revoked one presented again ends the (client, agent) pair. */
  async function whyRefreshRefused(tokenHash: string, clientId: string, now: string): Promise<OAuthError> {
    const row = await repo.findRefreshToken(tokenHash);
    if (!row) return invalidGrant('The refresh token is invalid');
    if (row.revokedAt !== null) {
      await repo.revokeClientAgent(row.clientId, row.agentId, nowIso());
      return invalidGrant(
        'The refresh token was already used or revoked; every refresh token of this client and agent is now revoked (OAuth 2.1 §4.3.1): authorise again',
      );
    }
    if (row.clientId !== clientId) return invalidGrant('The refresh token was issued to another client');
    if (row.expiresAt <= now) return invalidGrant('The refresh token has expired');
    return invalidGrant('The refresh token is invalid');
  }

  // ------------------------------------------------------------ consent helpers

  async function clientForConsent(clientId: string, path: string): Promise<OAuthClient> {
    try {
      return await resolveClient(clientId);
    } catch (error) {
      if (error instanceof UnknownClientError)
        throw validationFailed(`Invalid ${path.split('.')[0]}: ${path}: ${error.message}`, [
          { path, message: error.message },
        ]);
      throw error;
    }
  }

  function assertConsentRedirectUri(client: OAuthClient, redirectUri: string, path: string) {
    if (isRedirectUriRegistered(client.redirectUris, redirectUri)) return;
    const message = 'is not a redirect URI registered for this client (exact match required)';
    throw validationFailed(`Invalid ${path.split('.')[0]}: ${path}: ${message}`, [{ path, message }]);
  }

  function assertConsentResource(resource: string | undefined, path: string) {
    const problem = resourceProblem(resource, mcpResource);
    if (problem)
      throw validationFailed(`Invalid ${path.split('.')[0]}: ${path}: ${problem}`, [
        { path, message: problem },
      ]);
  }

  /** Idempotent, so a repeated or concurrent run (several instances) changes nothing more. */
  async function housekeeping(): Promise<void> {
    await repo.purgeExpired(isoAfterSeconds(-PURGE_AFTER_SECONDS));
    await repo.deleteUnapprovedClients(isoAfterSeconds(-UNUSED_CLIENT_LIFETIME_SECONDS));
  }
  jobs.work(OAUTH_HOUSEKEEPING_JOB, housekeeping, { retryLimit: 0, deduplicate: true });
  jobs.every(OAUTH_HOUSEKEEPING_JOB, HOUSEKEEPING_EVERY_MINUTES);

  return {
    enabled,
    issuer,
    mcpResource,

    /** RFC 9728 metadata of /api/mcp. */
    protectedResourceMetadata(): ProtectedResourceMetadata {
      return {
        resource: mcpResource,
        authorization_servers: [issuer],
        bearer_methods_supported: ['header'],
        resource_documentation: `${issuer}/api/docs`,
      };
    },

    /** RFC 8414 metadata of this authorization server. */
    authorizationServerMetadata(): AuthorizationServerMetadata {
      return {
        issuer,
        authorization_endpoint: `${issuer}/api/oauth/authorize`,
        token_endpoint: `${issuer}/api/oauth/token`,
        registration_endpoint: `${issuer}/api/oauth/register`,
        response_types_supported: [RESPONSE_TYPE],
        grant_types_supported: [...GRANT_TYPES],
        code_challenge_methods_supported: [CODE_CHALLENGE_METHOD],
        token_endpoint_auth_methods_supported: ['none'],
        scopes_supported: [...SCOPES_SUPPORTED],
        authorization_response_iss_parameter_supported: true,
        client_id_metadata_document_supported: true,
      };
    },

    /** RFC 7591 registration of a public client. */
    async register(input: RegisterClientInput): Promise<RegisteredClient> {
      const clientId = `oc_${randomBytes(18).toString('base64url')}`;
      const createdAt = nowIso();
      const logoUrl = input.client_logo_url ?? input.logo_uri ?? null;
      const homepageUrl = input.client_homepage_url ?? input.client_uri ?? null;
      const description = input.client_description ?? '';
      await repo.insertClient({
        clientId,
        clientName: input.client_name,
        clientDescription: description || null,
        logoUrl,
        homepageUrl,
        redirectUris: JSON.stringify(input.redirect_uris),
        createdAt,
        firstAuthorizedAt: null,
      });
      return {
        client_id: clientId,
        client_id_issued_at: Math.floor(Date.parse(createdAt) / 1000),
        client_name: input.client_name,
        client_description: description,
        ...(logoUrl ? { client_logo_url: logoUrl } : {}),
        ...(homepageUrl ? { client_homepage_url: homepageUrl } : {}),
        redirect_uris: [...input.redirect_uris],
        token_endpoint_auth_method: 'none',
        grant_types: [...GRANT_TYPES],
        response_types: [RESPONSE_TYPE],
      };
    },

    /**
     * The authorization endpoint (RFC 6749 §4.1.1, OAuth 2.1 §4.1.1). Answers where to
     * send the browser: the consent page, with this request's own query. Every
     * request error throws VALIDATION_FAILED naming the parameter, and nothing is
     * redirected to the client: anyone can register a client, so no client's URI is
     * trusted with an error redirect (RFC 9700 §4.11.2). The parameters are checked
     * before the client, so a malformed request never fetches a metadata document.
     */
    async authorize(query: Record<string, unknown>, rawQuery: string): Promise<{ location: string }> {
      const value = (name: string): string | undefined => {
        const given = query[name];
        return typeof given === 'string' && given !== '' ? given : undefined;
      };
      for (const name of [
        'client_id',
        'redirect_uri',
        'response_type',
        'code_challenge',
        'code_challenge_method',
        'state',
        'scope',
      ]) {
        if (Array.isArray(query[name]))
          throw refusedRequest(name, `${name} is given more than once (RFC 6749 §3.1)`);
      }
      if (Array.isArray(query.resource))
        throw refusedRequest(
          'resource',
          'Only one resource may be requested: this server protects one (RFC 8707 §2)',
        );

      const responseType = value('response_type');
      if (!responseType) throw refusedRequest('response_type', 'response_type is required (RFC 6749 §4.1.1)');
      if (responseType !== RESPONSE_TYPE)
        throw refusedRequest('response_type', 'Only response_type=code is supported (OAuth 2.1 §4.1.1)');
      const pkceProblem = pkceChallengeProblem(value('code_challenge'), value('code_challenge_method'));
      if (pkceProblem) throw refusedRequest(pkceProblem.parameter, pkceProblem.message);
      const state = value('state');
      if (state !== undefined && state.length > STATE_MAX)
        throw refusedRequest('state', `state must be at most ${STATE_MAX} characters`);
      const scope = value('scope');
      const scopeProblem = scope === undefined ? null : scopeSyntaxProblem(scope);
      if (scopeProblem) throw refusedRequest('scope', scopeProblem);
      const targetProblem = resourceProblem(value('resource'), mcpResource);
      if (targetProblem) throw refusedRequest('resource', targetProblem);

      const clientId = value('client_id');
      if (!clientId) throw refusedRequest('client_id', 'client_id is required (RFC 6749 §4.1.1)');
      let client: OAuthClient;
      try {
        client = await resolveClient(clientId);
      } catch (error) {
        if (error instanceof UnknownClientError) throw refusedRequest('client_id', error.message);
        throw error;
      }
      const redirectUri = value('redirect_uri');
      if (!redirectUri) throw refusedRequest('redirect_uri', 'redirect_uri is required (OAuth 2.1 §4.1.1)');
      if (!isRedirectUriRegistered(client.redirectUris, redirectUri))
        throw refusedRequest(
          'redirect_uri',
          'redirect_uri is not registered for this client; it must match a registered URI exactly',
        );

      return { location: `${config.frontendUrl}/oauth/consent?${rawQuery}` };
    },

    /** What the consent page shows: the client, where it returns to, and the groups the person may grant. */
    async consentDetails(actor: Actor, query: ConsentDetailsQuery): Promise<ConsentDetails> {
      const client = await clientForConsent(query.client_id, 'querystring.client_id');
      assertConsentRedirectUri(client, query.redirect_uri, 'querystring.redirect_uri');
      assertConsentResource(query.resource, 'querystring.resource');
      const groups = await agents.permissionGroups(actor);
      return {
        clientId: client.clientId,
        clientName: client.clientName,
        clientDescription: client.clientDescription,
        clientLogoUrl: client.logoUrl,
        clientHomepageUrl: client.homepageUrl,
        redirectUri: query.redirect_uri,
        availablePermissionGroups: groups.filter((group) => group.canAssign),
      };
    },

    /**
     * The person's decision. Approval creates (or reactivates) the agent for this
     * client with the chosen group and issues a single-use code bound to client,
     * redirect URI, PKCE challenge, resource and agent; denial, or a group the person
     * may not assign, answers `error=access_denied`. Either way with `state` and `iss`.
     */
    async consent(actor: Actor, input: ConsentInput): Promise<{ redirectUrl: string }> {
      const client = await clientForConsent(input.clientId, 'body.clientId');
      assertConsentRedirectUri(client, input.redirectUri, 'body.redirectUri');
      assertConsentResource(input.resource, 'body.resource');
      const state = input.state || undefined;
      const denied = (description: string) => ({
        redirectUrl: errorRedirect(input.redirectUri, 'access_denied', description, state),
      });
      if (!input.approve) return denied('The resource owner denied the request');

      const groupId = input.permissionGroupId ?? '';
      const groups = await agents.permissionGroups(actor);
      if (!groups.some((group) => group.id === groupId && group.canAssign))
        return denied('The permission group is not one the resource owner may assign');
      // An approved client is kept for good; one deleted as unused since it was read is gone.
      if (client.registered && !(await repo.markClientApproved(client.clientId, nowIso())))
        throw validationFailed('Invalid body: body.clientId: client_id is not a registered client', [
          { path: 'body.clientId', message: 'client_id is not a registered client' },
        ]);
      let agentId: number;
      try {
        const agent = await agents.createOrReactivateForOAuthClient(actor, {
          clientId: client.clientId,
          clientName: client.clientName,
          permissionGroupId: groupId,
        });
        agentId = agent.id;
      } catch (error) {
        if (
          error instanceof DomainError &&
          (error.code === 'FORBIDDEN' || error.code === 'VALIDATION_FAILED')
        )
          return denied('The permission group is not one the resource owner may assign');
        throw error;
      }

      const code = randomToken();
      const nowMs = Date.now();
      await repo.insertCode({
        codeHash: sha256(code),
        clientId: client.clientId,
        userId: actor.userId,
        agentId,
        redirectUri: input.redirectUri,
        codeChallenge: input.codeChallenge,
        resource: input.resource ?? null,
        scope: groupId,
        expiresAt: isoAfterSeconds(CODE_TTL_SECONDS, nowMs),
        createdAt: new Date(nowMs).toISOString(),
      });
      return { redirectUrl: redirectTo(input.redirectUri, { code, state }) };
    },

    /**
     * The token endpoint (RFC 6749 §3.2, §4.1.3, §6). `params` are the body's
     * parameters, empty ones already dropped (§3.2: treated as omitted). Throws
     * OAuthError only.
     */
    async token(params: Record<string, string>, context: { clientAuthentication: boolean }) {
      if (
        context.clientAuthentication ||
        params.client_secret !== undefined ||
        params.client_assertion !== undefined
      )
        throw invalidClient(
          'Client authentication is not supported: every client is public (token_endpoint_auth_method none)',
        );
      const grantType = params.grant_type;
      if (!grantType) throw invalidRequest('grant_type is required (RFC 6749 §4.1.3)');
      const clientId = params.client_id;
      if (!clientId) throw invalidRequest('client_id is required for public clients (RFC 6749 §3.2.1)');
      await assertTokenClient(clientId);
      if (!(GRANT_TYPES as readonly string[]).includes(grantType))
        throw new OAuthError(
          'unsupported_grant_type',
          `grant_type must be ${GRANT_TYPES.join(' or ')} (RFC 6749 §5.2)`,
        );
      const targetProblem = resourceProblem(params.resource, mcpResource);
      if (targetProblem) throw invalidTarget(targetProblem);
      return grantType === 'authorization_code'
        ? exchangeAuthorizationCode(clientId, params)
        : refresh(clientId, params);
    },

    /**
     * The /api/mcp verifier of OAuth access tokens: HS256 with OAUTH_JWT_SECRET, issuer
     * PUBLIC_URL, audience the MCP resource, type at+jwt, and a grant that is still
     * live. Answers the agent id; the MCP runtime then resolves the agent, so a
     * disabled agent's tokens stop at once.
     */
    verifyAccessToken: async (token: string): Promise<number | null> => {
      if (!enabled) return null;
      let grant = verifiedTokens.get(token);
      if (!grant) {
        let payload: Record<string, unknown>;
        try {
          ({ payload } = await jwtVerify(token, await accessTokenKey, {
            issuer,
            audience: mcpResource,
            algorithms: ['HS256'],
            typ: ACCESS_TOKEN_TYP,
            requiredClaims: ['sub', 'exp', 'iat', 'client_id', 'sid'],
          }));
        } catch {
          return null;
        }
        const agentId = Number(payload.sub);
        const { client_id: clientId, sid } = payload;
        if (!Number.isSafeInteger(agentId) || agentId < 1) return null;
        if (typeof clientId !== 'string' || typeof sid !== 'string') return null;
        grant = { agentId, clientId, familyId: sid };
        verifiedTokens.set(token, grant, Number(payload.exp) * 1000);
      }
      // Checked on every request, so a revoked grant ends its access tokens at once.
      const { agentId, clientId, familyId: sid } = grant;
      return (await repo.isGrantLive(sid, agentId, clientId)) ? agentId : null;
    },
  };
}
