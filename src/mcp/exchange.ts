import {
  type AuthInfo,
  classifyInboundRequest,
  isInitializeRequest,
  isJSONRPCErrorResponse,
  isJSONRPCRequest,
  isJSONRPCResultResponse,
  isJsonContentType,
  type JSONRPCMessage,
  type JSONRPCRequest,
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

/**
 * The request of a 2025-era session POST that is served as one JSON exchange, or undefined
 * when the SDK's streamable HTTP transport must serve it: a single JSON-RPC request (not
 * `initialize`, no 2026-07-28 envelope) that passes every check that transport makes of such
 * a POST (Accept, Content-Type, a supported protocol version). Anything else, error answers
 * included, keeps the SDK's own handling and wording.
 */
export function singleExchangeRequest(
  post: LegacyPost,
  supportedVersions: readonly string[],
): JSONRPCRequest | undefined {
  const { body, accept } = post;
  if (!isJSONRPCRequest(body) || isInitializeRequest(body)) return undefined;
  if (!accept?.includes('application/json') || !accept.includes('text/event-stream')) return undefined;
  if (post.contentType === undefined || !isJsonContentType(post.contentType)) return undefined;
  if (post.protocolVersion !== undefined && !supportedVersions.includes(post.protocolVersion))
    return undefined;
  const route = classifyInboundRequest({
    httpMethod: 'POST',
    body,
    protocolVersionHeader: post.protocolVersion,
    mcpMethodHeader: post.mcpMethod,
    mcpNameHeader: post.mcpName,
  });
  return route.kind === 'legacy' && route.reason === 'no-claim' ? body : undefined;
}

/**
 * An SDK `Transport` whose whole life is one JSON-RPC request answered as JSON, for the
 * common 2025-era call. The SDK's streamable HTTP transport would wrap the same exchange in
 * a web `Request` and `Response` and read the answer back out of a stream, which cost more
 * than the tool call itself (docs/performance.md). As that transport does in JSON mode,
 * messages other than the answer (progress, logging) have no channel here and are dropped.
 */
export class SingleExchangeTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: Transport['onmessage'];
  #answer: ((message: JSONRPCMessage) => void) | undefined;

  async start(): Promise<void> {}

  async send(message: JSONRPCMessage): Promise<void> {
    if (isJSONRPCResultResponse(message) || isJSONRPCErrorResponse(message)) this.#answer?.(message);
  }

  async close(): Promise<void> {
    this.#answer = undefined;
    this.onclose?.();
  }

  /** Hands the request to the connected server; resolves with its answer. */
  exchange(request: JSONRPCRequest, authInfo: AuthInfo): Promise<JSONRPCMessage> {
    if (this.#answer || !this.onmessage) throw new Error('A single-exchange transport serves one request');
    const answered = new Promise<JSONRPCMessage>((resolve) => {
      this.#answer = resolve;
    });
    this.onmessage(request, { authInfo });
    return answered;
  }
}
