import { setTimeout as sleep } from 'node:timers/promises';
import { z } from 'zod';
import { inClientSpan } from '../../../lib/tracing.js';
import {
  CalendarProviderError,
  GrantRevokedError,
  NotFoundAtProviderError,
  PreconditionFailedError,
  type TokenSet,
  UnauthorizedError,
} from './port.js';

export interface ProviderHttpOptions {
  /** Names the provider in log details. */
  label: string;
  /** Bound on one attempt, headers and body together. */
  timeoutMs: number;
  /**
   * Origins requests may go to (API base, token and revoke endpoints). Links a provider hands
   * back (next pages, delta links) are followed only within them, so a bearer token never
   * travels to a host the operator did not configure.
   */
  allowedOrigins: string[];
  /** Extra attempts of a GET after a network failure, 429 or 5xx. Default 1. */
  retries?: number;
  fetch?: typeof fetch;
}

export interface HttpCall {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  url: string;
  bearer?: string;
  json?: unknown;
  form?: Record<string, string>;
  headers?: Record<string, string>;
}

export interface HttpAnswer {
  status: number;
  headers: Headers;
  /** Parsed JSON body; undefined when empty or not JSON. */
  body: unknown;
}

/** The provider's own error words, for the log: `{error: {code|status, message}}` or `{error, error_description}`. */
export function errorWords(body: unknown): string {
  if (!body || typeof body !== 'object') return 'no error body';
  const record = body as Record<string, unknown>;
  const error = record.error;
  if (typeof error === 'string') {
    const description = typeof record.error_description === 'string' ? record.error_description : '';
    return `${error}${description ? `: ${description}` : ''}`;
  }
  if (error && typeof error === 'object') {
    const inner = error as Record<string, unknown>;
    const code = inner.code ?? inner.status;
    const message = typeof inner.message === 'string' ? inner.message : '';
    return `${code ?? 'error'}${message ? `: ${message}` : ''}`;
  }
  return 'no error body';
}

/** The headers and body a call sends: JSON, a form, or none, with its bearer token. */
function requestOf(input: HttpCall): { headers: Record<string, string>; body: string | undefined } {
  const headers: Record<string, string> = { accept: 'application/json', ...input.headers };
  if (input.bearer) headers.authorization = `Bearer ${input.bearer}`;
  if (input.json !== undefined) {
    headers['content-type'] = 'application/json';
    return { headers, body: JSON.stringify(input.json) };
  }
  if (input.form) {
    headers['content-type'] = 'application/x-www-form-urlencoded';
    return { headers, body: new URLSearchParams(input.form).toString() };
  }
  return { headers, body: undefined };
}

