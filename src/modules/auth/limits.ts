import type { EphemeralStore } from '../../lib/ephemeral-store.js';
import { DomainError } from '../../lib/errors.js';

const LOGIN_WINDOW_SECONDS = 15 * 60;
const HOUR_SECONDS = 60 * 60;

/**
 * Counts one hit of `key` in a fixed window (shared across instances when Redis is
 * configured); 429 RATE_LIMITED past `max`, with when to try again.
 */
export async function enforceLimit(
  store: EphemeralStore,
  key: string,
  max: number,
  windowSeconds: number,
  message: string,
): Promise<void> {
  const { count, resetInSeconds } = await store.hit(key, windowSeconds);
  if (count > max) throw new DomainError('RATE_LIMITED', message, undefined, resetInSeconds);
}

/**
 * The brute-force limiter of sign-in secrets: every guess at a password (or a second-factor
 * code) counts under its keys (`login:ip:<ip>`, `login:email:<address>`),
 * `config.loginRateLimitMax` a quarter hour each.
 */
export function createLoginLimiter(store: EphemeralStore, max: number) {
  return (key: string) =>
    enforceLimit(store, key, max, LOGIN_WINDOW_SECONDS, 'Too many login attempts; try again later');
}
export type LoginLimiter = ReturnType<typeof createLoginLimiter>;

/** Mailed links and password resets: `max` an hour per key (DECISIONS.md "Accounts": 5). */
export const ACCOUNT_MAILS_PER_HOUR = 5;
export const hourlyLimit = (store: EphemeralStore, key: string, message: string) =>
  enforceLimit(store, key, ACCOUNT_MAILS_PER_HOUR, HOUR_SECONDS, message);
