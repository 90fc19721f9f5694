import type { IncomingMessage } from 'node:http';
import http from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import { isPublicAddress, publicOnlyLookup } from '../../lib/public-address.js';
import { ClientMetadataError } from './client-metadata-document.js';

/**
 * The fetch of a Client ID Metadata Document, with every bound a server-side fetch of a
 * caller-chosen URL needs: time, size, no redirect off the origin, no private address (the
 * address checked is the address connected to).
 */

export interface FetchLimits {
  /** Tests only (OAUTH_CIMD_ALLOW_PRIVATE): loopback/private addresses and `http://` loopback ids. */
  allowPrivate: boolean;
  timeoutMs: number;
  maxBytes: number;
}

export interface FetchedDocument {
  text: string;
  cacheControl: string | undefined;
}

interface Answer {
  status: number;
  location: string | undefined;
  body: FetchedDocument;
}

/** Redirects followed, and only within the document's origin. */
const MAX_REDIRECTS = 3;

/**
 * Every failure to reach the document by name, alike: an unknown name, a name that
 * resolves only to non-public addresses, a refused or reset connection. Saying which
 * (or echoing an address or a socket error) would let anyone map internal names and
 * hosts through this server (DECISIONS.md: error pages never echo resolution or
 * network details). The cause stays on the error for the server's own log.
 */
const unreachable = (cause?: unknown) =>
  new ClientMetadataError('the document could not be fetched', cause === undefined ? {} : { cause });

/** DNS resolution that refuses any non-public answer, so the socket connects only to a checked address. */
const guardedLookup = (allowPrivate: boolean) => publicOnlyLookup(allowPrivate, unreachable);

function assertHostAllowed(url: URL, allowPrivate: boolean) {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  // Node connects to an IP literal without calling lookup: check it here.
  if (isIP(host) && !allowPrivate && !isPublicAddress(host))
    throw new ClientMetadataError('the client_id host is not a public address');
}

/** Reads a non-redirect answer: a JSON body of at most `maxBytes`, served with 200. */
function receive(
  response: IncomingMessage,
  maxBytes: number,
  resolve: (answer: Answer) => void,
  reject: (error: unknown) => void,
) {
  const status = response.statusCode ?? 0;
  const declared = Number(response.headers['content-length'] ?? 0);
  if (declared > maxBytes) {
    response.destroy();
    reject(new ClientMetadataError(`the document is larger than ${maxBytes} bytes`));
    return;
  }
  const chunks: Buffer[] = [];
  let size = 0;
  response.on('data', (chunk: Buffer) => {
    size += chunk.length;
    if (size > maxBytes) {
      response.destroy();
      reject(new ClientMetadataError(`the document is larger than ${maxBytes} bytes`));
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
      const text = Buffer.concat(chunks).toString('utf8');
      const body = { text, cacheControl: response.headers['cache-control'] };
      resolve({ status, location: response.headers.location, body });
    }
  });
}

function requestOnce(url: URL, limits: FetchLimits, signal: AbortSignal): Promise<Answer> {
  assertHostAllowed(url, limits.allowPrivate);
  const client = url.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const request = client.request(
      url,
      {
        method: 'GET',
        headers: { accept: 'application/json', 'user-agent': 'reservation-service-oauth' },
        lookup: guardedLookup(limits.allowPrivate),
        agent: false,
        signal,
      },
      (response) => {
        const status = response.statusCode ?? 0;
        if (status >= 300 && status < 400) {
          response.resume();
          const location = response.headers.location;
          resolve({ status, location, body: { text: '', cacheControl: undefined } });
          return;
        }
        receive(response, limits.maxBytes, resolve, reject);
      },
    );
    request.on('error', reject);
    request.end();
  });
}

/** The document at `clientId`, following redirects within its origin; throws ClientMetadataError. */
export async function fetchClientMetadataDocument(
  clientId: string,
  limits: FetchLimits,
): Promise<FetchedDocument> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), limits.timeoutMs);
  try {
    let url = new URL(clientId);
    for (let hop = 0; ; hop++) {
      const answer = await requestOnce(url, limits, controller.signal);
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
      throw new ClientMetadataError(`fetching the document took longer than ${limits.timeoutMs} ms`);
    throw unreachable(error);
  } finally {
    clearTimeout(timer);
  }
}
