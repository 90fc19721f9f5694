// The authorization-server state both calendar emulators share: codes,
// grants, access and refresh tokens. Wire formats (error bodies, token
// shapes, which grants get refresh tokens) stay in each provider's server.
import { randomToken, verifyPkce } from './tokens.js';

export interface OAuthCoreOptions {
  accessTokenTtlSeconds: number;
  codeTtlSeconds: number;
  /** Refresh tokens never expire when omitted. */
  refreshTokenTtlSeconds?: number;
  prefixes: { code: string; access: string; refresh: string };
}

/** One user's authorization of one client. Revoking it kills all its tokens. */
export interface Grant {
  id: string;
  account: string;
  clientId: string;
  scopes: string[];
  revoked: boolean;
  refreshTokensIssued: number;
}

export interface AuthCode {
  code: string;
  account: string;
  clientId: string;
  redirectUri: string;
  scopes: string[];
  challenge: string | null;
  method: string | null;
  nonce: string | null;
  issueRefreshToken: boolean;
  expiresAt: number;
  used: boolean;
}

export interface AccessRecord {
  token: string;
  grantId: string;
  account: string;
  clientId: string;
  scopes: string[];
  expiresAt: number;
}

interface RefreshRecord {
  token: string;
  grantId: string;
  scopes: string[];
  expiresAt: number | null;
}

export type OAuthFailure =
  | 'code_unknown'
  | 'code_used'
  | 'code_expired'
  | 'client_mismatch'
  | 'redirect_mismatch'
  | 'verifier_missing'
  | 'verifier_mismatch'
  | 'refresh_unknown'
  | 'refresh_revoked'
  | 'refresh_expired'
  | 'scope_exceeds';

export interface Issued {
  accessToken: string;
  expiresIn: number;
  refreshToken: string | null;
  scopes: string[];
  account: string;
  clientId: string;
  nonce: string | null;
}

export type OAuthResult = { ok: true; issued: Issued } | { ok: false; failure: OAuthFailure };

const MAX_ITEMS = 100_000;

export class OAuthCore {
  private readonly codes = new Map<string, AuthCode>();
  private readonly grants = new Map<string, Grant>();
  private readonly grantsByKey = new Map<string, Grant>();
  private readonly access = new Map<string, AccessRecord>();
  private readonly refresh = new Map<string, RefreshRecord>();

  constructor(private readonly options: OAuthCoreOptions) {}

  /** The live grant of `account` to `clientId`, if any. */
  grantOf(account: string, clientId: string): Grant | undefined {
    return this.grantsByKey.get(`${account}\n${clientId}`);
  }

  issueCode(input: Omit<AuthCode, 'code' | 'expiresAt' | 'used'>): string {
    if (this.codes.size > MAX_ITEMS) this.sweep();
    const code = `${this.options.prefixes.code}${randomToken(36)}`;
    this.codes.set(code, {
      ...input,
      code,
      expiresAt: Date.now() + this.options.codeTtlSeconds * 1000,
      used: false,
    });
    return code;
  }

  redeemCode(input: {
    code: string;
    clientId: string;
    redirectUri: string | null;
    verifier: string | null;
  }): OAuthResult {
    const code = this.codes.get(input.code);
    if (!code) return { ok: false, failure: 'code_unknown' };
    if (code.used) return { ok: false, failure: 'code_used' };
    if (code.expiresAt < Date.now()) return { ok: false, failure: 'code_expired' };
    if (code.clientId !== input.clientId) return { ok: false, failure: 'client_mismatch' };
    if (input.redirectUri !== code.redirectUri) return { ok: false, failure: 'redirect_mismatch' };
    if (code.challenge) {
      if (!input.verifier) return { ok: false, failure: 'verifier_missing' };
      if (!verifyPkce(input.verifier, code.challenge, code.method ?? 'plain'))
        return { ok: false, failure: 'verifier_mismatch' };
    }
    code.used = true;
    const key = `${code.account}\n${code.clientId}`;
    let grant = this.grantsByKey.get(key);
    if (!grant) {
      grant = {
        id: randomToken(12),
        account: code.account,
        clientId: code.clientId,
        scopes: [],
        revoked: false,
        refreshTokensIssued: 0,
      };
      this.grants.set(grant.id, grant);
      this.grantsByKey.set(key, grant);
    }
    grant.scopes = [...new Set([...grant.scopes, ...code.scopes])];
    const refreshToken = code.issueRefreshToken ? this.newRefreshToken(grant, code.scopes) : null;
    return { ok: true, issued: this.newAccess(grant, code.scopes, refreshToken, code.nonce) };
  }

