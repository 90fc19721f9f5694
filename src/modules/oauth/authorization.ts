import type { Actor } from '../../lib/actor.js';
import { randomToken, sha256 } from '../../lib/crypto.js';
import { DomainError, invalidFields } from '../../lib/errors.js';
import { isoAfterSeconds } from '../../lib/time.js';
import type { AgentService } from '../agents/service.js';
import { type Clients, type OAuthClient, UnknownClientError } from './clients.js';
import type { OAuthRepo } from './repo.js';
import {
  CODE_TTL_SECONDS,
  isRedirectUriRegistered,
  pkceChallengeProblem,
  RESPONSE_TYPE,
  resourceProblem,
  STATE_MAX,
  scopeSyntaxProblem,
  withQuery,
} from './rules.js';
import type { ConsentDetails, ConsentDetailsQuery, ConsentInput } from './schemas.js';

/**
 * A refused request: VALIDATION_FAILED naming the parameter or field at fault. The routes
 * say where it was (`querystring.client_id`, `body.redirectUri`).
 */
const refused = (field: string, message: string) => invalidFields([{ path: field, message }]);

/** Parameters the authorization request may give once only (RFC 6749 §3.1). */
const SINGLE_PARAMETERS = [
  'client_id',
  'redirect_uri',
  'response_type',
  'code_challenge',
  'code_challenge_method',
  'state',
  'scope',
];

export interface AuthorizationDeps {
  repo: OAuthRepo;
  clients: Pick<Clients, 'resolve' | 'markApproved'>;
  agents: Pick<AgentService, 'permissionGroups' | 'createOrReactivateForOAuthClient'>;
  issuer: string;
  mcpResource: string;
  /** Where the consent page is served (FRONTEND_URL). */
  frontendUrl: string;
}

/**
 * The authorization endpoint and the consent it leads to: the request's checks, what the
 * consent page shows, and the person's decision, which issues the authorization code.
 */
