import { createHash, createHmac, randomBytes } from 'node:crypto';
import {
  CLIENT_CAPABILITIES_META_KEY,
  type ClientCapabilities,
  createRequestStateCodec,
  isJSONRPCErrorResponse,
  isJSONRPCResultResponse,
  type JSONRPCMessage,
  type RequestId,
  type RequestStateCodec,
  type ServerContext,
  type Transport,
} from '@modelcontextprotocol/server';
import type { PendingApproval } from './types.js';

/**
 * URL-mode elicitation of approvals (DECISIONS.md "Agents acting safely": "a client that
 * supports URL-mode elicitation is also asked through it"). The call sent for approval
 * answers the approval-required result whatever the client does with the link: declining
 * to open it is not a denial, only the owner decides.
 */

/** How long a 2025-era call waits for the client's answer before answering without it. */
export const DEFAULT_ELICITATION_TIMEOUT_MS = 30_000;
/** How long a 2026-07-28 client may take to retry with its answer (the approval itself lasts 24 hours). */
const REQUEST_STATE_TTL_SECONDS = 60 * 60;

/** What became of the question: the client's action, or why there was none. */
export type ElicitationAnswer = 'accept' | 'decline' | 'cancel' | 'error' | 'timeout' | 'gone';

/** The URL-mode elicitation of one approval. */
export interface ApprovalElicitation {
  url: string;
  /** Stable per approval: asking twice about one approval names it the same. */
  elicitationId: string;
  message: string;
}

export function approvalElicitation(
  agentName: string,
  approval: PendingApproval,
  fallbackSummary: string,
): ApprovalElicitation {
  const summary = (approval.summary ?? fallbackSummary).replace(/[.\s]+$/, '');
  return {
    url: approval.approveUrl,
    elicitationId: `approval-${approval.id}`,
    message: `Your agent ${agentName} asks to: ${summary}. Nothing was done yet. Approve or deny at the link.`,
  };
}

/** Whether declared client capabilities include URL-mode elicitation. */
export const declaresUrlElicitation = (capabilities: ClientCapabilities | undefined): boolean =>
  Boolean(capabilities?.elicitation?.url);

/** The client capabilities a 2026-07-28 request declares in its `_meta` envelope. */
export const requestCapabilities = (ctx: ServerContext): ClientCapabilities | undefined =>
  (ctx.mcpReq.envelope as Record<string, unknown> | undefined)?.[CLIENT_CAPABILITIES_META_KEY] as
    | ClientCapabilities
    | undefined;

/** Asks a 2025-era client on the call's own stream; resolves with its answer (never rejects). */
export type LegacyElicit = (
  elicitation: ApprovalElicitation,
  relatedRequestId: RequestId,
  signal: AbortSignal,
) => Promise<ElicitationAnswer>;

/**
 * What a 2026-07-28 call that asked carries in its `requestState`: the approval it created,
 * so the client's retry (with its answer) answers that approval and creates no second one.
 * Signed, not encrypted: the client may read it, and it holds nothing the result does not.
 */
export interface ApprovalRequestState {
  v: 1;
  agentId: number;
  tool: string;
  /** Digest of the call's arguments: a state replayed on another call is not this call's. */
  args: string;
  approval: { id: number; expiresAt: string; approveUrl: string };
}

export const argumentsDigest = (args: unknown): string =>
  createHash('sha256')
    .update(JSON.stringify(args ?? {}))
    .digest('base64url');

/**
 * The HMAC codec of approval request states, keyed from the service's encryption key
 * (one key on every instance, so any instance verifies a retry) and bound to the agent.
 */
export function approvalStateCodec(secret: Uint8Array): RequestStateCodec<ApprovalRequestState> {
  const key = createHmac('sha256', secret).update('mcp.requestState.approval-elicitation.v1').digest();
  return createRequestStateCodec<ApprovalRequestState>({
    key,
    ttlSeconds: REQUEST_STATE_TTL_SECONDS,
    bind: (ctx) => `${ctx.mcpReq.method}\0${ctx.http?.authInfo?.clientId ?? ''}`,
  });
}

