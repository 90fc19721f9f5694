import { createHmac, randomUUID } from 'node:crypto';
import { jwtVerify } from 'jose';
import type { Config } from '../../config.js';
import { type Db, inTransaction } from '../../db/database.js';
import { BoundedCache } from '../../lib/bounded-cache.js';
import { randomToken, sha256 } from '../../lib/crypto.js';
import { isoAfterSeconds, nowIso } from '../../lib/time.js';
import type { AgentService } from '../agents/service.js';
import type { Clients } from './clients.js';
import { invalidClient, invalidGrant, invalidRequest, invalidTarget, OAuthError } from './errors.js';
import type { OAuthRepo } from './repo.js';
import { codeVerifierProblem, GRANT_TYPES, resourceProblem, s256 } from './rules.js';
import type { TokenResponse } from './schemas.js';

/** The access token's JWT `typ` (RFC 9068 §2.1); a login JWT (`JWT`) never verifies as one. */
const ACCESS_TOKEN_TYP = 'at+jwt';
const ACCESS_TOKEN_HEADER = Buffer.from(JSON.stringify({ alg: 'HS256', typ: ACCESS_TOKEN_TYP })).toString(
  'base64url',
);
/** Longest code or refresh token looked up; ours are 43 characters. */
const CREDENTIAL_MAX = 512;

/** What an access token and its refresh token stand for: one (client, agent) grant family. */
interface Grant {
  agentId: number;
  clientId: string;
  familyId: string;
  scope: string;
}

export interface TokensDeps {
  db: Db;
  config: Pick<Config, 'oauthJwtSecret' | 'oauthAccessTokenTtl' | 'oauthRefreshTokenTtl'>;
  repo: OAuthRepo;
  clients: Pick<Clients, 'assertTokenClient'>;
  agents: Pick<AgentService, 'resolveAgent'>;
  issuer: string;
  mcpResource: string;
  /** OAuth switched off (feature flag): no access token verifies. */
  enabled: boolean;
}

/**
 * The token endpoint (code exchange with PKCE, refresh token rotation with replay
 * detection) and the access tokens it issues, verified for /api/mcp.
 */
export function createTokens({
  db,
  config,
  repo,
  clients,
  agents,
  issuer,
  mcpResource,
  enabled,
}: TokensDeps) {
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

  /**
   * The access token: a compact JWS (RFC 7515) over RFC 9068-style claims, HMAC-SHA256
   * with OAUTH_JWT_SECRET. Signed with node:crypto's synchronous HMAC: jose's WebCrypto
   * signing imports the key and crosses to the thread pool on every token, which was the
   * largest cost of a code exchange. Verification (below) stays with jose.
   */
  function signAccessToken(grant: Grant): string {
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

  function tokenResponse(grant: Grant, refreshToken: string): TokenResponse {
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

  return {
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
      await clients.assertTokenClient(clientId);
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
    async verifyAccessToken(token: string): Promise<number | null> {
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
