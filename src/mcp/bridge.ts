import { Readable } from 'node:stream';
import type { ReadableStream as NodeReadableStream } from 'node:stream/web';
import type { FastifyReply, FastifyRequest } from 'fastify';

/** Not forwarded to the SDK: connection-level headers, and the length of a body it never reads. */
const SKIPPED_REQUEST_HEADERS = new Set([
  'connection',
  'content-length',
  'host',
  'keep-alive',
  'transfer-encoding',
  'upgrade',
]);
/** Not copied onto the reply: Fastify and Node frame the body themselves. */
const SKIPPED_RESPONSE_HEADERS = new Set(['connection', 'content-length', 'transfer-encoding']);

/**
 * The web-standard view of a Fastify request for the SDK. The body is not copied:
 * Fastify already parsed it, and the SDK takes it as `parsedBody`. The signal
 * aborts when the client goes away before the reply is complete.
 */
export function toWebRequest(request: FastifyRequest, reply: FastifyReply, baseUrl: string): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(request.headers)) {
    if (value === undefined || SKIPPED_REQUEST_HEADERS.has(name)) continue;
    if (Array.isArray(value)) for (const item of value) headers.append(name, item);
    else headers.set(name, value);
  }
  const aborted = new AbortController();
  reply.raw.once('close', () => {
    if (!reply.raw.writableFinished) aborted.abort();
  });
  return new Request(new URL(request.url, baseUrl), {
    method: request.method,
    headers,
    signal: aborted.signal,
  });
}

/** Sends an SDK answer through Fastify: status, headers, then the body (streamed for SSE). */
export async function sendWebResponse(
  reply: FastifyReply,
  response: Response,
  extraHeaders: Record<string, string> = {},
): Promise<FastifyReply> {
  reply.code(response.status);
  response.headers.forEach((value, name) => {
    if (!SKIPPED_RESPONSE_HEADERS.has(name)) reply.header(name, value);
  });
  for (const [name, value] of Object.entries(extraHeaders)) reply.header(name, value);
  if (response.body === null) return reply.send();
  if (response.headers.get('content-type')?.startsWith('text/event-stream')) {
    return reply.send(Readable.fromWeb(response.body as NodeReadableStream<Uint8Array>));
  }
  return reply.send(Buffer.from(await response.arrayBuffer()));
}

/** A JSON-RPC error answer of the transport itself (session and method errors), as the SDK words them. */
export function jsonRpcError(
  reply: FastifyReply,
  status: number,
  code: number,
  message: string,
  headers: Record<string, string> = {},
): FastifyReply {
  reply.code(status).header('content-type', 'application/json');
  for (const [name, value] of Object.entries(headers)) reply.header(name, value);
  return reply.send(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }));
}
