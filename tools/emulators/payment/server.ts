// A small, real HTTP server speaking the Connect-style payments REST API the
// service's payment adapter calls, with in-memory state. Used by the tests and,
// when no provider is configured, by `npm start` in development.
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type EmulatorMode = 'normal' | 'fail' | 'hang';

export interface PaymentEmulatorOptions {
  /** Listen port; 0 (default) picks a free one. */
  port?: number;
  /** Listen host; loopback by default. */
  host?: string;
  /** When set, API calls must carry exactly `Authorization: Bearer <secretKey>`; otherwise any `sk_` key. */
  secretKey?: string;
  /** Lifetime of onboarding links; expired or used links redirect to their refresh_url. */
  linkTtlSeconds?: number;
}

export interface RecordedRequest {
  method: string;
  path: string;
  idempotencyKey: string | null;
}

export interface PaymentEmulator {
  /** Base URL, e.g. `http://127.0.0.1:41234`; use it as PAYMENT_API_BASE. */
  url: string;
  /**
   * How `/v1/*` calls behave: `fail` answers 500, `hang` never answers. `times`
   * limits it to that many calls, after which the emulator is normal again.
   */
  setBehaviour(mode: EmulatorMode, times?: number): void;
  /** Completes onboarding of an account as visiting its link would. */
  completeOnboarding(accountId: string): void;
  /** Every `/v1/*` call so far, oldest first. */
  requests(): RecordedRequest[];
  /** Forgets accounts, links, idempotency keys and recorded calls; behaviour back to normal. */
  reset(): void;
  close(): Promise<void>;
}

interface Account {
  id: string;
  object: 'account';
  type: string;
  created: number;
  charges_enabled: boolean;
  payouts_enabled: boolean;
  details_submitted: boolean;
  default_currency: string;
  email: string | null;
  metadata: Record<string, string>;
  requirements: {
    currently_due: string[];
    eventually_due: string[];
    past_due: string[];
    pending_verification: string[];
    disabled_reason: string | null;
  };
}

interface Link {
  account: string;
  refreshUrl: string;
  returnUrl: string;
  expiresAt: number;
  used: boolean;
}

interface Answer {
  status: number;
  body: unknown;
}

const INITIAL_REQUIREMENTS = [
  'business_type',
  'external_account',
  'tos_acceptance.date',
  'tos_acceptance.ip',
];
const MAX_BODY_BYTES = 64 * 1024;

const id = (prefix: string) => `${prefix}_${randomBytes(12).toString('base64url').replace(/[-_]/g, 'x')}`;
const seconds = () => Math.floor(Date.now() / 1000);
const apiError = (status: number, type: string, message: string, extra: Record<string, string> = {}) => ({
  status,
  body: { error: { type, message, ...extra } },
});
const isAbsoluteHttpUrl = (value: string | undefined) => {
  if (!value) return false;
  try {
    return ['http:', 'https:'].includes(new URL(value).protocol);
  } catch {
    return false;
  }
};

