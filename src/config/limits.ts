import { z } from 'zod';
import { positiveInt, seconds } from './fields.js';

/** Rate limits and size bounds on what callers send. */
export const limitsEnv = z.object({
  RATE_LIMIT_MAX: positiveInt(1000),
  LOGIN_RATE_LIMIT_MAX: positiveInt(20),
  PUBLIC_RATE_LIMIT_MAX: positiveInt(120),
  REGISTRATION_RATE_LIMIT_MAX: positiveInt(20),
  REGISTER_RATE_LIMIT_MAX: positiveInt(10),
  TWO_FACTOR_RATE_LIMIT_MAX: positiveInt(30),
  PUBLIC_HOLD_IP_MAX: positiveInt(3),
  HONEYPOT_BLOCK_SECONDS: seconds(900),
  BODY_LIMIT_BYTES: positiveInt(1_048_576),
  INGEST_MAX_ROWS: positiveInt(10_000),
});

export interface LimitsConfig {
  rateLimitMax: number;
  loginRateLimitMax: number;
  publicRateLimitMax: number;
  /** OAuth client registrations per IP per hour. */
  registrationRateLimitMax: number;
  /** Account registrations (POST /api/auth/register) per IP per hour. */
  registerRateLimitMax: number;
  /** Second login steps (POST /api/auth/login/2fa) per IP per quarter hour, beside the login limiter. */
  twoFactorRateLimitMax: number;
  /** Live public holds per IP in an organisation (customers behind one address share it). */
  publicHoldIpMax: number;
  honeypotBlockSeconds: number;
  bodyLimitBytes: number;
  ingestMaxRows: number;
}

export function limitsConfig(e: z.output<typeof limitsEnv>): LimitsConfig {
  return {
    rateLimitMax: e.RATE_LIMIT_MAX,
    loginRateLimitMax: e.LOGIN_RATE_LIMIT_MAX,
    publicRateLimitMax: e.PUBLIC_RATE_LIMIT_MAX,
    registrationRateLimitMax: e.REGISTRATION_RATE_LIMIT_MAX,
    registerRateLimitMax: e.REGISTER_RATE_LIMIT_MAX,
    twoFactorRateLimitMax: e.TWO_FACTOR_RATE_LIMIT_MAX,
    publicHoldIpMax: e.PUBLIC_HOLD_IP_MAX,
    honeypotBlockSeconds: e.HONEYPOT_BLOCK_SECONDS,
    bodyLimitBytes: e.BODY_LIMIT_BYTES,
    ingestMaxRows: e.INGEST_MAX_ROWS,
  };
}
