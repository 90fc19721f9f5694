// HTTP plumbing shared by the calendar provider emulators: a bounded server,
// reply helpers, failure injection, a request log and outgoing webhook calls.
import { createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { AddressInfo } from 'node:net';
import { Ring } from './store.js';

export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;

export interface RecordedRequest {
  /** ISO time the call arrived. */
  at: string;
  /** `api` for calendar API calls, `oauth` for the authorization server (authorize, token, revoke). */
  kind: 'api' | 'oauth';
  method: string;
  /** Path without the query string, percent-decoding left as sent. */
  path: string;
  query: Record<string, string>;
  /** Status answered; null while unanswered (or never, for `hang`). */
  status: number | null;
  /** The account the access token belongs to, when it was valid. */
  account: string | null;
  /** The `If-Match` header, when sent. */
  ifMatch: string | null;
}

export type BehaviourMode = 'normal' | 'fail' | 'hang' | 'throttle';
export type BehaviourTarget = 'api' | 'oauth' | 'all';

export interface BehaviourOptions {
  /** How many calls misbehave before the emulator is normal again; every call when omitted. */
  times?: number;
  /** Which calls misbehave: API calls (default), the OAuth endpoints, or both. */
  target?: BehaviourTarget;
}

/** Failure injection: `fail` answers 503, `throttle` 429, `hang` never answers. */
export class Behaviour {
  private mode: BehaviourMode = 'normal';
  private remaining = Number.POSITIVE_INFINITY;
  private target: BehaviourTarget = 'api';

  set(mode: BehaviourMode, options: BehaviourOptions = {}): void {
    if (!['normal', 'fail', 'hang', 'throttle'].includes(mode)) throw new Error(`Unknown behaviour: ${mode}`);
    this.mode = mode;
    this.remaining =
      mode === 'normal' ? Number.POSITIVE_INFINITY : (options.times ?? Number.POSITIVE_INFINITY);
    this.target = options.target ?? 'api';
  }

  /** The mode this call gets (consuming one of `times`). */
  take(kind: 'api' | 'oauth'): BehaviourMode {
    if (this.mode === 'normal' || this.remaining <= 0) return 'normal';
    if (this.target !== 'all' && this.target !== kind) return 'normal';
    const mode = this.mode;
    this.remaining -= 1;
    if (this.remaining <= 0) this.set('normal');
    return mode;
  }
}

export class RequestLog {
  private readonly ring = new Ring<RecordedRequest>(10_000);

  record(
    kind: 'api' | 'oauth',
    request: IncomingMessage,
    url: URL,
    response: ServerResponse,
  ): RecordedRequest {
    const entry: RecordedRequest = {
      at: new Date().toISOString(),
      kind,
      method: request.method ?? 'GET',
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      status: null,
      account: null,
      ifMatch: header(request, 'if-match'),
    };
    this.ring.push(entry);
    response.once('finish', () => {
      entry.status = response.statusCode;
    });
    return entry;
  }

  list(): RecordedRequest[] {
    return this.ring.list().map((entry) => ({ ...entry, query: { ...entry.query } }));
  }

  clear(): void {
    this.ring.clear();
  }
}

export interface Exchange {
  request: IncomingMessage;
  response: ServerResponse;
  method: string;
  url: URL;
  /** Decoded path segments. */
  segments: string[];
  body: Buffer;
}

export function header(request: IncomingMessage, name: string): string | null {
  const value = request.headers[name];
  if (Array.isArray(value)) return value[0] ?? null;
  return typeof value === 'string' && value !== '' ? value : null;
}

export function sendJson(
  response: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
  contentType = 'application/json; charset=UTF-8',
): void {
  if (response.headersSent) return;
  const text = JSON.stringify(body);
  response.writeHead(status, {
    'content-type': contentType,
    'content-length': String(Buffer.byteLength(text)),
    'cache-control': 'no-cache, no-store, max-age=0, must-revalidate',
    ...headers,
  });
  response.end(text);
}

export function sendEmpty(
  response: ServerResponse,
  status: number,
  headers: Record<string, string> = {},
): void {
  if (response.headersSent) return;
  response.writeHead(status, headers);
  response.end();
}

export function redirect(response: ServerResponse, location: string): void {
  if (response.headersSent) return;
  response.writeHead(302, { location, 'cache-control': 'no-store' });
  response.end();
}

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** An HTML error page, as providers show when they cannot redirect back. */
export function htmlPage(response: ServerResponse, status: number, title: string, text: string): void {
  if (response.headersSent) return;
  response.writeHead(status, { 'content-type': 'text/html; charset=utf-8' });
  response.end(
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title></head>` +
      `<body><h1>${escapeHtml(title)}</h1><p>${escapeHtml(text)}</p></body></html>`,
  );
}

/** Parses a JSON object body; undefined when it is not one. */
export function jsonObject(body: Buffer): Record<string, unknown> | undefined {
  if (body.length === 0) return {};
  try {
    const value = JSON.parse(body.toString('utf8')) as unknown;
    return value && typeof value === 'object' && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/** Form parameters of a body (`application/x-www-form-urlencoded`). */
export function formOf(body: Buffer): URLSearchParams {
  return new URLSearchParams(body.toString('utf8'));
}

/** Splits a path into decoded segments; null when a segment cannot be decoded. */
function segmentsOf(pathname: string): string[] | null {
  try {
    return pathname
      .split('/')
      .slice(1)
      .map((segment) => decodeURIComponent(segment));
  } catch {
    return null;
  }
}

export interface StartedServer {
  url: string;
  close(): Promise<void>;
}

/** Listens with a body limit, then hands every complete request to `handle`. */
export async function startServer(
  options: { port?: number; host?: string; maxBodyBytes?: number },
  handle: (exchange: Exchange) => Promise<void> | void,
  onTooLarge: (response: ServerResponse) => void,
): Promise<StartedServer> {
  const maxBody = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const server = createServer((request, response) => {
    const declared = Number(request.headers['content-length'] ?? 0);
    if (declared > maxBody) {
      onTooLarge(response);
      request.resume();
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    let aborted = false;
    request.on('data', (chunk: Buffer) => {
      if (aborted) return;
      size += chunk.length;
      if (size > maxBody) {
        aborted = true;
        onTooLarge(response);
        request.resume();
        return;
      }
      chunks.push(chunk);
    });
    request.on('end', () => {
      if (aborted) return;
      const url = new URL(request.url ?? '/', 'http://emulator');
      const segments = segmentsOf(url.pathname);
      if (!segments) {
        htmlPage(response, 400, 'Bad Request', 'The path is not valid percent-encoding.');
        return;
      }
      const exchange: Exchange = {
        request,
        response,
        method: request.method ?? 'GET',
        url,
        segments,
        body: Buffer.concat(chunks),
      };
      Promise.resolve()
        .then(() => handle(exchange))
        .catch((error: unknown) => {
          if (!response.headersSent)
            sendJson(response, 500, { error: { code: 500, message: `Emulator error: ${String(error)}` } });
        });
    });
  });
  server.headersTimeout = 30_000;
  server.requestTimeout = 60_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => resolve());
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: `http://${host}:${address.port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

export interface DeliveryResult {
  status: number | null;
  contentType: string | null;
  body: string;
  error: string | null;
}

const MAX_REPLY_BYTES = 64 * 1024;

/** POSTs to a webhook without keep-alive and without following redirects. */
export function post(
  target: string,
  options: { headers?: Record<string, string>; body?: string; timeoutMs: number },
): Promise<DeliveryResult> {
  return new Promise((resolve) => {
    let url: URL;
    try {
      url = new URL(target);
    } catch {
      resolve({ status: null, contentType: null, body: '', error: 'invalid URL' });
      return;
    }
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    const body = options.body ?? '';
    const started = send(
      url,
      {
        method: 'POST',
        agent: false,
        headers: {
          'content-length': String(Buffer.byteLength(body)),
          'user-agent': 'calendar-provider-emulator',
          connection: 'close',
          ...options.headers,
        },
        timeout: options.timeoutMs,
      },
      (reply) => {
        const chunks: Buffer[] = [];
        let size = 0;
        reply.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size <= MAX_REPLY_BYTES) chunks.push(chunk);
        });
        reply.on('end', () => {
          clearTimeout(timer);
          resolve({
            status: reply.statusCode ?? null,
            contentType:
              typeof reply.headers['content-type'] === 'string' ? reply.headers['content-type'] : null,
            body: Buffer.concat(chunks).toString('utf8'),
            error: null,
          });
        });
        reply.on('error', (error) => {
          clearTimeout(timer);
          resolve({ status: reply.statusCode ?? null, contentType: null, body: '', error: error.message });
        });
      },
    );
    const timer = setTimeout(() => started.destroy(new Error('timeout')), options.timeoutMs);
    started.on('timeout', () => started.destroy(new Error('timeout')));
    started.on('error', (error) => {
      clearTimeout(timer);
      resolve({ status: null, contentType: null, body: '', error: error.message });
    });
    started.end(body);
  });
}

