import type { Executor } from '../../db/database.js';

/** What GET /api/auth/sessions shows of a session. */
export interface SessionRow {
  id: number;
  userAgent: string | null;
  createdAt: string;
  lastUsedAt: string;
}

/** Which of a user's sessions to end. */
export type EndedSessions = { kind: 'one'; id: number } | { kind: 'allBut'; id: number } | { kind: 'all' };

/**
 * Sign-ins (`auth_sessions`) and the refresh tokens of each (`login_sessions`, one row a
 * rotation, a family a sign-in).
 */
export function createSessionRepo(db: Executor) {
  return {
    async insertSession(values: {
      userId: number;
      userAgent: string | null;
      expiresAt: string;
      now: string;
    }): Promise<number> {
      const row = await db
        .insertInto('authSessions')
        .values({
          userId: values.userId,
          userAgent: values.userAgent,
          createdAt: values.now,
          lastUsedAt: values.now,
          expiresAt: values.expiresAt,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      return row.id;
    },

    /** The session is in use: its last use, and (on a refresh) its new end. */
    async touchSession(id: number, now: string, expiresAt?: string): Promise<void> {
      await db
        .updateTable('authSessions')
        .set({ lastUsedAt: now, ...(expiresAt ? { expiresAt } : {}) })
        .where('id', '=', id)
        .execute();
    },

    findLiveSession(id: number, now: string) {
      return db
        .selectFrom('authSessions')
        .select(['id', 'userId'])
        .where('id', '=', id)
        .where('revokedAt', 'is', null)
        .where('expiresAt', '>', now)
        .executeTakeFirst();
    },

    /** The user's sessions neither ended nor lapsed, newest first. */
    listLiveSessions(userId: number, now: string): Promise<SessionRow[]> {
      return db
        .selectFrom('authSessions')
        .select(['id', 'userAgent', 'createdAt', 'lastUsedAt'])
        .where('userId', '=', userId)
        .where('revokedAt', 'is', null)
        .where('expiresAt', '>', now)
        .orderBy('id', 'desc')
        .execute();
    },

    findSessionOf(userId: number, id: number) {
      return db
        .selectFrom('authSessions')
        .select(['id'])
        .where('id', '=', id)
        .where('userId', '=', userId)
        .executeTakeFirst();
    },

    /**
     * Ends sessions of a user and their refresh tokens: one session, all but one, or all.
     * Refresh tokens of families older than sessions (none) end with "all but one" and "all".
     */
    async endSessions(userId: number, now: string, which: EndedSessions): Promise<void> {
      let sessions = db
        .updateTable('authSessions')
        .set({ revokedAt: now })
        .where('userId', '=', userId)
        .where('revokedAt', 'is', null);
      let tokens = db
        .updateTable('loginSessions')
        .set({ revokedAt: now })
        .where('userId', '=', userId)
        .where('revokedAt', 'is', null);
      if (which.kind === 'one') {
        sessions = sessions.where('id', '=', which.id);
        tokens = tokens.where('authSessionId', '=', which.id);
      } else if (which.kind === 'allBut') {
        const kept = which.id;
        sessions = sessions.where('id', '!=', kept);
        tokens = tokens.where((eb) =>
          eb.or([eb('authSessionId', 'is', null), eb('authSessionId', '!=', kept)]),
        );
      }
      await sessions.execute();
      await tokens.execute();
    },

    async insertRefreshToken(values: {
      userId: number;
      authSessionId: number;
      familyId: string;
      tokenHash: string;
      expiresAt: string;
      now: string;
    }) {
      const { now, ...token } = values;
      await db
        .insertInto('loginSessions')
        .values({ ...token, createdAt: now })
        .execute();
    },

    findRefreshToken(tokenHash: string) {
      return db
        .selectFrom('loginSessions')
        .select(['id', 'userId', 'familyId', 'authSessionId', 'expiresAt', 'revokedAt'])
        .where('tokenHash', '=', tokenHash)
        .executeTakeFirst();
    },

    /** Revokes one refresh token if still live; answers whether this call revoked it (the rotation race winner). */
    async revokeRefreshToken(id: number, now: string): Promise<boolean> {
      const result = await db
        .updateTable('loginSessions')
        .set({ revokedAt: now })
        .where('id', '=', id)
        .where('revokedAt', 'is', null)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) === 1;
    },

    async revokeFamily(familyId: string, now: string) {
      await db
        .updateTable('loginSessions')
        .set({ revokedAt: now })
        .where('familyId', '=', familyId)
        .where('revokedAt', 'is', null)
        .execute();
    },
  };
}