export async function startPaymentEmulator(options: PaymentEmulatorOptions = {}): Promise<PaymentEmulator> {
  const linkTtl = options.linkTtlSeconds ?? 300;
  const accounts = new Map<string, Account>();
  const links = new Map<string, Link>();
  const idempotency = new Map<string, { fingerprint: string; answer: Answer }>();
  let recorded: RecordedRequest[] = [];
  let behaviour: { mode: EmulatorMode; remaining: number } = { mode: 'normal', remaining: Infinity };
  let baseUrl = '';

  function completeOnboarding(account: Account) {
    account.details_submitted = true;
    account.charges_enabled = true;
    account.payouts_enabled = true;
    account.requirements = {
      currently_due: [],
      eventually_due: [],
      past_due: [],
      pending_verification: [],
      disabled_reason: null,
    };
  }

  function authorised(request: IncomingMessage): boolean {
    const header = request.headers.authorization ?? '';
    if (!header.startsWith('Bearer ')) return false;
    const key = header.slice('Bearer '.length);
    return options.secretKey ? key === options.secretKey : key.startsWith('sk_');
  }

  /** The `/v1` API, after authentication and idempotency: one answer per call. */
  function api(method: string, path: string, form: URLSearchParams): Answer {
    if (method === 'POST' && path === '/v1/accounts') {
      const type = form.get('type');
      if (type !== 'express' && type !== 'standard' && type !== 'custom')
        return apiError(400, 'invalid_request_error', 'Missing or invalid parameter: type', {
          param: 'type',
        });
      const metadata: Record<string, string> = {};
      for (const [key, value] of form) {
        const match = /^metadata\[(.+)\]$/.exec(key);
        if (match?.[1]) metadata[match[1]] = value;
      }
      const account: Account = {
        id: id('acct'),
        object: 'account',
        type,
        created: seconds(),
        charges_enabled: false,
        payouts_enabled: false,
        details_submitted: false,
        default_currency: (form.get('default_currency') ?? 'usd').toLowerCase(),
        email: form.get('email'),
        metadata,
        requirements: {
          currently_due: [...INITIAL_REQUIREMENTS],
          eventually_due: [...INITIAL_REQUIREMENTS],
          past_due: [],
          pending_verification: [],
          disabled_reason: 'requirements.past_due',
        },
      };
      accounts.set(account.id, account);
      return { status: 200, body: account };
    }

    if (method === 'POST' && path === '/v1/account_links') {
      const accountId = form.get('account') ?? '';
      const type = form.get('type');
      const refreshUrl = form.get('refresh_url') ?? undefined;
      const returnUrl = form.get('return_url') ?? undefined;
      if (!accounts.has(accountId))
        return apiError(400, 'invalid_request_error', `No such account: '${accountId}'`, {
          code: 'resource_missing',
          param: 'account',
        });
      if (type !== 'account_onboarding' && type !== 'account_update')
        return apiError(400, 'invalid_request_error', 'Invalid type', { param: 'type' });
      if (!isAbsoluteHttpUrl(refreshUrl) || !isAbsoluteHttpUrl(returnUrl))
        return apiError(400, 'invalid_request_error', 'refresh_url and return_url must be absolute URLs', {
          param: isAbsoluteHttpUrl(refreshUrl) ? 'return_url' : 'refresh_url',
        });
      const token = randomBytes(18).toString('base64url');
      const expiresAt = seconds() + linkTtl;
      links.set(token, {
        account: accountId,
        refreshUrl: refreshUrl!,
        returnUrl: returnUrl!,
        expiresAt,
        used: false,
      });
      return {
        status: 200,
        body: {
          object: 'account_link',
          created: seconds(),
          expires_at: expiresAt,
          url: `${baseUrl}/connect/onboarding/${token}`,
        },
      };
    }

    const loginLink = /^\/v1\/accounts\/([^/]+)\/login_links$/.exec(path);
    if (method === 'POST' && loginLink) {
      const account = accounts.get(decodeURIComponent(loginLink[1]!));
      if (!account)
        return apiError(404, 'invalid_request_error', 'No such account', { code: 'resource_missing' });
      if (!account.details_submitted)
        return apiError(
          400,
          'invalid_request_error',
          'Cannot create a login link for an account that has not completed onboarding.',
        );
      return {
        status: 200,
        body: {
          object: 'login_link',
          created: seconds(),
          url: `${baseUrl}/express/${account.id}/dashboard?session=${randomBytes(12).toString('base64url')}`,
        },
      };
    }

    const accountPath = /^\/v1\/accounts\/([^/]+)$/.exec(path);
    if (method === 'GET' && accountPath) {
      const account = accounts.get(decodeURIComponent(accountPath[1]!));
      if (!account)
        return apiError(404, 'invalid_request_error', 'No such account', { code: 'resource_missing' });
      return { status: 200, body: account };
    }

    return apiError(404, 'invalid_request_error', `Unrecognized request URL (${method}: ${path})`);
  }

  function send(response: ServerResponse, answer: Answer, headers: Record<string, string> = {}) {
    response.writeHead(answer.status, { 'content-type': 'application/json', ...headers });
    response.end(JSON.stringify(answer.body));
  }

  function page(response: ServerResponse, status: number, title: string, text: string) {
    response.writeHead(status, { 'content-type': 'text/html; charset=utf-8' });
    response.end(
      `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title}</title></head>` +
        `<body><h1>${title}</h1><p>${text}</p></body></html>`,
    );
  }

  async function handle(request: IncomingMessage, response: ServerResponse, body: string) {
    const method = request.method ?? 'GET';
    const path = new URL(request.url ?? '/', 'http://emulator').pathname;

    // Pages a browser visits.
    const onboarding = /^\/connect\/onboarding\/([^/]+)$/.exec(path);
    if (method === 'GET' && onboarding) {
      const link = links.get(onboarding[1]!);
      const account = link && accounts.get(link.account);
      if (!link || !account)
        return page(response, 404, 'Link not found', 'This onboarding link is not known.');
      if (link.used || link.expiresAt < seconds()) {
        response.writeHead(302, { location: link.refreshUrl });
        return response.end();
      }
      link.used = true;
      completeOnboarding(account);
      response.writeHead(302, { location: link.returnUrl });
      return response.end();
    }
    const dashboard = /^\/express\/([^/]+)\/dashboard$/.exec(path);
    if (method === 'GET' && dashboard)
      return page(response, 200, 'Payments dashboard (emulator)', `Account ${dashboard[1]}`);

    // Test controls.
    if (path.startsWith('/__admin/')) {
      if (method === 'GET' && path === '/__admin/requests')
        return send(response, { status: 200, body: recorded });
      if (method === 'POST' && path === '/__admin/reset') {
        controls.reset();
        return send(response, { status: 200, body: { ok: true } });
      }
      if (method === 'POST' && path === '/__admin/behaviour') {
        const input = (safeJson(body) ?? {}) as { mode?: unknown; times?: unknown };
        if (input.mode !== 'normal' && input.mode !== 'fail' && input.mode !== 'hang')
          return send(response, apiError(400, 'invalid_request_error', 'mode must be normal, fail or hang'));
        controls.setBehaviour(input.mode, typeof input.times === 'number' ? input.times : undefined);
        return send(response, { status: 200, body: { mode: input.mode } });
      }
      const complete = /^\/__admin\/accounts\/([^/]+)\/complete-onboarding$/.exec(path);
      if (method === 'POST' && complete) {
        const account = accounts.get(decodeURIComponent(complete[1]!));
        if (!account) return send(response, apiError(404, 'invalid_request_error', 'No such account'));
        completeOnboarding(account);
        return send(response, { status: 200, body: account });
      }
      return send(response, apiError(404, 'invalid_request_error', 'Unknown admin route'));
    }

    if (!path.startsWith('/v1/')) return page(response, 404, 'Not found', 'Nothing here.');

    const idempotencyKey = header(request, 'idempotency-key');
    recorded.push({ method, path, idempotencyKey });
    if (behaviour.mode !== 'normal' && behaviour.remaining > 0) {
      behaviour.remaining -= 1;
      const mode = behaviour.mode;
      if (behaviour.remaining <= 0) behaviour = { mode: 'normal', remaining: Infinity };
      if (mode === 'hang') return; // never answers; close() drops the connection
      return send(response, apiError(500, 'api_error', 'Emulated provider failure'));
    }
    if (!authorised(request))
      return send(response, apiError(401, 'invalid_request_error', 'Invalid API Key provided'));

    const form = new URLSearchParams(body);
    if (method === 'POST' && idempotencyKey) {
      const fingerprint = `${path}\n${body}`;
      const seen = idempotency.get(idempotencyKey);
      if (seen) {
        if (seen.fingerprint !== fingerprint)
          return send(
            response,
            apiError(
              400,
              'idempotency_error',
              'Keys for idempotent requests can only be used with the same parameters they were first used with.',
            ),
          );
        return send(response, seen.answer, { 'idempotent-replayed': 'true' });
      }
      const answer = api(method, path, form);
      if (answer.status < 500) idempotency.set(idempotencyKey, { fingerprint, answer });
      return send(response, answer);
    }
    return send(response, api(method, path, form));
  }

  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        send(response, apiError(413, 'invalid_request_error', 'Request body too large'));
        request.destroy();
        return;
      }
      chunks.push(chunk);
    });
    request.on('end', () => {
      handle(request, response, Buffer.concat(chunks).toString('utf8')).catch(() => {
        if (!response.headersSent) send(response, apiError(500, 'api_error', 'Emulator error'));
      });
    });
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => resolve());
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  baseUrl = `http://${host}:${address.port}`;

  const controls: PaymentEmulator = {
    url: baseUrl,
    setBehaviour(mode, times) {
      behaviour = { mode, remaining: mode === 'normal' ? Infinity : (times ?? Infinity) };
    },
    completeOnboarding(accountId) {
      const account = accounts.get(accountId);
      if (!account) throw new Error(`No such account: ${accountId}`);
      completeOnboarding(account);
    },
    requests: () => [...recorded],
    reset() {
      accounts.clear();
      links.clear();
      idempotency.clear();
      recorded = [];
      behaviour = { mode: 'normal', remaining: Infinity };
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        // Hanging calls and keep-alive sockets would hold close() open forever.
        server.closeAllConnections();
      }),
  };
  return controls;
}

function header(request: IncomingMessage, name: string): string | null {
  const value = request.headers[name];
  return typeof value === 'string' && value ? value : null;
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