/** Whether `value` is an absolute http(s) URL. */
export function isHttpUrl(value: unknown): value is string {
  if (typeof value !== 'string' || value.length > 2048) return false;
  try {
    const url = new URL(value);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hash === '';
  } catch {
    return false;
  }
}

/** The credentials of a token request: HTTP Basic (RFC 6749 2.3.1) or body parameters. */
export function clientCredentials(
  request: IncomingMessage,
  form: URLSearchParams,
): { clientId: string | null; clientSecret: string | null; error: string | null } {
  const authorization = header(request, 'authorization');
  if (authorization?.toLowerCase().startsWith('basic ')) {
    const decoded = Buffer.from(authorization.slice(6).trim(), 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon < 0) return { clientId: null, clientSecret: null, error: 'malformed Basic credentials' };
    let clientId: string;
    let clientSecret: string;
    try {
      clientId = decodeURIComponent(decoded.slice(0, colon).replace(/\+/g, ' '));
      clientSecret = decodeURIComponent(decoded.slice(colon + 1).replace(/\+/g, ' '));
    } catch {
      return { clientId: null, clientSecret: null, error: 'malformed Basic credentials' };
    }
    const bodyId = form.get('client_id');
    if (bodyId && bodyId !== clientId)
      return { clientId: null, clientSecret: null, error: 'client_id differs from the Basic credentials' };
    return { clientId, clientSecret, error: null };
  }
  return { clientId: form.get('client_id'), clientSecret: form.get('client_secret'), error: null };
}

