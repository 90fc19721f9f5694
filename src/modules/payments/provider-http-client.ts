import { setTimeout as sleep } from 'node:timers/promises';
import type { z } from 'zod';
import { inClientSpan } from '../../lib/tracing.js';
import { PaymentProviderError } from './provider.js';
import { errorJson, safeJson } from './provider-wire.js';

export interface HttpPaymentProviderOptions {
  /** e.g. `https://api.provider.example`; paths such as `/v1/accounts` are appended. */
  apiBase: string;
  /** Sent as `Authorization: Bearer <secretKey>`; never logged, never in an error. */
  secretKey: string;
  /** Bound on one attempt, headers and body together. */
  timeoutMs: number;
  /** Extra attempts for safe requests (GET, or POST with an idempotency key). Default 2. */
  retries?: number;
  /** First backoff step; doubled per retry, plus jitter. Default 100 ms. */
  backoffMs?: number;
  fetch?: typeof fetch;
}

/** One request to the provider's API, and the schema of the body it answers with. */
export interface ProviderCall<T> {
  method: 'GET' | 'POST';
  path: string;
  form?: Record<string, string>;
  idempotencyKey?: string;
  parse: z.ZodType<T>;
}

/** Sends a call, retrying it when that is safe; a PaymentProviderError says what failed. */
export type CallProvider = <T>(call: ProviderCall<T>) => Promise<T>;

/** What one attempt got: the answer, or the network failure a retry may overcome. */
type Attempt = { status: number; text: string } | { failure: unknown };

/** A retry may succeed after a conflict (an idempotent request in flight), a rate limit or a 5xx. */
const isRetryableStatus = (status: number) => status >= 500 || status === 429 || status === 409;

/** The provider's error body in one line: type, code and message, whichever it gives. */
function errorDetail(text: string): string {
  const problem = errorJson.safeParse(safeJson(text));
  return problem.success
    ? [problem.data.error.type, problem.data.error.code, problem.data.error.message]
        .filter(Boolean)
        .join(': ')
    : 'no error body';
}

/** One attempt's answer, in a client span whose `traceparent` the provider gets (while tracing runs). */
function answerOf(
  fetchImpl: typeof fetch,
  url: string,
  init: RequestInit,
): Promise<{ status: number; text: string }> {
  return inClientSpan(
    { method: init.method ?? 'GET', url: new URL(url) },
    async (traceHeaders) => {
      const headers = traceHeaders
        ? { ...(init.headers as Record<string, string>), ...traceHeaders }
        : init.headers;
      const response = await fetchImpl(url, { ...init, headers });
      return { status: response.status, text: await response.text() };
    },
    (answer) => answer.status,
  );
}

/**
 * The transport of the HTTP adapter: form-encoded bodies and the bearer secret key. Every
 * attempt is bounded by `timeoutMs`. Only safe requests are retried (GET, or POST carrying an
 * idempotency key), and only after a network failure or a 409/429/5xx answer, with a short
 * exponential backoff. A timeout is not retried: a provider that hangs once is likely to hang
 * again, and the caller's request must stay bounded.
 */
export function createProviderCaller(options: HttpPaymentProviderOptions): CallProvider {
  const base = options.apiBase.replace(/\/+$/, '');
  const retries = options.retries ?? 2;
  const backoffMs = options.backoffMs ?? 100;
  const fetchImpl = options.fetch ?? globalThis.fetch;
  // Belt and braces: whatever the provider echoes, the key never reaches a log or a body.
  const scrub = (text: string) => text.split(options.secretKey).join('[redacted]').slice(0, 500);
  const backoff = (attempt: number) =>
    backoffMs * 2 ** (attempt - 1) + Math.floor(Math.random() * backoffMs * 0.5);

  async function attemptOnce(what: string, url: string, init: RequestInit): Promise<Attempt> {
    try {
      return await answerOf(fetchImpl, url, { ...init, signal: AbortSignal.timeout(options.timeoutMs) });
    } catch (error) {
      const name = (error as { name?: string } | null)?.name;
      if (name === 'TimeoutError' || name === 'AbortError') {
        throw new PaymentProviderError('timeout', `${what} timed out after ${options.timeoutMs} ms`);
      }
      return { failure: error };
    }
  }

  return async function call<T>({ method, path, form, idempotencyKey, parse }: ProviderCall<T>) {
    const safe = method === 'GET' || idempotencyKey !== undefined;
    const attempts = safe ? 1 + retries : 1;
    const headers: Record<string, string> = {
      authorization: `Bearer ${options.secretKey}`,
      accept: 'application/json',
    };
    if (form) headers['content-type'] = 'application/x-www-form-urlencoded';
    if (idempotencyKey) headers['idempotency-key'] = idempotencyKey;
    const body = form ? new URLSearchParams(form).toString() : undefined;
    const what = `${method} ${path}`;
    const init: RequestInit = { method, headers, body, redirect: 'error' };

    for (let attempt = 1; ; attempt += 1) {
      const answer = await attemptOnce(what, `${base}${path}`, init);
      const retry = attempt < attempts && ('failure' in answer || isRetryableStatus(answer.status));
      if (retry) {
        await sleep(backoff(attempt));
        continue;
      }
      if ('failure' in answer) {
        const reason = answer.failure instanceof Error ? scrub(answer.failure.message) : 'unknown';
        throw new PaymentProviderError('error', `${what} failed after ${attempt} attempt(s): ${reason}`);
      }
      const { status, text } = answer;
      if (status >= 200 && status < 300) {
        const parsed = parse.safeParse(safeJson(text));
        if (!parsed.success) throw new PaymentProviderError('error', `${what} answered an unexpected body`);
        return parsed.data;
      }
      throw new PaymentProviderError(
        'error',
        `${what} answered HTTP ${status} after ${attempt} attempt(s): ${scrub(errorDetail(text))}`,
      );
    }
  };
}
