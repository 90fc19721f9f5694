import type { Executor } from '../../db/database.js';
import {
  changed,
  countOf,
  type DataSubject,
  exportSection,
  noPersonalData,
  type PrivacyDeclaration,
  personal,
} from '../../privacy/declaration.js';

const codes = (db: Executor, { userId }: DataSubject) =>
  db.selectFrom('oauthAuthorizationCodes').where('oauthAuthorizationCodes.userId', '=', userId);

/**
 * The OAuth server's authorization codes of the person (short-lived, kept as history).
 * The grants themselves are the agents module's refresh tokens; registered clients
 * describe MCP hosts and name no person.
 */
export const oauthPrivacy: PrivacyDeclaration = {
  module: 'oauth',
  tables: {
    oauth_clients: noPersonalData('Registration metadata of MCP hosts (name, URLs); no person is named'),
    oauth_authorization_codes: personal('oauth_consents', 'deleted'),
  },
  categories: [
    {
      id: 'oauth_consents',
      label: 'Approvals you gave MCP hosts (authorization codes: only hashes of the codes)',
      purpose: 'Proving which host you approved, for which agent and permission group',
      retention:
        '60 seconds of use, then deleted 24 hours after they expire (or when your account is erased)',
    },
  ],
  async holdings(db, subject) {
    return { oauth_authorization_codes: await countOf(codes(db, subject)) };
  },
  exports: [
    exportSection({
      name: 'oauthAuthorizations',
      table: 'oauth_authorization_codes',
      key: ['oauthAuthorizationCodes.id'],
      // Never the code hash or the PKCE challenge.
      rows: (db, s) =>
        codes(db, s).select([
          'oauthAuthorizationCodes.id',
          'clientId',
          'agentId',
          'redirectUri',
          'resource',
          'scope',
          'expiresAt',
          'consumedAt',
          'createdAt',
        ]),
    }),
  ],
  async erase(trx, { userId }) {
    const result = await trx
      .deleteFrom('oauthAuthorizationCodes')
      .where('userId', '=', userId)
      .executeTakeFirst();
    return { oauth_authorization_codes: changed(result) };
  },
  /** Clients holding a live refresh token for one of the person's (not disabled) agents. */
  async delegates(db, { userId }) {
    const rows = await db
      .selectFrom('oauthRefreshTokens')
      .innerJoin('agents', 'agents.id', 'oauthRefreshTokens.agentId')
      .leftJoin('oauthClients', 'oauthClients.clientId', 'oauthRefreshTokens.clientId')
      .select((eb) => [
        'oauthRefreshTokens.clientId',
        'oauthClients.clientName',
        'oauthRefreshTokens.agentId',
        eb.fn.max('oauthRefreshTokens.scope').as('scope'),
        eb.fn.min('oauthRefreshTokens.createdAt').as('grantedAt'),
        eb.fn.max('oauthRefreshTokens.expiresAt').as('expiresAt'),
      ])
      .where('agents.userId', '=', userId)
      .where('agents.status', '!=', 'disabled')
      .where('oauthRefreshTokens.revokedAt', 'is', null)
      .where('oauthRefreshTokens.expiresAt', '>', new Date().toISOString())
      .groupBy(['oauthRefreshTokens.clientId', 'oauthClients.clientName', 'oauthRefreshTokens.agentId'])
      .orderBy('oauthRefreshTokens.agentId')
      .execute();
    return {
      oauthClients: rows.map((row) => ({
        clientId: row.clientId,
        clientName: row.clientName ?? null,
        agentId: row.agentId,
        scope: row.scope ?? null,
        grantedAt: String(row.grantedAt),
        expiresAt: String(row.expiresAt),
      })),
    };
  },
};
