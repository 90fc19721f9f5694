import type { CompiledQuery, Kysely, Selectable } from 'kysely';
import type { Executor } from '../../db/database.js';
import type { Database } from '../../db/types.js';
import type { OauthAuthorizationCodesTable, OauthClientsTable } from './tables.js';

export type ClientRow = Selectable<OauthClientsTable>;
export type CodeRow = Selectable<OauthAuthorizationCodesTable>;

/** What a redeemed code or a rotated refresh token grants. */
export interface GrantRow {
  agentId: number;
  familyId: string;
  scope: string;
}

/** A named parameter of a prepared query: a sentinel that compiling puts among the parameters. */
const slot = (name: string) => `\u0000${name}` as never;

/**
 * Builds and compiles a query once, with `slot(name)` where each value goes; each call
 * runs it (on the root handle or inside a transaction) with the values by name. For the
 * token endpoint's hot path, where Kysely's build-and-compile costs more than the SQL.
 */
function prepare<Row, Name extends string>(query: { compile(): CompiledQuery<Row> }, names: readonly Name[]) {
  const compiled = query.compile();
  const order = compiled.parameters.map((parameter) => {
    const name = typeof parameter === 'string' && parameter.startsWith('\u0000') ? parameter.slice(1) : '';
    if (!(names as readonly string[]).includes(name))
      throw new Error(`Unnamed parameter in a prepared query: ${String(parameter)}`);
    return name as Name;
  });
  return async (executor: Executor, values: Record<Name, unknown>): Promise<Row[]> => {
    const result = await executor.executeQuery<Row>({
      ...compiled,
      parameters: order.map((name) => values[name]),
    });
    return result.rows;
  };
}

