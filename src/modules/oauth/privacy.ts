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
import { actingAgentIds, userAgentIds } from '../agents/ports.js';

const codes = (db: Executor, { userId }: DataSubject) =>
  db.selectFrom('oauthAuthorizationCodes').where('oauthAuthorizationCodes.userId', '=', userId);
/** The person's agents: their grants are the refresh tokens issued to those agents. */
const ownAgents = (db: Executor, { userId }: DataSubject) => userAgentIds(db, userId);
const refreshTokens = (db: Executor, subject: DataSubject) =>
  db.selectFrom('oauthRefreshTokens').where('oauthRefreshTokens.agentId', 'in', ownAgents(db, subject));

/**
 * The OAuth server's grants to the person's agents (refresh tokens: erased before the agents
 * are, so every grant ends) and the person's authorization codes (short-lived, kept as
 * history). Registered clients describe MCP hosts and name no person.
 */
export const oauthPrivacy: PrivacyDeclaration = {
  module: 'oauth',
  tables: {
    oauth_clients: noPersonalData('Registration metadata of MCP hosts (name, URLs); no person is named'),
    oauth_authorization_codes: personal('oauth_consents', 'deleted'),
    oauth_refresh_tokens: personal('oauth_grants', 'deleted (every OAuth grant ends)'),
  },
  categories: [
    {
      id: 'oauth_grants',
      label: 'OAuth grants of MCP hosts to your agents (only hashes of the tokens)',
      purpose: 'Letting an MCP host you approved keep acting through your agent',
      retention: 'Until the grant expires or is revoked, then kept as history until your account is erased',
    },
    {
      id: 'oauth_consents',
      label: 'Approvals you gave MCP hosts (authorization codes: only hashes of the codes)',
      purpose: 'Proving which host you approved, for which agent and permission group',
      retention:
        '60 seconds of use, then deleted 24 hours after they expire (or when your account is erased)',
    },
  ],
  async holdings(db, subject) {
    return {
      oauth_authorization_codes: await countOf(codes(db, subject)),
      oauth_refresh_tokens: await countOf(refreshTokens(db, subject)),
    };
  },
  exports: [
    exportSection({
      name: 'oauthGrants',
      table: 'oauth_refresh_tokens',
      // One agent at a time, by (client, id): the order of the (agent_id, client_id) index.
      partition: { column: 'oauthRefreshTokens.agentId', values: ownAgents },
      key: ['oauthRefreshTokens.clientId', 'oauthRefreshTokens.id'],
      rows: (db) =>
        db
          .selectFrom('oauthRefreshTokens')
          .select([
            'oauthRefreshTokens.id',
            'clientId',
            'agentId',
            'scope',
            'createdAt',
            'expiresAt',
            'revokedAt',
          ]),
    }),
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
  async erase(trx, subject) {
    const tokens = await trx
      .deleteFrom('oauthRefreshTokens')
      .where('agentId', 'in', ownAgents(trx, subject))
      .executeTakeFirst();
    const result = await trx
      .deleteFrom('oauthAuthorizationCodes')
      .where('userId', '=', subject.userId)
      .executeTakeFirst();
    return { oauth_refresh_tokens: changed(tokens), oauth_authorization_codes: changed(result) };
  },
  /** Clients holding a live refresh token for one of the person's (not disabled) agents. */
  async delegates(db, { userId }) {
    const rows = await db
      .selectFrom('oauthRefreshTokens')
      .leftJoin('oauthClients', 'oauthClients.clientId', 'oauthRefreshTokens.clientId')
      .select((eb) => [
        'oauthRefreshTokens.clientId',
        'oauthClients.clientName',
        'oauthRefreshTokens.agentId',
        eb.fn.max('oauthRefreshTokens.scope').as('scope'),
        eb.fn.min('oauthRefreshTokens.createdAt').as('grantedAt'),
        eb.fn.max('oauthRefreshTokens.expiresAt').as('expiresAt'),
      ])
      .where('oauthRefreshTokens.agentId', 'in', actingAgentIds(db, userId))
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
