import http from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import { BoundedCache } from '../../lib/bounded-cache.js';
import { isPublicAddress, publicOnlyLookup } from '../../lib/public-address.js';
import {
  CLIENT_ID_MAX,
  CLIENT_NAME_MAX,
  displayUrlProblem,
  GRANT_TYPES,
  isLoopbackHttpUrl,
  REDIRECT_URIS_MAX,
  RESPONSE_TYPE,
  redirectUriProblem,
} from './rules.js';

/**
 * Client ID Metadata Documents (draft-ietf-oauth-client-id-metadata-document): a
 * client_id that is an `https://` URL names a JSON document, served there, that
 * describes the client. We fetch it with every bound a server-side fetch of a
 * caller-chosen URL needs (time, size, no redirect off the origin, no private
 * address: the address checked is the address connected to), check it, and cache
 * it as its Cache-Control allows, within bounds.
 */

export class ClientMetadataError extends Error {}

/**
 * Every failure to reach the document by name, alike: an unknown name, a name that
 * resolves only to non-public addresses, a refused or reset connection. Saying which
 * (or echoing an address or a socket error) would let anyone map internal names and
 * hosts through this server (DECISIONS.md: error pages never echo resolution or
 * network details). The cause stays on the error for the server's own log.
 */
const unreachable = (cause?: unknown) =>
  new ClientMetadataError('the document could not be fetched', cause === undefined ? {} : { cause });

export interface ClientMetadata {
  clientId: string;
  clientName: string;
  logoUrl: string | null;
  homepageUrl: string | null;
  redirectUris: string[];
}

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

const DEFAULTS = {
  timeoutMs: 5_000,
  maxBytes: 64 * 1024,
  defaultCacheSeconds: 300,
  maxCacheSeconds: 86_400,
  cacheEntries: 1_000,
};
/** Redirects followed, and only within the document's origin. */
const MAX_REDIRECTS = 3;

/**
 * Whether a client_id is meant as a metadata document URL: `https://...`, or in tests
 * (allowPrivate) also `http://localhost` / `http://127.0.0.1`. Registered client ids are
 * never URLs, so the two kinds cannot be confused.
 */
export function isClientMetadataUrl(clientId: string, allowPrivate: boolean): boolean {
  if (clientId.startsWith('https://')) return true;
  if (!allowPrivate || !clientId.startsWith('http://')) return false;
  try {
    return isLoopbackHttpUrl(new URL(clientId));
  } catch {
    return false;
  }
}

/** The shape rules of a client_id URL (the draft's section 3): what is wrong, or null. */
export function clientIdUrlProblem(clientId: string, allowPrivate: boolean): string | null {
  if (clientId.length > CLIENT_ID_MAX) return `client_id must be at most ${CLIENT_ID_MAX} characters`;
  let url: URL;
  try {
    url = new URL(clientId);
  } catch {
    return 'client_id is not a valid URL';
  }
  if (url.protocol !== 'https:' && !(allowPrivate && isLoopbackHttpUrl(url)))
    return 'a client_id URL must use the https scheme';
  if (url.username || url.password) return 'a client_id URL must not contain user information';
  if (clientId.includes('#')) return 'a client_id URL must not contain a fragment';
  if (url.search || clientId.includes('?')) return 'a client_id URL must not contain a query';
  if (url.pathname === '/' || url.pathname === '') return 'a client_id URL must contain a path';
  const rawPath = clientId.slice(clientId.indexOf('/', url.protocol.length + 2));
  if (rawPath.split('/').some((segment) => segment === '.' || segment === '..'))
    return 'a client_id URL must not contain dot path segments';
  return null;
}

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

interface FetchedDocument {
  text: string;
  cacheControl: string | undefined;
}

/** DNS resolution that refuses any non-public answer, so the socket connects only to a checked address. */
/** The address guard lives in src/lib (webhook delivery shares it); re-exported for its callers here. */
export { isPublicAddress };

const guardedLookup = (allowPrivate: boolean) => publicOnlyLookup(allowPrivate, unreachable);

function assertHostAllowed(url: URL, allowPrivate: boolean) {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  // Node connects to an IP literal without calling lookup: check it here.
  if (isIP(host) && !allowPrivate && !isPublicAddress(host))
    throw new ClientMetadataError('the client_id host is not a public address');
}

function requestOnce(
  url: URL,
  options: typeof DEFAULTS & { allowPrivate: boolean },
  signal: AbortSignal,
): Promise<{ status: number; location: string | undefined; body: FetchedDocument }> {
  assertHostAllowed(url, options.allowPrivate);
  const client = url.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const request = client.request(
      url,
      {
        method: 'GET',
        headers: { accept: 'application/json', 'user-agent': 'reservation-service-oauth' },
        lookup: guardedLookup(options.allowPrivate),
        agent: false,
        signal,
      },
      (response) => {
        const status = response.statusCode ?? 0;
        const location = response.headers.location;
        if (status >= 300 && status < 400) {
          response.resume();
          resolve({ status, location, body: { text: '', cacheControl: undefined } });
          return;
        }
        const declared = Number(response.headers['content-length'] ?? 0);
        if (declared > options.maxBytes) {
          response.destroy();
          reject(new ClientMetadataError(`the document is larger than ${options.maxBytes} bytes`));
          return;
        }
        const chunks: Buffer[] = [];
        let size = 0;
        response.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > options.maxBytes) {
            response.destroy();
            reject(new ClientMetadataError(`the document is larger than ${options.maxBytes} bytes`));
            return;
          }
          chunks.push(chunk);
        });
        response.on('error', reject);
        response.on('end', () => {
          const contentType = String(response.headers['content-type'] ?? '')
            .split(';')[0]!
            .trim()
            .toLowerCase();
          if (status !== 200) {
            reject(new ClientMetadataError(`fetching the document answered HTTP ${status}`));
          } else if (contentType !== 'application/json' && !contentType.endsWith('+json')) {
            reject(new ClientMetadataError('the document must be served as application/json'));
          } else {
            resolve({
              status,
              location,
              body: {
                text: Buffer.concat(chunks).toString('utf8'),
                cacheControl: response.headers['cache-control'],
              },
            });
          }
        });
      },
    );
    request.on('error', reject);
    request.end();
  });
}