/** Revokes every live refresh token of the agent, in the caller's transaction; answers how many. */
export async function revokeAgentRefreshTokens(db: Executor, agentId: number, now: string): Promise<number> {
  const result = await db
    .updateTable('oauthRefreshTokens')
    .set({ revokedAt: now })
    .where('agentId', '=', agentId)
    .where('revokedAt', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/** The OAuth tables; the hot statements are compiled once per app. */
export function createOAuthRepo(kysely: Kysely<Database>) {
  const db = kysely;

  const consumeCodeQuery = prepare(
    db
      .updateTable('oauthAuthorizationCodes')
      .set({ consumedAt: slot('now'), issuedFamilyId: slot('familyId') })
      .where('codeHash', '=', slot('codeHash'))
      .where('consumedAt', 'is', null)
      .where('expiresAt', '>', slot('now'))
      .where('clientId', '=', slot('clientId'))
      .where('redirectUri', '=', slot('redirectUri'))
      .where('codeChallenge', '=', slot('codeChallenge'))
      .returning(['agentId', 'scope', 'resource']),
    ['now', 'familyId', 'codeHash', 'clientId', 'redirectUri', 'codeChallenge'],
  );
  const insertRefreshTokenQuery = prepare(
    db.insertInto('oauthRefreshTokens').values({
      clientId: slot('clientId'),
      agentId: slot('agentId'),
      tokenHash: slot('tokenHash'),
      familyId: slot('familyId'),
      scope: slot('scope'),
      expiresAt: slot('expiresAt'),
      createdAt: slot('now'),
    }),
    ['clientId', 'agentId', 'tokenHash', 'familyId', 'scope', 'expiresAt', 'now'],
  );
  const rotateQuery = prepare(
    db
      .updateTable('oauthRefreshTokens')
      .set({ revokedAt: slot('now') })
      .where('tokenHash', '=', slot('tokenHash'))
      .where('revokedAt', 'is', null)
      .where('expiresAt', '>', slot('now'))
      .where('clientId', '=', slot('clientId'))
      .returning(['agentId', 'familyId', 'scope']),
    ['now', 'tokenHash', 'clientId'],
  );
  // The one query of every OAuth-authenticated MCP request: is the grant still live?
  // A grant has one live token at a time, so no limit is needed.
  const liveGrantQuery = prepare(
    db
      .selectFrom('oauthRefreshTokens')
      .select('id')
      .where('familyId', '=', slot('familyId'))
      .where('agentId', '=', slot('agentId'))
      .where('clientId', '=', slot('clientId'))
      .where('revokedAt', 'is', null),
    ['familyId', 'agentId', 'clientId'],
  );

  return {
    // Clients

    async insertClient(row: ClientRow): Promise<void> {
      await db.insertInto('oauthClients').values(row).execute();
    },

    findClient(clientId: string): Promise<ClientRow | undefined> {
      return db.selectFrom('oauthClients').selectAll().where('clientId', '=', clientId).executeTakeFirst();
    },

    /**
     * Records the client's first approval (later ones keep the first time); answers
     * false when the client is gone. Against a concurrent clean-up it is one or the
     * other: the row lock decides whether the client was approved or deleted first.
     */
    async markClientApproved(clientId: string, now: string): Promise<boolean> {
      const result = await db
        .updateTable('oauthClients')
        .set((eb) => ({ firstAuthorizedAt: eb.fn.coalesce('firstAuthorizedAt', eb.val(now)) }))
        .where('clientId', '=', clientId)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) > 0;
    },

    /** Deletes the clients registered before `before` that nobody approved; answers how many. */
    async deleteUnapprovedClients(before: string): Promise<number> {
      const result = await db
        .deleteFrom('oauthClients')
        .where('firstAuthorizedAt', 'is', null)
        .where('createdAt', '<', before)
        .executeTakeFirst();
      return Number(result.numDeletedRows);
    },

    // Authorization codes

    async insertCode(values: Omit<CodeRow, 'id' | 'consumedAt' | 'issuedFamilyId'>): Promise<void> {
      await db
        .insertInto('oauthAuthorizationCodes')
        .values({ ...values, consumedAt: null, issuedFamilyId: null })
        .execute();
    },

    /**
     * Redeems a code: ONE conditional UPDATE that matches only an unconsumed, unexpired
     * code issued to this client for this redirect URI and PKCE challenge, and marks it
     * consumed by the given token family. Of two concurrent redemptions exactly one
     * gets the row back (PostgreSQL re-checks the condition after the first commits;
     * SQLite runs them one after the other).
     */
    async consumeCode(
      executor: Executor,
      values: {
        codeHash: string;
        clientId: string;
        redirectUri: string;
        codeChallenge: string;
        familyId: string;
        now: string;
      },
    ): Promise<Pick<CodeRow, 'agentId' | 'scope' | 'resource'> | undefined> {
      const [row] = await consumeCodeQuery(executor, values);
      return row;
    },

    findCode(codeHash: string): Promise<CodeRow | undefined> {
      return db
        .selectFrom('oauthAuthorizationCodes')
        .selectAll()
        .where('codeHash', '=', codeHash)
        .executeTakeFirst();
    },

    // Refresh tokens (the agents module's table; it revokes them when an agent is disabled)

    async insertRefreshToken(
      executor: Executor,
      values: {
        clientId: string;
        agentId: number;
        tokenHash: string;
        familyId: string;
        scope: string;
        expiresAt: string;
        now: string;
      },
    ): Promise<void> {
      await insertRefreshTokenQuery(executor, values);
    },

    /**
     * Rotates a refresh token: ONE conditional UPDATE revoking it only if it is live,
     * unexpired and this client's. Of two concurrent rotations exactly one gets the row.
     */
    async revokeForRotation(
      executor: Executor,
      values: { tokenHash: string; clientId: string; now: string },
    ): Promise<GrantRow | undefined> {
      const [row] = await rotateQuery(executor, values);
      return row ? { agentId: row.agentId, familyId: row.familyId, scope: row.scope ?? '' } : undefined;
    },

    findRefreshToken(tokenHash: string) {
      return db
        .selectFrom('oauthRefreshTokens')
        .select(['clientId', 'agentId', 'familyId', 'scope', 'expiresAt', 'revokedAt'])
        .where('tokenHash', '=', tokenHash)
        .executeTakeFirst();
    },

    /** Revokes every live token of one grant (one authorization code and its rotations). */
    async revokeFamily(familyId: string, now: string): Promise<number> {
      const result = await db
        .updateTable('oauthRefreshTokens')
        .set({ revokedAt: now })
        .where('familyId', '=', familyId)
        .where('revokedAt', 'is', null)
        .executeTakeFirst();
      return Number(result.numUpdatedRows);
    },

    /** Revokes every live token of the (client, agent) pair: a rotated token was presented again. */
    async revokeClientAgent(clientId: string, agentId: number, now: string): Promise<number> {
      const result = await db
        .updateTable('oauthRefreshTokens')
        .set({ revokedAt: now })
        .where('agentId', '=', agentId)
        .where('clientId', '=', clientId)
        .where('revokedAt', 'is', null)
        .executeTakeFirst();
      return Number(result.numUpdatedRows);
    },

    /**
     * Whether the grant an access token came from still has a live refresh token:
     * revoking the grant (code replay, refresh-token replay, agent disabled) ends its
     * access tokens at once.
     */
    async isGrantLive(familyId: string, agentId: number, clientId: string): Promise<boolean> {
      const rows = await liveGrantQuery(db, { familyId, agentId, clientId });
      return rows.length > 0;
    },

    /** Deletes codes and refresh tokens expired before `before`; they can no longer be replayed usefully. */
    async purgeExpired(before: string): Promise<void> {
      await db.deleteFrom('oauthAuthorizationCodes').where('expiresAt', '<', before).execute();
      await db.deleteFrom('oauthRefreshTokens').where('expiresAt', '<', before).execute();
    },
  };
}

export type OAuthRepo = ReturnType<typeof createOAuthRepo>;