/**
 * The 2025-era side: the elicitations waiting for a client's answer. (Whether a session's
 * client takes URL elicitation is kept with the session in the database, so every instance
 * asks.) A session's requests are served by a fresh SDK server each, so the client's answer
 * (its own POST) is routed here to the call that waits for it. The waiting call lives on
 * one instance: an answer that reaches another lets the call answer at its time bound.
 */
export interface LegacyElicitations {
  /** The asker for requests of `sessionId` served on `transport` (its stream must be SSE). */
  askerFor(sessionId: string, transport: Transport): LegacyElicit;
  /**
   * Hands a POSTed body's JSON-RPC responses to the calls waiting for them; true when
   * the body is only responses and at least one was awaited (the POST is then answered 202).
   */
  deliver(sessionId: string, body: unknown): boolean;
}

interface Waiting {
  sessionId: string;
  settle(answer: ElicitationAnswer): void;
}

const answerOf = (message: JSONRPCMessage): ElicitationAnswer => {
  if (!isJSONRPCResultResponse(message)) return 'error';
  const action = (message.result as { action?: unknown }).action;
  return action === 'accept' || action === 'decline' || action === 'cancel' ? action : 'error';
};

// The keys first: every POST passes here, and a guard's refusal (a request) costs a schema's issues.
const isResponse = (message: unknown): message is JSONRPCMessage =>
  message !== null &&
  typeof message === 'object' &&
  (('result' in message && isJSONRPCResultResponse(message as JSONRPCMessage)) ||
    ('error' in message && isJSONRPCErrorResponse(message as JSONRPCMessage)));

export function createLegacyElicitations({ timeoutMs }: { timeoutMs: number }): LegacyElicitations {
  const waiting = new Map<string, Waiting>();

  return {
    askerFor(sessionId, transport) {
      return (elicitation, relatedRequestId, signal) =>
        new Promise<ElicitationAnswer>((resolve) => {
          // A string id of our own: each request's SDK server numbers its requests from 0.
          const id = `elicitation-${randomBytes(12).toString('base64url')}`;
          let timer: NodeJS.Timeout | undefined;
          const settle = (answer: ElicitationAnswer) => {
            if (!waiting.delete(id)) return;
            clearTimeout(timer);
            signal.removeEventListener('abort', onAbort);
            resolve(answer);
          };
          const onAbort = () => settle('gone');
          waiting.set(id, { sessionId, settle });
          signal.addEventListener('abort', onAbort, { once: true });
          timer = setTimeout(() => {
            settle('timeout');
            // Tells the client the question is withdrawn (best effort: the stream may be gone).
            transport
              .send(
                {
                  jsonrpc: '2.0',
                  method: 'notifications/cancelled',
                  params: { requestId: id, reason: 'The tool call answered without waiting longer' },
                },
                { relatedRequestId },
              )
              .catch(() => {});
          }, timeoutMs);
          // A question in flight does not keep a stopping process alive.
          timer.unref();
          transport
            .send(
              {
                jsonrpc: '2.0',
                id,
                method: 'elicitation/create',
                params: { mode: 'url', ...elicitation },
              },
              { relatedRequestId },
            )
            .catch(() => settle('error'));
          if (signal.aborted) settle('gone');
        });
    },

    deliver(sessionId, body) {
      const messages = Array.isArray(body) ? body : [body];
      if (messages.length === 0 || !messages.every(isResponse)) return false;
      let delivered = false;
      for (const message of messages) {
        const id = (message as { id?: unknown }).id;
        const entry = typeof id === 'string' ? waiting.get(id) : undefined;
        // Another session's id is not this one's to answer.
        if (!entry || entry.sessionId !== sessionId) continue;
        entry.settle(answerOf(message));
        delivered = true;
      }
      return delivered;
    },
  };
}