  refreshGrant(input: {
    refreshToken: string;
    clientId: string;
    scopes: string[] | null;
    rotate: boolean;
  }): OAuthResult {
    const record = this.refresh.get(input.refreshToken);
    if (!record) return { ok: false, failure: 'refresh_unknown' };
    const grant = this.grants.get(record.grantId);
    if (!grant || grant.revoked) return { ok: false, failure: 'refresh_revoked' };
    if (record.expiresAt !== null && record.expiresAt < Date.now())
      return { ok: false, failure: 'refresh_expired' };
    if (grant.clientId !== input.clientId) return { ok: false, failure: 'client_mismatch' };
    let scopes = record.scopes;
    if (input.scopes && input.scopes.length > 0) {
      const allowed = new Set(grant.scopes);
      if (input.scopes.some((scope) => !allowed.has(scope))) return { ok: false, failure: 'scope_exceeds' };
      scopes = input.scopes;
    }
    const refreshToken = input.rotate ? this.newRefreshToken(grant, record.scopes) : null;
    return { ok: true, issued: this.newAccess(grant, scopes, refreshToken, null) };
  }

  /** The access token's record; `expired` or `invalid` (unknown or revoked) otherwise. */
  verifyAccess(token: string | null): AccessRecord | 'expired' | 'invalid' {
    if (!token) return 'invalid';
    const record = this.access.get(token);
    if (!record) return 'invalid';
    const grant = this.grants.get(record.grantId);
    if (!grant || grant.revoked) return 'invalid';
    if (record.expiresAt <= Date.now()) return 'expired';
    return record;
  }

  /** Revokes the grant behind an access or refresh token. */
  revokeToken(token: string): boolean {
    const grantId = this.access.get(token)?.grantId ?? this.refresh.get(token)?.grantId;
    const grant = grantId ? this.grants.get(grantId) : undefined;
    if (!grant || grant.revoked) return false;
    this.revoke(grant);
    return true;
  }

  /** Revokes every grant (of one account when given); answers how many. */
  revokeGrants(account?: string): number {
    let count = 0;
    for (const grant of [...this.grants.values()]) {
      if (grant.revoked || (account !== undefined && grant.account !== account)) continue;
      this.revoke(grant);
      count += 1;
    }
    return count;
  }

  /** Makes every live access token (of one account when given) expired; answers how many. */
  expireAccessTokens(account?: string): number {
    let count = 0;
    const now = Date.now();
    for (const record of this.access.values()) {
      if (account !== undefined && record.account !== account) continue;
      if (record.expiresAt > now) {
        record.expiresAt = now - 1;
        count += 1;
      }
    }
    return count;
  }

  reset(): void {
    this.codes.clear();
    this.grants.clear();
    this.grantsByKey.clear();
    this.access.clear();
    this.refresh.clear();
  }

  private revoke(grant: Grant): void {
    grant.revoked = true;
    this.grantsByKey.delete(`${grant.account}\n${grant.clientId}`);
    // Access tokens go; refresh tokens stay known so that using one says "revoked", not "unknown".
    for (const [token, record] of this.access) if (record.grantId === grant.id) this.access.delete(token);
  }

  private newRefreshToken(grant: Grant, scopes: string[]): string {
    if (this.refresh.size > MAX_ITEMS) this.sweep();
    const token = `${this.options.prefixes.refresh}${randomToken(40)}`;
    const ttl = this.options.refreshTokenTtlSeconds;
    this.refresh.set(token, {
      token,
      grantId: grant.id,
      scopes,
      expiresAt: ttl === undefined ? null : Date.now() + ttl * 1000,
    });
    grant.refreshTokensIssued += 1;
    return token;
  }

  private newAccess(
    grant: Grant,
    scopes: string[],
    refreshToken: string | null,
    nonce: string | null,
  ): Issued {
    if (this.access.size > MAX_ITEMS) this.sweep();
    const token = `${this.options.prefixes.access}${randomToken(48)}`;
    const ttl = this.options.accessTokenTtlSeconds;
    this.access.set(token, {
      token,
      grantId: grant.id,
      account: grant.account,
      clientId: grant.clientId,
      scopes,
      expiresAt: Date.now() + ttl * 1000,
    });
    return {
      accessToken: token,
      expiresIn: ttl,
      refreshToken,
      scopes,
      account: grant.account,
      clientId: grant.clientId,
      nonce,
    };
  }

  private sweep(): void {
    const now = Date.now();
    for (const [code, record] of this.codes)
      if (record.used || record.expiresAt < now) this.codes.delete(code);
    for (const [token, record] of this.access) if (record.expiresAt < now) this.access.delete(token);
    for (const [token, record] of this.refresh)
      if (record.expiresAt !== null && record.expiresAt < now) this.refresh.delete(token);
    if (this.codes.size > MAX_ITEMS || this.access.size > MAX_ITEMS || this.refresh.size > MAX_ITEMS)
      throw new Error('Emulator token store is full');
  }
}
