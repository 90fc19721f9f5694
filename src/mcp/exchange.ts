import {
  type AuthInfo,
  classifyInboundRequest,
  type InboundClassificationOutcome,
  isJsonContentType,
  type JSONRPCMessage,
  type JSONRPCRequest,
  type RequestId,
  type Transport,
} from '@modelcontextprotocol/server';

/** What the HTTP layer knows of a 2025-era POST before choosing how to serve it. */
export interface LegacyPost {
  body: unknown;
  contentType: string | undefined;
  accept: string | undefined;
  protocolVersion: string | undefined;
  mcpMethod: string | undefined;
  mcpName: string | undefined;
}

/** The SDK's era classification of a POST (the same call `isLegacyRequest` makes of it). */
export const classifyPost = (post: LegacyPost): InboundClassificationOutcome =>
  classifyInboundRequest({
    httpMethod: 'POST',
    body: post.body,
    protocolVersionHeader: post.protocolVersion,
    mcpMethodHeader: post.mcpMethod,
    mcpNameHeader: post.mcpName,
  });

/**
 * The request of a 2025-era session POST that is served as one JSON exchange, or undefined
 * when the SDK's streamable HTTP transport must serve it: a single JSON-RPC request (not
 * `initialize`, no 2026-07-28 envelope: `route`, the POST's classification, says so) that
 * passes every check that transport makes of such a POST (Accept, Content-Type, a supported
 * protocol version). Anything else, error answers included, keeps the SDK's own handling and
 * wording.
 */
export function singleExchangeRequest(
  post: LegacyPost,
  supportedVersions: readonly string[],
  route: InboundClassificationOutcome = classifyPost(post),
): JSONRPCRequest | undefined {
  // `no-claim` is only ever a single JSON-RPC request other than `initialize`.
  if (route.kind !== 'legacy' || route.reason !== 'no-claim') return undefined;
  const { accept } = post;
  if (!accept?.includes('application/json') || !accept.includes('text/event-stream')) return undefined;
  if (post.contentType === undefined || !isJsonContentType(post.contentType)) return undefined;
  if (post.protocolVersion !== undefined && !supportedVersions.includes(post.protocolVersion))
    return undefined;
  return post.body as JSONRPCRequest;
}

/**
 * An SDK `Transport` that serves JSON-RPC requests one exchange at a time, each answered as
 * JSON: for the common 2025-era call. The SDK's streamable HTTP transport would wrap each
 * exchange in a web `Request` and `Response` and read the answer back out of a stream, and
 * needs a server built and closed per request when sessions live in the database; together
 * that cost more than the tool call itself (docs/performance.md). One server on this
 * transport serves every agent: each request carries its agent in `authInfo`, and its id is
 * replaced by one of the transport's own while it runs, so two clients' equal ids never meet.
 * As the SDK's transport does in JSON mode, messages other than the answer (progress,
 * logging) have no channel here and are dropped.
 */
export class ExchangeTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: Transport['onmessage'];
  readonly #pending = new Map<number, { id: RequestId; answer: (message: JSONRPCMessage) => void }>();
  #nextId = 0;

  async start(): Promise<void> {}

  async send(message: JSONRPCMessage): Promise<void> {
    // The server's own message, already well formed: only its shape says whether it answers
    // (a request or notification has a method), no schema check needed.
    if ('method' in message || !('id' in message)) return;
    const pending = this.#pending.get(message.id as number);
    if (!pending) return;
    this.#pending.delete(message.id as number);
    pending.answer({ ...message, id: pending.id });
  }

  async close(): Promise<void> {
    this.#pending.clear();
    this.onclose?.();
  }

  /**
   * Hands the request to the connected server; resolves with its answer, under the request's
   * own id. `whenGone` is handed the cancel: called before the answer (the client left), the
   * server is told the request is cancelled (its handler's signal aborts: a waiting
   * `tasks/result` stops reading) and the exchange answers the cancellation as an error nobody
   * reads. A callback, not an AbortSignal: one of those a call cost more than its rare use.
   */
  exchange(
    request: JSONRPCRequest,
    authInfo: AuthInfo,
    whenGone?: (cancel: () => void) => void,
  ): Promise<JSONRPCMessage> {
    const deliver = this.onmessage;
    if (!deliver) throw new Error('No server is connected to this transport');
    const id = ++this.#nextId;
    const answered = new Promise<JSONRPCMessage>((answer) => {
      this.#pending.set(id, { id: request.id, answer });
    });
    deliver({ ...request, id }, { authInfo });
    whenGone?.(() => {
      const pending = this.#pending.get(id);
      if (!pending) return;
      this.#pending.delete(id);
      deliver({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: id } }, { authInfo });
      pending.answer({
        jsonrpc: '2.0',
        id: request.id,
        error: { code: -32800, message: 'Request cancelled' },
      });
    });
    return answered;
  }
}
