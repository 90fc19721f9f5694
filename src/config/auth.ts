import { z } from 'zod';
import { invalidVariable, seconds } from './fields.js';

// Development-only secrets: fine on a laptop, refused under NODE_ENV=production.
const DEV_JWT_SECRET = 'dev-only-login-jwt-secret-change-me-0123456789';
const DEV_OAUTH_JWT_SECRET = 'dev-only-oauth-jwt-secret-change-me-0123456789';
const DEV_ENCRYPTION_KEY = Buffer.alloc(32, 7).toString('base64');

/** Login sessions, the OAuth server's tokens, and the key of secrets kept at rest. */
export const authEnv = z.object({
  JWT_SECRET: z.string().min(32, 'must be at least 32 characters').default(DEV_JWT_SECRET),
  OAUTH_JWT_SECRET: z.string().min(32, 'must be at least 32 characters').default(DEV_OAUTH_JWT_SECRET),
  OAUTH_ACCESS_TOKEN_TTL: seconds(3600),
  OAUTH_REFRESH_TOKEN_TTL: seconds(7_776_000),
  OAUTH_CIMD_ALLOW_PRIVATE: z.enum(['true', 'false']).default('false'),
  LOGIN_REFRESH_TOKEN_TTL: seconds(2_592_000),
  ENCRYPTION_KEY: z
    .string()
    .refine((value) => Buffer.from(value, 'base64').length === 32, 'must be 32 bytes, base64-encoded')
    .default(DEV_ENCRYPTION_KEY),
});

type AuthEnv = z.output<typeof authEnv>;

export interface AuthConfig {
  jwtSecret: string;
  oauthJwtSecret: string;
  oauthAccessTokenTtl: number;
  oauthRefreshTokenTtl: number;
  /**
   * Tests only: Client ID Metadata Documents may live on loopback or private addresses,
   * and `http://localhost` / `http://127.0.0.1` client ids count as such documents.
   */
  oauthCimdAllowPrivate: boolean;
  loginRefreshTokenTtl: number;
  encryptionKey: Buffer;
}

/** Production refuses the development secrets and private client metadata documents. */
export function assertAuthForProduction(e: AuthEnv): void {
  const defaults: Array<[string, boolean]> = [
    ['JWT_SECRET', e.JWT_SECRET === DEV_JWT_SECRET],
    ['OAUTH_JWT_SECRET', e.OAUTH_JWT_SECRET === DEV_OAUTH_JWT_SECRET],
    ['ENCRYPTION_KEY', e.ENCRYPTION_KEY === DEV_ENCRYPTION_KEY],
  ];
  const unset = defaults.find(([, isDefault]) => isDefault);
  if (unset) throw invalidVariable(unset[0], 'must be set in production');
  if (e.OAUTH_CIMD_ALLOW_PRIVATE === 'true')
    throw invalidVariable('OAUTH_CIMD_ALLOW_PRIVATE', 'must not be true in production');
}

/** A login token must never pass for an OAuth token, or the other way round. */
export function assertAuthSecretsDiffer(e: AuthEnv): void {
  if (e.JWT_SECRET === e.OAUTH_JWT_SECRET)
    throw invalidVariable('OAUTH_JWT_SECRET', 'must differ from JWT_SECRET');
}

export function authConfig(e: AuthEnv): AuthConfig {
  return {
    jwtSecret: e.JWT_SECRET,
    oauthJwtSecret: e.OAUTH_JWT_SECRET,
    oauthAccessTokenTtl: e.OAUTH_ACCESS_TOKEN_TTL,
    oauthRefreshTokenTtl: e.OAUTH_REFRESH_TOKEN_TTL,
    oauthCimdAllowPrivate: e.OAUTH_CIMD_ALLOW_PRIVATE === 'true',
    loginRefreshTokenTtl: e.LOGIN_REFRESH_TOKEN_TTL,
    encryptionKey: Buffer.from(e.ENCRYPTION_KEY, 'base64'),
  };
}
