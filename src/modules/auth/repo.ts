import { type Executor, precompiled } from '../../db/database.js';
import { type ActiveTenantColumns, joinActiveTenant, tenantOfRow } from '../../tenancy/active-tenant.js';
import type { Tenant } from '../../tenancy/gate.js';
import type { ApiKey, User } from './schemas.js';
import type { Plan } from './tables.js';

const userColumns = [
  'id',
  'email',
  'emailVerified',
  'name',
  'plan',
  'isGlobalAdmin',
  'activeOrganisationId',
  'twoFactorEnabled',
  'createdAt',
] as const;

type UserRow = {
  id: number;
  email: string;
  emailVerified: boolean | number;
  name: string;
  plan: Plan;
  isGlobalAdmin: boolean | number;
  activeOrganisationId: number | null;
  twoFactorEnabled: boolean | number;
  createdAt: string;
};

/** The user of a row, field by field: a row read with other columns (a join's) keeps them out. */
export function toUser(row: UserRow): User {
  return {
    id: row.id,
    email: row.email,
    emailVerified: Boolean(row.emailVerified),
    name: row.name,
    plan: row.plan,
    isGlobalAdmin: Boolean(row.isGlobalAdmin),
    activeOrganisationId: row.activeOrganisationId,
    twoFactorEnabled: Boolean(row.twoFactorEnabled),
    createdAt: row.createdAt,
  };
}

/** `userColumns` named by table, for the reads that join other tables. */
const qualifiedUserColumns = userColumns.map((column) => `users.${column}` as const);

/** A user, and their active organisation read in the same statement (the auth guard's read). */
export interface VerifiedUser {
  person: User;
  activeTenant: Tenant | null;
}

function verifiedUserOf(row: UserRow & ActiveTenantColumns): VerifiedUser {
  return { person: toUser(row), activeTenant: tenantOfRow(row) };
}

/** A login JWT's session, live, with its person: what the auth guard reads on every request. */
export interface VerifiedSession {
  verified: VerifiedUser;
  lastUsedAt: string;
}

export function createUserRepo(db: Executor) {
  const selectUserById = precompiled(() => db.selectFrom('users').select(userColumns).where('id', '=', 0));
  // Runs on every JWT-authenticated request: the session (not ended), its person, and their
  // active organisation for the tenant gate (src/tenancy/active-tenant.ts), in one statement.
  const selectSessionWithUser = precompiled(() =>
    joinActiveTenant(
      db
        .selectFrom('authSessions')
        .innerJoin('users', 'users.id', 'authSessions.userId')
        .select(['authSessions.lastUsedAt as sessionLastUsedAt', ...qualifiedUserColumns]),
    )
      .where('authSessions.id', '=', 0)
      .where('authSessions.userId', '=', 0)
      .where('authSessions.revokedAt', 'is', null),
  );
  return {
    async insert(values: {
      email: string;
      name: string;
      passwordHash: string;
      emailVerified: boolean;
      now: string;
    }): Promise<User> {
      const row = await db
        .insertInto('users')
        .values({
          email: values.email,
          emailVerified: values.emailVerified,
          name: values.name,
          passwordHash: values.passwordHash,
          plan: 'STORE',
          isGlobalAdmin: false,
          createdAt: values.now,
          updatedAt: values.now,
        })
        .returning(userColumns)
        .executeTakeFirstOrThrow();
      return toUser(row);
    },

    async findById(id: number): Promise<User | undefined> {
      const [row] = await selectUserById(db, id);
      return row && toUser(row);
    },

    /**
     * The user of a live session with their active organisation, for the auth guard: undefined
     * when the session was ended (or is not this user's), or the user is gone.
     */
    async findVerified(sessionId: number, userId: number): Promise<VerifiedSession | undefined> {
      const [row] = await selectSessionWithUser(db, sessionId, userId);
      return row && { verified: verifiedUserOf(row), lastUsedAt: row.sessionLastUsedAt };
    },

    async passwordHashOf(id: number): Promise<string | undefined> {
      const row = await db.selectFrom('users').select('passwordHash').where('id', '=', id).executeTakeFirst();
      return row?.passwordHash;
    },

    async setPassword(id: number, passwordHash: string, now: string): Promise<void> {
      await db.updateTable('users').set({ passwordHash, updatedAt: now }).where('id', '=', id).execute();
    },

    /**
     * Marks `email` verified as the user's address: it becomes their address (a change) and
     * is verified. Answers false when the user is gone, or (`onlyIfCurrent`) their address is
     * no longer `email`. A unique violation means another account has the address now.
     */
    async verifyEmail(id: number, email: string, now: string, onlyIfCurrent: boolean): Promise<boolean> {
      const result = await db
        .updateTable('users')
        .set({ email, emailVerified: true, updatedAt: now })
        .where('id', '=', id)
        .$if(onlyIfCurrent, (qb) => qb.where('email', '=', email))
        .executeTakeFirst();
      return Number(result.numUpdatedRows) === 1;
    },

    async isGlobalAdmin(id: number): Promise<boolean> {
      const row = await db
        .selectFrom('users')
        .select('isGlobalAdmin')
        .where('id', '=', id)
        .executeTakeFirst();
      return Boolean(row?.isGlobalAdmin);
    },

    /** Locks the user's row until the transaction ends (PostgreSQL only). */
    async lockForUpdate(id: number): Promise<void> {
      await db.selectFrom('users').select('id').where('id', '=', id).forUpdate().execute();
    },

    async findByEmail(email: string) {
      const row = await db
        .selectFrom('users')
        .select([...userColumns, 'passwordHash'])
        .where('email', '=', email)
        .executeTakeFirst();
      return row && { user: toUser(row), passwordHash: row.passwordHash };
    },

    async update(
      id: number,
      values: { plan?: Plan; isGlobalAdmin?: boolean; now: string },
    ): Promise<User | undefined> {
      const { now, ...changes } = values;
      const row = await db
        .updateTable('users')
        .set({ ...changes, updatedAt: now })
        .where('id', '=', id)
        .returning(userColumns)
        .executeTakeFirst();
      return row && toUser(row);
    },
  };
}

