import type { ColumnType } from 'kysely';
import type { Bool, Id, Timestamp } from '../column-types.js';

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

export interface UserTables {
  users: UsersTable;
  loginSessions: LoginSessionsTable;
  apiKeys: ApiKeysTable;
}