export function createAuthorization({
  repo,
  clients,
  agents,
  issuer,
  mcpResource,
  frontendUrl,
}: AuthorizationDeps) {
  /** An authorization response or error on the client's redirect URI, with `iss` (RFC 9207 §2). */
  function redirectTo(redirectUri: string, parameters: Record<string, string | undefined>): string {
    return withQuery(redirectUri, { ...parameters, iss: issuer });
  }

  /** The client, redirect URI and resource a consent names, each checked again (fields named as given). */
  async function consentClient(
    fields: { clientId: string; redirectUri: string; resource: string },
    given: { clientId: string; redirectUri: string; resource?: string | undefined },
  ): Promise<OAuthClient> {
    let client: OAuthClient;
    try {
      client = await clients.resolve(given.clientId);
    } catch (error) {
      if (error instanceof UnknownClientError) throw refused(fields.clientId, error.message);
      throw error;
    }
    if (!isRedirectUriRegistered(client.redirectUris, given.redirectUri))
      throw refused(
        fields.redirectUri,
        'is not a redirect URI registered for this client (exact match required)',
      );
    const problem = resourceProblem(given.resource, mcpResource);
    if (problem) throw refused(fields.resource, problem);
    return client;
  }

  return {
    /**
     * The authorization endpoint (RFC 6749 §4.1.1, OAuth 2.1 §4.1.1). Answers where to
     * send the browser: the consent page, with this request's own query. Every
     * request error throws VALIDATION_FAILED naming the parameter, and nothing is
     * redirected to the client: anyone can register a client, so no client's URI is
     * trusted with an error redirect (RFC 9700 §4.11.2). The parameters are checked
     * before the client, so a malformed request never fetches a metadata document.
     */
    async authorize(query: Record<string, unknown>, rawQuery: string): Promise<{ location: string }> {
      const value = (name: string): string | undefined => {
        const given = query[name];
        return typeof given === 'string' && given !== '' ? given : undefined;
      };
      for (const name of SINGLE_PARAMETERS) {
        if (Array.isArray(query[name]))
          throw refused(name, `${name} is given more than once (RFC 6749 §3.1)`);
      }
      if (Array.isArray(query.resource))
        throw refused(
          'resource',
          'Only one resource may be requested: this server protects one (RFC 8707 §2)',
        );

      const responseType = value('response_type');
      if (!responseType) throw refused('response_type', 'response_type is required (RFC 6749 §4.1.1)');
      if (responseType !== RESPONSE_TYPE)
        throw refused('response_type', 'Only response_type=code is supported (OAuth 2.1 §4.1.1)');
      const pkceProblem = pkceChallengeProblem(value('code_challenge'), value('code_challenge_method'));
      if (pkceProblem) throw refused(pkceProblem.parameter, pkceProblem.message);
      const state = value('state');
      if (state !== undefined && state.length > STATE_MAX)
        throw refused('state', `state must be at most ${STATE_MAX} characters`);
      const scope = value('scope');
      const scopeProblem = scope === undefined ? null : scopeSyntaxProblem(scope);
      if (scopeProblem) throw refused('scope', scopeProblem);
      const targetProblem = resourceProblem(value('resource'), mcpResource);
      if (targetProblem) throw refused('resource', targetProblem);

      const clientId = value('client_id');
      if (!clientId) throw refused('client_id', 'client_id is required (RFC 6749 §4.1.1)');
      let client: OAuthClient;
      try {
        client = await clients.resolve(clientId);
      } catch (error) {
        if (error instanceof UnknownClientError) throw refused('client_id', error.message);
        throw error;
      }
      const redirectUri = value('redirect_uri');
      if (!redirectUri) throw refused('redirect_uri', 'redirect_uri is required (OAuth 2.1 §4.1.1)');
      if (!isRedirectUriRegistered(client.redirectUris, redirectUri))
        throw refused(
          'redirect_uri',
          'redirect_uri is not registered for this client; it must match a registered URI exactly',
        );

      return { location: `${frontendUrl}/oauth/consent?${rawQuery}` };
    },

    /** What the consent page shows: the client, where it returns to, and the groups the person may grant. */
    async consentDetails(actor: Actor, query: ConsentDetailsQuery): Promise<ConsentDetails> {
      const client = await consentClient(
        { clientId: 'client_id', redirectUri: 'redirect_uri', resource: 'resource' },
        { clientId: query.client_id, redirectUri: query.redirect_uri, resource: query.resource },
      );
      const groups = await agents.permissionGroups(actor);
      return {
        clientId: client.clientId,
        clientName: client.clientName,
        clientDescription: client.clientDescription,
        clientLogoUrl: client.logoUrl,
        clientHomepageUrl: client.homepageUrl,
        redirectUri: query.redirect_uri,
        availablePermissionGroups: groups.filter((group) => group.canAssign),
      };
    },

    /**
     * The person's decision. Approval creates (or reactivates) the agent for this
     * client with the chosen group and issues a single-use code bound to client,
     * redirect URI, PKCE challenge, resource and agent; denial, or a group the person
     * may not assign, answers `error=access_denied`. Either way with `state` and `iss`.
     */
    async consent(actor: Actor, input: ConsentInput): Promise<{ redirectUrl: string }> {
      const client = await consentClient(
        { clientId: 'clientId', redirectUri: 'redirectUri', resource: 'resource' },
        input,
      );
      const state = input.state || undefined;
      const denied = (description: string) => ({
        redirectUrl: redirectTo(input.redirectUri, {
          error: 'access_denied',
          error_description: description,
          state,
        }),
      });
      if (!input.approve) return denied('The resource owner denied the request');

      const groupId = input.permissionGroupId ?? '';
      const groups = await agents.permissionGroups(actor);
      if (!groups.some((group) => group.id === groupId && group.canAssign))
        return denied('The permission group is not one the resource owner may assign');
      // An approved client is kept for good; one deleted as unused since it was read is gone.
      if (client.registered && !(await clients.markApproved(client.clientId)))
        throw refused('clientId', 'client_id is not a registered client');
      let agentId: number;
      try {
        const agent = await agents.createOrReactivateForOAuthClient(actor, {
          clientId: client.clientId,
          clientName: client.clientName,
          permissionGroupId: groupId,
        });
        agentId = agent.id;
      } catch (error) {
        if (
          error instanceof DomainError &&
          (error.code === 'FORBIDDEN' || error.code === 'VALIDATION_FAILED')
        )
          return denied('The permission group is not one the resource owner may assign');
        throw error;
      }

      const code = randomToken();
      const nowMs = Date.now();
      await repo.insertCode({
        codeHash: sha256(code),
        clientId: client.clientId,
        userId: actor.userId,
        agentId,
        redirectUri: input.redirectUri,
        codeChallenge: input.codeChallenge,
        resource: input.resource ?? null,
        scope: groupId,
        expiresAt: isoAfterSeconds(CODE_TTL_SECONDS, nowMs),
        createdAt: new Date(nowMs).toISOString(),
      });
      return { redirectUrl: redirectTo(input.redirectUri, { code, state }) };
    },
  };
}
