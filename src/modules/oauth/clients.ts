import { randomBytes } from 'node:crypto';
import { BoundedCache } from '../../lib/bounded-cache.js';
import { isoAfterSeconds, nowIso } from '../../lib/time.js';
import type { ClientMetadataResolver } from './client-metadata.js';
import { ClientMetadataError, clientIdUrlProblem, isClientMetadataUrl } from './client-metadata-document.js';
import { invalidClient } from './errors.js';
import type { ClientRow, OAuthRepo } from './repo.js';
import { CLIENT_ID_MAX, GRANT_TYPES, RESPONSE_TYPE } from './rules.js';
import type { RegisterClientInput, RegisteredClient } from './schemas.js';

/** Expired codes and refresh tokens are kept this long (for replay detection), then purged. */
const PURGE_AFTER_SECONDS = 86_400;
/** A registered client nobody approved within this long is deleted (DECISIONS.md, OAuth hardening). */
const UNUSED_CLIENT_LIFETIME_SECONDS = 86_400;
/** The periodic clean-up: expired codes and refresh tokens, and clients nobody approved. */
export const OAUTH_HOUSEKEEPING_JOB = 'oauth_housekeeping';
export const HOUSEKEEPING_EVERY_MINUTES = 15;

/** A client as the flow sees it: registered (RFC 7591) or described by its metadata document. */
export interface OAuthClient {
  clientId: string;
  clientName: string;
  clientDescription: string;
  logoUrl: string | null;
  homepageUrl: string | null;
  redirectUris: string[];
  /** Registered here (a row of oauth_clients), not described by a metadata document. */
  registered: boolean;
}

/** Why a client_id names no usable client. */
export class UnknownClientError extends Error {}

function fromRow(row: ClientRow): OAuthClient {
  return {
    clientId: row.clientId,
    clientName: row.clientName,
    clientDescription: row.clientDescription ?? '',
    logoUrl: row.logoUrl,
    homepageUrl: row.homepageUrl,
    redirectUris: JSON.parse(row.redirectUris) as string[],
    registered: true,
  };
}

export interface ClientsDeps {
  repo: OAuthRepo;
  /** The Client ID Metadata Document fetcher. */
  documents: ClientMetadataResolver;
  /** Whether a metadata document URL may name a private address (OAUTH_CIMD_ALLOW_PRIVATE). */
  allowPrivate: boolean;
}

export type Clients = ReturnType<typeof createClients>;

/**
 * The clients of the authorization server: registered ones (RFC 7591) and ones a
 * client_id URL describes (Client ID Metadata Documents), and the periodic clean-up of
 * what expired (codes, refresh tokens, clients nobody approved).
 */
export function createClients({ repo, documents, allowPrivate }: ClientsDeps) {
  // An approved client is never deleted, so it can be remembered (token endpoint hot path).
  const approvedClients = new BoundedCache<string, true>(10_000);

  return {
    /** The housekeeping job's run; idempotent, so a repeated or concurrent run (several instances) changes nothing more. */
    async housekeeping(): Promise<void> {
      await repo.purgeExpired(isoAfterSeconds(-PURGE_AFTER_SECONDS));
      await repo.deleteUnapprovedClients(isoAfterSeconds(-UNUSED_CLIENT_LIFETIME_SECONDS));
    },

    /** RFC 7591 registration of a public client. */
    async register(input: RegisterClientInput): Promise<RegisteredClient> {
      const clientId = `oc_${randomBytes(18).toString('base64url')}`;
      const createdAt = nowIso();
      const logoUrl = input.client_logo_url ?? input.logo_uri ?? null;
      const homepageUrl = input.client_homepage_url ?? input.client_uri ?? null;
      const description = input.client_description ?? '';
      await repo.insertClient({
        clientId,
        clientName: input.client_name,
        clientDescription: description || null,
        logoUrl,
        homepageUrl,
        redirectUris: JSON.stringify(input.redirect_uris),
        createdAt,
        firstAuthorizedAt: null,
      });
      return {
        client_id: clientId,
        client_id_issued_at: Math.floor(Date.parse(createdAt) / 1000),
        client_name: input.client_name,
        client_description: description,
        ...(logoUrl ? { client_logo_url: logoUrl } : {}),
        ...(homepageUrl ? { client_homepage_url: homepageUrl } : {}),
        redirect_uris: [...input.redirect_uris],
        token_endpoint_auth_method: 'none',
        grant_types: [...GRANT_TYPES],
        response_types: [RESPONSE_TYPE],
      };
    },

    /** The client a client_id names, fetching its metadata document when it is a URL; UnknownClientError if none. */
    async resolve(clientId: string): Promise<OAuthClient> {
      if (isClientMetadataUrl(clientId, allowPrivate)) {
        try {
          return { ...(await documents.resolve(clientId)), clientDescription: '', registered: false };
        } catch (error) {
          if (error instanceof ClientMetadataError)
            throw new UnknownClientError(`The client_id metadata document cannot be used: ${error.message}`);
          throw error;
        }
      }
      const row = clientId.length <= CLIENT_ID_MAX ? await repo.findClient(clientId) : undefined;
      if (!row) throw new UnknownClientError('client_id is not a registered client');
      return fromRow(row);
    },

    /**
     * The token endpoint's client check: a registered client, or a well-formed metadata
     * document URL. The document is not fetched again here: the code or refresh token
     * presented is bound to this client_id, which is what the grant checks.
     */
    async assertTokenClient(clientId: string): Promise<void> {
      if (isClientMetadataUrl(clientId, allowPrivate)) {
        const problem = clientIdUrlProblem(clientId, allowPrivate);
        if (problem) throw invalidClient(problem);
        return;
      }
      if (approvedClients.get(clientId)) return;
      const row = clientId.length <= CLIENT_ID_MAX ? await repo.findClient(clientId) : undefined;
      if (!row) throw invalidClient('client_id is not a registered client');
      if (row.firstAuthorizedAt !== null) approvedClients.set(clientId, true, Date.now() + 3_600_000);
    },

    /** Keeps a registered client for good once a person approved it; false if it was deleted as unused. */
    markApproved(clientId: string): Promise<boolean> {
      return repo.markClientApproved(clientId, nowIso());
    },
  };
}
