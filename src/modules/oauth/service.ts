import type { Config } from '../../config.js';
import type { Db } from '../../db/database.js';
import type { AgentService } from '../agents/service.js';
import { createAuthorization } from './authorization.js';
import { type ClientMetadataResolver, createClientMetadataResolver } from './client-metadata.js';
import { createClients } from './clients.js';
import { createOAuthRepo, revokeAgentRefreshTokens } from './repo.js';
import { CODE_CHALLENGE_METHOD, GRANT_TYPES, RESPONSE_TYPE, SCOPES_SUPPORTED } from './rules.js';
import type { AuthorizationServerMetadata, ProtectedResourceMetadata } from './schemas.js';
import { createTokens } from './tokens.js';

export { HOUSEKEEPING_EVERY_MINUTES, OAUTH_HOUSEKEEPING_JOB, type OAuthClient } from './clients.js';

export type OAuthService = ReturnType<typeof createOAuthService>;

/**
 * The OAuth 2.1 authorization server of /api/mcp: discovery, its clients (registration,
 * metadata documents, housekeeping; clients.ts), the authorization endpoint and consent
 * (authorization.ts), and the token endpoint with the access tokens it issues (tokens.ts).
 */
export function createOAuthService({
  db,
  config,
  agents,
  clientMetadata,
}: {
  db: Db;
  config: Config;
  agents: Pick<AgentService, 'permissionGroups' | 'createOrReactivateForOAuthClient' | 'resolveAgent'>;
  /** The Client ID Metadata Document fetcher (tests may inject one). */
  clientMetadata?: ClientMetadataResolver;
}) {
  const repo = createOAuthRepo(db.kysely);
  const issuer = config.publicUrl;
  const mcpResource = `${config.publicUrl}/api/mcp`;
  const allowPrivate = config.oauthCimdAllowPrivate;
  const enabled = config.featureFlags.oauth !== false;
  const documents = clientMetadata ?? createClientMetadataResolver({ allowPrivate });
  const clients = createClients({ repo, documents, allowPrivate });
  const authorization = createAuthorization({
    repo,
    clients,
    agents,
    issuer,
    mcpResource,
    frontendUrl: config.frontendUrl,
  });
  const tokens = createTokens({ db, config, repo, clients, agents, issuer, mcpResource, enabled });

  return {
    enabled,
    issuer,
    mcpResource,

    /** Port: revokes every live refresh token of the agent in `executor` (an agent disabled); answers how many. */
    revokeForAgent: revokeAgentRefreshTokens,

    /** RFC 9728 metadata of /api/mcp. */
    protectedResourceMetadata(): ProtectedResourceMetadata {
      return {
        resource: mcpResource,
        authorization_servers: [issuer],
        bearer_methods_supported: ['header'],
        resource_documentation: `${issuer}/api/docs`,
      };
    },

    /** RFC 8414 metadata of this authorization server. */
    authorizationServerMetadata(): AuthorizationServerMetadata {
      return {
        issuer,
        authorization_endpoint: `${issuer}/api/oauth/authorize`,
        token_endpoint: `${issuer}/api/oauth/token`,
        registration_endpoint: `${issuer}/api/oauth/register`,
        response_types_supported: [RESPONSE_TYPE],
        grant_types_supported: [...GRANT_TYPES],
        code_challenge_methods_supported: [CODE_CHALLENGE_METHOD],
        token_endpoint_auth_methods_supported: ['none'],
        scopes_supported: [...SCOPES_SUPPORTED],
        authorization_response_iss_parameter_supported: true,
        client_id_metadata_document_supported: true,
      };
    },

    register: clients.register,
    housekeeping: clients.housekeeping,
    authorize: authorization.authorize,
    consentDetails: authorization.consentDetails,
    consent: authorization.consent,
    token: tokens.token,
    verifyAccessToken: tokens.verifyAccessToken,
  };
}
