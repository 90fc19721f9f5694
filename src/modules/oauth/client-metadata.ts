import { BoundedCache } from '../../lib/bounded-cache.js';
import {
  type ClientMetadata,
  ClientMetadataError,
  clientIdUrlProblem,
  parseClientMetadataDocument,
} from './client-metadata-document.js';
import { fetchClientMetadataDocument } from './client-metadata-fetch.js';

/**
 * Client ID Metadata Documents (draft-ietf-oauth-client-id-metadata-document): a
 * client_id that is an `https://` URL names a JSON document, served there, that
 * describes the client. We fetch it with every bound a server-side fetch of a
 * caller-chosen URL needs (client-metadata-fetch.ts), check it
 * (client-metadata-document.ts), and cache it as its Cache-Control allows, within bounds.
 */

export interface ClientMetadataResolverOptions {
  /** Tests only (OAUTH_CIMD_ALLOW_PRIVATE): loopback/private addresses and `http://` loopback ids. */
  allowPrivate: boolean;
  timeoutMs?: number;
  maxBytes?: number;
  /** Cache lifetime when the document says nothing (no Cache-Control max-age). */
  defaultCacheSeconds?: number;
  /** Upper bound on any cache lifetime, whatever max-age says. */
  maxCacheSeconds?: number;
  cacheEntries?: number;
}

export interface ClientMetadataResolver {
  /** The client the document at `clientId` describes; throws ClientMetadataError saying why not. */
  resolve(clientId: string): Promise<ClientMetadata>;
}

const DEFAULTS = {
  timeoutMs: 5_000,
  maxBytes: 64 * 1024,
  defaultCacheSeconds: 300,
  maxCacheSeconds: 86_400,
  cacheEntries: 1_000,
};

/** Seconds the answer may be reused: max-age within bounds; no-store or no-cache: not at all. */
function cacheSeconds(header: string | undefined, options: typeof DEFAULTS): number {
  if (!header) return options.defaultCacheSeconds;
  const directives = header
    .toLowerCase()
    .split(',')
    .map((part) => part.trim());
  if (directives.includes('no-store') || directives.includes('no-cache')) return 0;
  const maxAge = directives.find((d) => d.startsWith('max-age='));
  if (!maxAge) return options.defaultCacheSeconds;
  const seconds = Number(maxAge.slice('max-age='.length));
  if (!Number.isFinite(seconds) || seconds < 0) return 0;
  return Math.min(Math.floor(seconds), options.maxCacheSeconds);
}

export function createClientMetadataResolver(input: ClientMetadataResolverOptions): ClientMetadataResolver {
  const options = { ...DEFAULTS, ...input };
  const cache = new BoundedCache<string, ClientMetadata>(options.cacheEntries);
  const inFlight = new Map<string, Promise<ClientMetadata>>();

  async function load(clientId: string): Promise<ClientMetadata> {
    const fetched = await fetchClientMetadataDocument(clientId, options);
    const metadata = parseClientMetadataDocument(clientId, fetched.text);
    const seconds = cacheSeconds(fetched.cacheControl, options);
    if (seconds > 0) cache.set(clientId, metadata, Date.now() + seconds * 1000);
    return metadata;
  }

  return {
    async resolve(clientId) {
      const problem = clientIdUrlProblem(clientId, options.allowPrivate);
      if (problem) throw new ClientMetadataError(problem);
      const cached = cache.get(clientId);
      if (cached) return cached;
      // Concurrent requests for one client share one fetch.
      let pending = inFlight.get(clientId);
      if (!pending) {
        pending = load(clientId).finally(() => inFlight.delete(clientId));
        inFlight.set(clientId, pending);
      }
      return pending;
    },
  };
}
