import type { Id, Timestamp } from '../../db/column-types.js';

/**
 * One sign-in (password, passkey, two-factor): what the person sees and ends under
 * "Sessions". Its login JWTs carry its id (`sid`) and its refresh-token family points at it,
 * so ending it ends both: the JWT at its next request (the guard reads this row), the
 * refresh tokens at once.
 */
export interface AuthSessionsTable {
  id: Id;
  userId: number;
  /** The browser's User-Agent at sign-in, cut to 500 characters; null when it sent none. */
  userAgent: string | null;
  createdAt: Timestamp;
  /** Written at most once a minute (on a request or a refresh). */
  lastUsedAt: Timestamp;
  /** When its newest refresh token lapses: past it, the session is over though never ended. */
  expiresAt: Timestamp;
  revokedAt: Timestamp | null;
}

export type AccountLinkPurpose = 'verify_email' | 'change_email' | 'reset_password';

/**
 * A link mailed to a person (verify an address, change it, reset a password): only the
 * SHA-256 of its token is kept. `email` is the address it was mailed to, the one it proves.
 * Single use; only the newest of a user's links of one purpose works.
 */
export interface AccountLinksTable {
  id: Id;
  userId: number;
  purpose: AccountLinkPurpose;
  tokenHash: string;
  email: string;
  expiresAt: Timestamp;
  usedAt: Timestamp | null;
  createdAt: Timestamp;
}

export interface AuthTables {
  authSessions: AuthSessionsTable;
  accountLinks: AccountLinksTable;
}