const apiKeyColumns = ['id', 'label', 'prefix', 'createdAt', 'lastUsedAt', 'revokedAt'] as const;

export function createApiKeyRepo(db: Executor) {
  // Runs on every key-authenticated request.
  const selectLiveKeyWithUser = precompiled(() =>
    joinActiveTenant(
      db
        .selectFrom('apiKeys')
        .innerJoin('users', 'users.id', 'apiKeys.userId')
        .select(['apiKeys.id as keyId', 'apiKeys.lastUsedAt', ...qualifiedUserColumns]),
    )
      .where('apiKeys.keyHash', '=', '')
      .where('apiKeys.revokedAt', 'is', null),
  );
  return {
    insert(values: { userId: number; label: string; prefix: string; keyHash: string; now: string }) {
      return db
        .insertInto('apiKeys')
        .values({
          userId: values.userId,
          label: values.label,
          prefix: values.prefix,
          keyHash: values.keyHash,
          createdAt: values.now,
        })
        .returning(['id', 'label', 'prefix', 'createdAt'])
        .executeTakeFirstOrThrow();
    },

    listForUser(userId: number): Promise<ApiKey[]> {
      return db
        .selectFrom('apiKeys')
        .select(apiKeyColumns)
        .where('userId', '=', userId)
        .orderBy('id')
        .execute();
    },

    async revoke(userId: number, id: number, now: string): Promise<ApiKey | undefined> {
      const existing = await db
        .selectFrom('apiKeys')
        .select(apiKeyColumns)
        .where('id', '=', id)
        .where('userId', '=', userId)
        .executeTakeFirst();
      if (!existing || existing.revokedAt) return existing;
      return db
        .updateTable('apiKeys')
        .set({ revokedAt: now })
        .where('id', '=', id)
        .returning(apiKeyColumns)
        .executeTakeFirstOrThrow();
    },

    /** The live key with this hash, joined to its user in one query (the hot path of key auth). */
    async findLiveByHash(keyHash: string) {
      const [row] = await selectLiveKeyWithUser(db, keyHash);
      return row && { keyId: row.keyId, lastUsedAt: row.lastUsedAt, verified: verifiedUserOf(row) };
    },

    async touch(id: number, now: string) {
      await db.updateTable('apiKeys').set({ lastUsedAt: now }).where('id', '=', id).execute();
    },
  };
}
