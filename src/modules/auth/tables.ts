import type { ColumnType } from 'kysely';
import type { Bool, Id, Timestamp } from '../../db/column-types.js';

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

export type Plan = 'STORE' | 'ENTERPRISE';

export interface UsersTable {
  id: Id;
  email: string;
  name: string;
  passwordHash: string;
  /** Whether the person proved the address is theirs (a mailed link); false until then (the default). */
  emailVerified: ColumnType<boolean | number, boolean | undefined, boolean>;
  plan: Plan;
  isGlobalAdmin: Bool;
  activeOrganisationId: number | null;
  /** Two-factor sign-in is on (its secret: the auth module's two_factor_secrets). */
  twoFactorEnabled: ColumnType<boolean | number, boolean | undefined, boolean>;
  createdAt: Timestamp;
  updatedAt: Timestamp;
}

export interface LoginSessionsTable {
  id: Id;
  userId: number;
  /** Every rotation of one login shares the family; reuse of a rotated token revokes the family. */
  familyId: string;
  /** The sign-in (auth_sessions) the family belongs to; null for families older than sessions. */
  authSessionId: number | null;
  tokenHash: string;
  expiresAt: Timestamp;
  revokedAt: Timestamp | null;
  createdAt: Timestamp;
}

export interface ApiKeysTable {
  id: Id;
  userId: number;
  label: string;
  prefix: string;
  keyHash: string;
  createdAt: Timestamp;
  lastUsedAt: Timestamp | null;
  revokedAt: Timestamp | null;
}

/** The tables this module owns (declared into Database by its module.ts). */
export interface AuthTables {
  users: UsersTable;
  loginSessions: LoginSessionsTable;
  apiKeys: ApiKeysTable;
  authSessions: AuthSessionsTable;
  accountLinks: AccountLinksTable;
}