/** An answer's JSON body; undefined when it is empty or not JSON. */
function parsedBody(text: string): unknown {
  if (!text) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/**
 * Outbound HTTP to a calendar provider: every attempt bounded by `timeoutMs`, redirects
 * refused, only configured origins, and failures described without tokens (the path only;
 * tokens travel in headers and form bodies, never in URLs).
 */
export function createProviderHttp(options: ProviderHttpOptions) {
  const fetchImpl = options.fetch ?? globalThis.fetch;
  const retries = options.retries ?? 1;
  const origins = new Set(options.allowedOrigins.map((url) => new URL(url).origin));

  return async function call(input: HttpCall): Promise<HttpAnswer> {
    let target: URL;
    try {
      target = new URL(input.url);
    } catch {
      throw new CalendarProviderError('error', `${options.label}: not a URL`);
    }
    const what = `${options.label} ${input.method} ${target.pathname}`.slice(0, 300);
    if (!origins.has(target.origin))
      throw new CalendarProviderError(
        'error',
        `${what}: ${target.origin} is not a configured provider origin`,
      );
    const { headers, body } = requestOf(input);
    const attempts = input.method === 'GET' ? 1 + retries : 1;
    for (let attempt = 1; ; attempt += 1) {
      let response: Response;
      let text: string;
      try {
        [response, text] = await inClientSpan(
          { method: input.method, url: target },
          async (traceHeaders) => {
            const sent = await fetchImpl(target, {
              method: input.method,
              headers: traceHeaders ? { ...headers, ...traceHeaders } : headers,
              body,
              redirect: 'error',
              signal: AbortSignal.timeout(options.timeoutMs),
            });
            return [sent, await sent.text()] as const;
          },
          ([sent]) => sent.status,
        );
      } catch (error) {
        const name = (error as { name?: string } | null)?.name;
        if (name === 'TimeoutError' || name === 'AbortError')
          throw new CalendarProviderError('timeout', `${what} timed out after ${options.timeoutMs} ms`);
        if (attempt < attempts) {
          await sleep(100 * attempt);
          continue;
        }
        throw new CalendarProviderError('error', `${what} failed: network error`);
      }
      if ((response.status === 429 || response.status >= 500) && attempt < attempts) {
        await sleep(200 * attempt);
        continue;
      }
      return { status: response.status, headers: response.headers, body: parsedBody(text) };
    }
  };
}

export type ProviderHttp = ReturnType<typeof createProviderHttp>;

/** Describes a failed answer, for CalendarProviderError details. */
export function describe(label: string, call: HttpCall, answer: HttpAnswer): string {
  const path = new URL(call.url).pathname;
  return `${label} ${call.method} ${path} answered HTTP ${answer.status}: ${errorWords(answer.body)}`.slice(
    0,
    500,
  );
}

/** What both providers' APIs have in common: statuses mapped to errors, bodies checked by schema. */
export function providerCalls(label: string, http: ProviderHttp, notFound: readonly number[]) {
  /** Maps the statuses every API call shares to errors; answers a 2xx answer as it is. */
  function check(call: HttpCall, answer: HttpAnswer): HttpAnswer {
    if (answer.status >= 200 && answer.status < 300) return answer;
    const detail = describe(label, call, answer);
    if (answer.status === 401) throw new UnauthorizedError('error', detail, 401);
    if (answer.status === 412) throw new PreconditionFailedError('error', detail, 412);
    if (notFound.includes(answer.status)) throw new NotFoundAtProviderError('error', detail, answer.status);
    throw new CalendarProviderError('error', detail, answer.status);
  }

  function parse<T>(schema: z.ZodType<T>, answer: HttpAnswer, call: HttpCall): T {
    const parsed = schema.safeParse(answer.body);
    if (!parsed.success)
      throw new CalendarProviderError(
        'error',
        `${label} ${call.method} ${new URL(call.url).pathname}: unexpected body`,
      );
    return parsed.data;
  }

  const tokenJson = z.object({
    access_token: z.string().min(1),
    expires_in: z.coerce.number().optional(),
    refresh_token: z.string().min(1).optional(),
    scope: z.string().optional(),
  });

  /**
   * One call of an OAuth 2.0 token endpoint. On refresh, an `error` in `revoked` means the
   * person withdrew the grant (reconnect needed), not a passing failure.
   */
  async function token(
    tokenUrl: string,
    form: Record<string, string>,
    refreshing: boolean,
    revoked: readonly string[],
  ): Promise<TokenSet> {
    const call: HttpCall = { method: 'POST', url: tokenUrl, form };
    const answer = await http(call);
    if (answer.status !== 200) {
      // The form carries the client secret and the grant: never in the details.
      const detail = describe(label, { ...call, form: {} }, answer);
      const error = (answer.body as { error?: unknown } | undefined)?.error;
      if (refreshing && typeof error === 'string' && revoked.includes(error))
        throw new GrantRevokedError('error', detail, answer.status);
      throw new CalendarProviderError('error', detail, answer.status);
    }
    const json = parse(tokenJson, answer, call);
    return {
      accessToken: json.access_token,
      refreshToken: json.refresh_token ?? null,
      expiresAt: json.expires_in ? new Date(Date.now() + json.expires_in * 1000).toISOString() : null,
      scope: json.scope ?? null,
    };
  }

  return { check, apiCall: async (call: HttpCall) => check(call, await http(call)), parse, token };
}