async function fetchDocument(
  clientId: string,
  options: typeof DEFAULTS & { allowPrivate: boolean },
): Promise<FetchedDocument> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), options.timeoutMs);
  try {
    let url = new URL(clientId);
    for (let hop = 0; ; hop++) {
      const answer = await requestOnce(url, options, controller.signal);
      if (answer.status < 300 || answer.status >= 400) return answer.body;
      if (!answer.location || hop >= MAX_REDIRECTS)
        throw new ClientMetadataError(`fetching the document answered HTTP ${answer.status}`);
      const next = new URL(answer.location, url);
      if (next.origin !== url.origin)
        throw new ClientMetadataError('the document redirects to another origin, which is not followed');
      url = next;
    }
  } catch (error) {
    if (error instanceof ClientMetadataError) throw error;
    if (controller.signal.aborted)
      throw new ClientMetadataError(`fetching the document took longer than ${options.timeoutMs} ms`);
    throw unreachable(error);
  } finally {
    clearTimeout(timer);
  }
}

const isStringArray = (value: unknown): value is string[] =>
  Array.isArray(value) && value.every((item) => typeof item === 'string');

/** The document's rules (the draft's sections 4.1 and 6): the client as registered, or why not. */
export function parseClientMetadataDocument(clientId: string, text: string): ClientMetadata {
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch {
    throw new ClientMetadataError('the document is not valid JSON');
  }
  if (typeof document !== 'object' || document === null || Array.isArray(document))
    throw new ClientMetadataError('the document must be a JSON object');
  const doc = document as Record<string, unknown>;
  if (doc.client_id !== clientId)
    throw new ClientMetadataError('the document client_id must equal the URL it is served at');
  if (doc.client_secret !== undefined || doc.client_secret_expires_at !== undefined)
    throw new ClientMetadataError('the document must not contain a client secret');
  if (doc.token_endpoint_auth_method !== undefined && doc.token_endpoint_auth_method !== 'none')
    throw new ClientMetadataError(
      'token_endpoint_auth_method must be none: only public clients are supported',
    );
  if (doc.grant_types !== undefined) {
    if (
      !isStringArray(doc.grant_types) ||
      doc.grant_types.some((g) => !(GRANT_TYPES as readonly string[]).includes(g))
    )
      throw new ClientMetadataError(`grant_types may only contain ${GRANT_TYPES.join(', ')}`);
    if (!doc.grant_types.includes('authorization_code'))
      throw new ClientMetadataError('grant_types must include authorization_code (RFC 7591 §2.1)');
  }
  if (
    doc.response_types !== undefined &&
    (!isStringArray(doc.response_types) || doc.response_types.some((r) => r !== RESPONSE_TYPE))
  )
    throw new ClientMetadataError('response_types may only contain code');
  if (
    !isStringArray(doc.redirect_uris) ||
    doc.redirect_uris.length < 1 ||
    doc.redirect_uris.length > REDIRECT_URIS_MAX
  )
    throw new ClientMetadataError(`redirect_uris must be an array of 1 to ${REDIRECT_URIS_MAX} URIs`);
  for (const uri of doc.redirect_uris) {
    const problem = redirectUriProblem(uri);
    if (problem) throw new ClientMetadataError(`redirect_uris: ${uri} ${problem}`);
  }
  let clientName = new URL(clientId).host;
  if (doc.client_name !== undefined) {
    if (
      typeof doc.client_name !== 'string' ||
      !doc.client_name.trim() ||
      doc.client_name.length > CLIENT_NAME_MAX
    )
      throw new ClientMetadataError(`client_name must be a string of 1 to ${CLIENT_NAME_MAX} characters`);
    clientName = doc.client_name.trim();
  }
  const displayUrl = (name: 'logo_uri' | 'client_uri'): string | null => {
    const value = doc[name];
    if (value === undefined) return null;
    if (typeof value !== 'string' || displayUrlProblem(value))
      throw new ClientMetadataError(`${name} must be an absolute http(s) URL`);
    return value;
  };
  return {
    clientId,
    clientName,
    logoUrl: displayUrl('logo_uri'),
    homepageUrl: displayUrl('client_uri'),
    redirectUris: [...doc.redirect_uris],
  };
}

export type ClientMetadataResolver = ReturnType<typeof createClientMetadataResolver>;

export function createClientMetadataResolver(input: ClientMetadataResolverOptions) {
  const options = { ...DEFAULTS, ...input };
  const cache = new BoundedCache<string, ClientMetadata>(options.cacheEntries);
  const inFlight = new Map<string, Promise<ClientMetadata>>();

  async function load(clientId: string): Promise<ClientMetadata> {
    const fetched = await fetchDocument(clientId, options);
    const metadata = parseClientMetadataDocument(clientId, fetched.text);
    const seconds = cacheSeconds(fetched.cacheControl, options);
    if (seconds > 0) cache.set(clientId, metadata, Date.now() + seconds * 1000);
    return metadata;
  }

  return {
    /** The client the document at `clientId` describes; throws ClientMetadataError saying why not. */
    async resolve(clientId: string): Promise<ClientMetadata> {
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
