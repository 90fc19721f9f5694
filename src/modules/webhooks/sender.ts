import http from 'node:http';
import https from 'node:https';
import { Webhook } from 'standardwebhooks';
import { ipLiteralOf, isPublicAddress, publicOnlyLookup } from '../../lib/public-address.js';
import { inClientSpan } from '../../lib/tracing.js';

/** Bounds of one delivery attempt (issue 24). */
export const SEND_TIMEOUT_MS = 10_000;
export const RESPONSE_MAX_BYTES = 64 * 1024;
/** What of a receiver's answer the delivery log keeps. */
const ERROR_BODY_CHARS = 200;

export interface SendOutcome {
  ok: boolean;
  statusCode: number | null;
  /** Why it failed, for the delivery log (null on success); never the secret or headers. */
  error: string | null;
}

export interface SignedRequest {
  url: string;
  /** The event id: the `webhook-id` header, the same on every attempt. */
  messageId: string;
  secret: string;
  body: string;
  /** The attempt's time: the `webhook-timestamp` header and part of what is signed. */
  at: Date;
}

class Refused extends Error {}

/**
 * Connections kept open between attempts (a receiver gets many events): a socket is only
 * ever connected to an address the guard let through when it was made, so reusing it keeps
 * the guard (one pool per guard setting, so a socket the lax one opened is never reused
 * under the strict one). Idle sockets close after 30 s; at most 50 per receiver at once.
 */
const agentOptions = { keepAlive: true, maxSockets: 50, maxFreeSockets: 50, timeout: 30_000 };
const pools = [false, true].map(() => ({
  'http:': new http.Agent(agentOptions),
  'https:': new https.Agent(agentOptions),
}));
const agentFor = (protocol: string, allowPrivate: boolean) =>
  pools[allowPrivate ? 1 : 0]![protocol === 'https:' ? 'https:' : 'http:'];

/** Standard Webhooks headers for one attempt: `v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<body>">`. */
export function signatureHeaders(request: Omit<SignedRequest, 'url'>): Record<string, string> {
  return {
    'webhook-id': request.messageId,
    'webhook-timestamp': String(Math.floor(request.at.getTime() / 1000)),
    'webhook-signature': new Webhook(request.secret).sign(request.messageId, request.at, request.body),
  };
}

/** A receiver's answer as an outcome: a 2xx succeeds; a redirect or another status fails. */
function answerOutcome(status: number, text: string): SendOutcome {
  if (status >= 200 && status < 300) return { ok: true, statusCode: status, error: null };
  if (status >= 300 && status < 400)
    return { ok: false, statusCode: status, error: `HTTP ${status}: redirects are not followed` };
  return {
    ok: false,
    statusCode: status,
    error: `HTTP ${status}${text ? `: ${text.slice(0, ERROR_BODY_CHARS)}` : ''}`,
  };
}

/**
 * Reads an answer to at most RESPONSE_MAX_BYTES (keeping its start for the log), then
 * settles with its outcome and drops the rest.
 */
function readAnswer(
  response: http.IncomingMessage,
  resolve: (outcome: SendOutcome) => void,
  reject: (error: unknown) => void,
): void {
  const status = response.statusCode ?? 0;
  const chunks: Buffer[] = [];
  let size = 0;
  const settle = () => resolve(answerOutcome(status, Buffer.concat(chunks).toString('utf8')));
  response.on('data', (chunk: Buffer) => {
    if (size < ERROR_BODY_CHARS * 4) chunks.push(chunk);
    size += chunk.length;
    // Enough: the status decides; the rest is never read (memory stays bounded).
    if (size >= RESPONSE_MAX_BYTES) {
      settle();
      response.destroy();
    }
  });
  response.on('end', settle);
  response.on('error', reject);
  response.on('aborted', () => reject(new Error('aborted')));
}

/** The signed POST itself, over a pooled connection to an address the guard let through. */
function post(
  url: URL,
  request: SignedRequest,
  allowPrivate: boolean,
  signal: AbortSignal,
  traceHeaders: Record<string, string> | undefined,
): Promise<SendOutcome> {
  return new Promise<SendOutcome>((resolve, reject) => {
    const client = url.protocol === 'https:' ? https : http;
    const outgoing = client.request(
      url,
      {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'user-agent': 'reservation-service-webhooks',
          'content-length': Buffer.byteLength(request.body),
          ...signatureHeaders(request),
          ...traceHeaders,
        },
        lookup: publicOnlyLookup(allowPrivate, (cause) =>
          Object.assign(new Refused('the endpoint does not resolve to a public address'), { cause }),
        ),
        agent: agentFor(url.protocol, allowPrivate),
        signal,
      },
      (response) => readAnswer(response, resolve, reject),
    );
    outgoing.on('error', reject);
    outgoing.end(request.body);
  });
}

/**
 * POSTs one signed event. A 2xx answer within the timeout succeeds; a redirect is not
 * followed (it fails); the answer is read to at most 64 KiB, then the connection is
 * dropped; the connection goes only to an address the guard checked (unless
 * `allowPrivate`). Never throws: every failure is an outcome.
 */
export async function sendSigned(
  request: SignedRequest,
  options: { allowPrivate: boolean; timeoutMs?: number },
): Promise<SendOutcome> {
  const timeoutMs = options.timeoutMs ?? SEND_TIMEOUT_MS;
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), timeoutMs);
  try {
    const url = new URL(request.url);
    const literal = ipLiteralOf(url);
    if (literal && !options.allowPrivate && !isPublicAddress(literal))
      return { ok: false, statusCode: null, error: 'the endpoint is not on a public address' };
    // A client span (while tracing runs) whose `traceparent` the receiver gets; the event id
    // names the delivery, never the URL, whose path may be the receiver's secret.
    return await inClientSpan(
      { method: 'POST', url, attributes: { 'webhook.event_id': request.messageId } },
      (traceHeaders) => post(url, request, options.allowPrivate, controller.signal, traceHeaders),
      (outcome) => outcome.statusCode,
    );
  } catch (error) {
    if (controller.signal.aborted)
      return { ok: false, statusCode: null, error: `no answer within ${timeoutMs / 1000} s` };
    if (error instanceof Refused) return { ok: false, statusCode: null, error: error.message };
    const code = (error as { code?: unknown }).code;
    // The socket error's code only (ECONNREFUSED, ECONNRESET...): no addresses echoed.
    return {
      ok: false,
      statusCode: null,
      error: typeof code === 'string' ? `connection failed (${code})` : 'connection failed',
    };
  } finally {
    clearTimeout(timer);
  }
}