/** The admin controls both calendar emulators offer under the same paths. */
export interface CommonAdminControls {
  requests(): unknown;
  clearRequests(): void;
  notifications(): unknown;
  expireSyncTokens(): void;
  revokeGrants(account?: string): unknown;
  expireAccessTokens(account?: string): unknown;
  setBehaviour(mode: BehaviourMode, options: BehaviourOptions): void;
  reset(): void;
}

/**
 * Answers the admin paths the two emulators share (`requests`, `notifications`,
 * `expire-sync-tokens`, `revoke-grants`, `expire-access-tokens`, `behaviour`,
 * `reset`); false when `path` is none of them, for the emulator's own routes.
 */
export function commonAdminRoute(
  exchange: Exchange,
  path: string,
  controls: CommonAdminControls,
  input: () => Record<string, unknown>,
  invalid: (message: string) => Error,
): boolean {
  const { method, response } = exchange;
  const ok = (body: unknown) => sendJson(response, 200, body);
  const account = () => {
    const value = input().account;
    return typeof value === 'string' ? value : undefined;
  };
  const route = `${method} ${path}`;
  switch (route) {
    case 'GET requests':
      ok(controls.requests());
      return true;
    case 'DELETE requests':
      controls.clearRequests();
      sendEmpty(response, 204);
      return true;
    case 'GET notifications':
      ok(controls.notifications());
      return true;
    case 'POST expire-sync-tokens':
      controls.expireSyncTokens();
      ok({ ok: true });
      return true;
    case 'POST revoke-grants':
      ok({ revoked: controls.revokeGrants(account()) });
      return true;
    case 'POST expire-access-tokens':
      ok({ expired: controls.expireAccessTokens(account()) });
      return true;
    case 'POST behaviour': {
      const body = input();
      const mode = body.mode as BehaviourMode;
      if (!['normal', 'fail', 'hang', 'throttle'].includes(mode))
        throw invalid('mode must be normal, fail, hang or throttle');
      controls.setBehaviour(mode, {
        times: typeof body.times === 'number' ? body.times : undefined,
        target: ['api', 'oauth', 'all'].includes(body.target as string)
          ? (body.target as BehaviourTarget)
          : undefined,
      });
      ok({ mode });
      return true;
    }
    case 'POST reset':
      controls.reset();
      ok({ ok: true });
      return true;
    default:
      return false;
  }
}
