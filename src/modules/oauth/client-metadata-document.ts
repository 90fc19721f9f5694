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
 * The rules of a Client ID Metadata Document (draft-ietf-oauth-client-id-metadata-document):
 * which client ids name one, the shape of such an id, and what the document may say.
 */

export class ClientMetadataError extends Error {}

export interface ClientMetadata {
  clientId: string;
  clientName: string;
  logoUrl: string | null;
  homepageUrl: string | null;
  redirectUris: string[];
}

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

const isStringArray = (value: unknown): value is string[] =>
  Array.isArray(value) && value.every((item) => typeof item === 'string');

/** The document as a JSON object, or why not. */
function documentObject(text: string): Record<string, unknown> {
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch {
    throw new ClientMetadataError('the document is not valid JSON');
  }
  if (typeof document !== 'object' || document === null || Array.isArray(document))
    throw new ClientMetadataError('the document must be a JSON object');
  return document as Record<string, unknown>;
}

/** A public client of the authorization code flow: no secret, no other grant or response type. */
function assertPublicCodeClient(doc: Record<string, unknown>): void {
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
}

function redirectUrisOf(doc: Record<string, unknown>): string[] {
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
  return doc.redirect_uris;
}

/** client_name, or the host of the client id when the document gives none. */
function clientNameOf(doc: Record<string, unknown>, clientId: string): string {
  const host = new URL(clientId).host;
  if (doc.client_name === undefined) return host;
  if (
    typeof doc.client_name !== 'string' ||
    !doc.client_name.trim() ||
    doc.client_name.length > CLIENT_NAME_MAX
  )
    throw new ClientMetadataError(`client_name must be a string of 1 to ${CLIENT_NAME_MAX} characters`);
  return doc.client_name.trim();
}

function displayUrlOf(doc: Record<string, unknown>, name: 'logo_uri' | 'client_uri'): string | null {
  const value = doc[name];
  if (value === undefined) return null;
  if (typeof value !== 'string' || displayUrlProblem(value))
    throw new ClientMetadataError(`${name} must be an absolute http(s) URL`);
  return value;
}

/** The document's rules (the draft's sections 4.1 and 6): the client as registered, or why not. */
export function parseClientMetadataDocument(clientId: string, text: string): ClientMetadata {
  const doc = documentObject(text);
  if (doc.client_id !== clientId)
    throw new ClientMetadataError('the document client_id must equal the URL it is served at');
  assertPublicCodeClient(doc);
  const redirectUris = redirectUrisOf(doc);
  const clientName = clientNameOf(doc, clientId);
  return {
    clientId,
    clientName,
    logoUrl: displayUrlOf(doc, 'logo_uri'),
    homepageUrl: displayUrlOf(doc, 'client_uri'),
    redirectUris: [...redirectUris],
  };
}
