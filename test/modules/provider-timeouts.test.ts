import assert from 'node:assert/strict';
import { createServer, type Server, type Socket } from 'node:net';
import { after, before, describe, test } from 'node:test';
import type { CalendarProviderSettings } from '../../src/config.js';
import { CalendarProviderError } from '../../src/modules/calendar-sync/providers/port.js';
import { createProviderA } from '../../src/modules/calendar-sync/providers/provider-a.js';
import { createProviderB } from '../../src/modules/calendar-sync/providers/provider-b.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { ownerWithOrganisation } from '../helpers/organisations.js';

// A provider that hangs, stalls half-way through its answer, or resets the connection
// never holds a request longer than the configured timeout: a hang or a stall is cut off
// at the timeout (504 PROVIDER_TIMEOUT, not retried), a reset fails fast (502 PROVIDER_ERROR,
// after the short retries of a safe request).

type Behaviour = 'answer' | 'hang' | 'stall-body' | 'reset';

/** A raw HTTP peer whose misbehaviour the test picks; it counts the requests it saw. */
class MisbehavingProvider {
  behaviour: Behaviour = 'answer';
  requests = 0;
  private readonly sockets = new Set<Socket>();
  private constructor(
    private readonly server: Server,
    readonly url: string,
    private readonly answer: (method: string, path: string) => unknown,
  ) {}

  static async start(answer: (method: string, path: string) => unknown): Promise<MisbehavingProvider> {
    let provider: MisbehavingProvider | undefined;
    const server = createServer((socket) => provider!.serve(socket));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    if (!address || typeof address === 'string') throw new Error('no port');
    provider = new MisbehavingProvider(server, `http://127.0.0.1:${address.port}`, answer);
    return provider;
  }

  private serve(socket: Socket) {
    this.sockets.add(socket);
    socket.on('close', () => this.sockets.delete(socket));
    socket.on('error', () => {});
    let head = '';
    socket.on('data', (chunk) => {
      head += chunk.toString('latin1');
      // Bodies are small: the request is whole once its head ends and Content-Length bytes followed.
      const end = head.indexOf('\r\n\r\n');
      if (end === -1) return;
      const length = Number(/\r\ncontent-length: *(\d+)/i.exec(head)?.[1] ?? 0);
      if (head.length < end + 4 + length) return;
      const [method = '', path = ''] = head.split(' ');
      head = '';
      this.requests += 1;
      this.respond(socket, method, path);
    });
  }

  private respond(socket: Socket, method: string, path: string) {
    switch (this.behaviour) {
      case 'hang':
        return;
      case 'reset':
        socket.resetAndDestroy();
        return;
      case 'stall-body':
        // The head and the start of a body, then nothing.
        socket.write(
          'HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 4096\r\n\r\n{"id":',
        );
        return;
      case 'answer': {
        const body = JSON.stringify(this.answer(method, path));
        socket.write(
          `HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
        );
      }
    }
  }

  async close() {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/** Runs `work` and answers how long it took and what it answered or threw. */
async function timed<T>(work: () => Promise<T>): Promise<{ ms: number; value?: T; error?: unknown }> {
  const started = performance.now();
  try {
    const value = await work();
    return { ms: performance.now() - started, value };
  } catch (error) {
    return { ms: performance.now() - started, error };
  }
}

/** Slack for a loaded machine beyond the configured timeout. */
const SLACK_MS = 1_500;

describe('payment provider that misbehaves', () => {
  const TIMEOUT_MS = 600;
  let provider: MisbehavingProvider;
  let t: TestApp;
  const account = {
    id: 'acct_timeouts',
    charges_enabled: false,
    payouts_enabled: false,
    details_submitted: false,
    default_currency: 'usd',
    requirements: { currently_due: [], pending_verification: [], disabled_reason: null },
  };
  before(async () => {
    provider = await MisbehavingProvider.start((_method, path) =>
      path.startsWith('/v1/account_links')
        ? { url: 'https://connect.example.test/onboarding', expires_at: 4_000_000_000 }
        : account,
    );
    t = await createTestApp({
      PAYMENT_API_BASE: provider.url,
      PAYMENT_SECRET_KEY: 'sk_test_timeouts',
      PAYMENT_TIMEOUT_MS: String(TIMEOUT_MS),
    });
  });
  after(async () => {
    await t.close();
    await provider.close();
  });

  // Without its timeout, a provider call would wait forever: the test's own bound fails it.
  test('hang, stalled body and reset: each answered within the timeout, in the envelope', {
    timeout: 30_000,
  }, async () => {
    const owner = await ownerWithOrganisation(t.app);
    const request = async (method: 'GET' | 'POST', action: string) => {
      const { ms, value } = await timed(() =>
        t.app.inject({
          method,
          url: `/api/organisations/${owner.organisationId}/payment/${action}`,
          headers: owner.auth,
        }),
      );
      return { ms, status: value!.statusCode, code: value!.json().error?.code as string | undefined };
    };

    provider.behaviour = 'answer';
    assert.equal((await request('POST', 'onboarding-link')).status, 200, 'connected to the provider');

    for (const behaviour of ['hang', 'stall-body'] as const) {
      for (const [method, action] of [
        ['GET', 'status'],
        ['POST', 'onboarding-link'],
      ] as const) {
        provider.behaviour = behaviour;
        const since = provider.requests;
        const { ms, status, code } = await request(method, action);
        assert.deepEqual(
          { status, code },
          { status: 504, code: 'PROVIDER_TIMEOUT' },
          `${behaviour} ${action}`,
        );
        assert.ok(ms >= TIMEOUT_MS - 50 && ms < TIMEOUT_MS + SLACK_MS, `${behaviour} ${action}: ${ms} ms`);
        assert.equal(provider.requests - since, 1, `${behaviour} ${action}: a timed-out call is not retried`);
      }
    }

    provider.behaviour = 'reset';
    const since = provider.requests;
    const { ms, status, code } = await request('GET', 'status');
    assert.deepEqual({ status, code }, { status: 502, code: 'PROVIDER_ERROR' });
    assert.ok(ms < TIMEOUT_MS + SLACK_MS, `reset: ${ms} ms`);
    assert.equal(provider.requests - since, 3, 'a safe request is retried twice after a reset');

    provider.behaviour = 'answer';
    assert.equal((await request('GET', 'status')).status, 200, 'answers again once the provider does');
  });
});

describe('calendar providers that misbehave', () => {
  const TIMEOUT_MS = 500;
  let provider: MisbehavingProvider;
  before(async () => {
    provider = await MisbehavingProvider.start((_method, path) =>
      path.includes('token') ? { access_token: 'at', expires_in: 3600, refresh_token: 'rt' } : { items: [] },
    );
  });
  after(() => provider.close());

  const settings = (): CalendarProviderSettings => ({
    clientId: 'client',
    clientSecret: 'secret',
    authUrl: `${provider.url}/authorize`,
    tokenUrl: `${provider.url}/token`,
    apiBase: `${provider.url}/api`,
    revokeUrl: `${provider.url}/revoke`,
  });

  for (const [name, create] of [
    ['A', createProviderA],
    ['B', createProviderB],
  ] as const) {
    test(`provider ${name}: token exchange and listing bounded by the timeout`, {
      timeout: 30_000,
    }, async () => {
      const port = create({ settings: settings(), timeoutMs: TIMEOUT_MS });
      const calls: Record<string, () => Promise<unknown>> = {
        'token exchange': () =>
          port.exchangeCode({
            code: 'code',
            codeVerifier: 'v'.repeat(43),
            redirectUri: 'http://service.test/cb',
          }),
        'calendar list': () => port.listCalendars('access-token'),
      };
      for (const [what, call] of Object.entries(calls)) {
        for (const behaviour of ['hang', 'stall-body'] as const) {
          provider.behaviour = behaviour;
          const since = provider.requests;
          const { ms, error } = await timed(call);
          assert.ok(error instanceof CalendarProviderError, `${what} ${behaviour}: ${String(error)}`);
          assert.equal(error.code, 'PROVIDER_TIMEOUT', `${what} ${behaviour}`);
          assert.ok(ms >= TIMEOUT_MS - 50 && ms < TIMEOUT_MS + SLACK_MS, `${what} ${behaviour}: ${ms} ms`);
          assert.equal(provider.requests - since, 1, `${what} ${behaviour}: not retried`);
        }
        provider.behaviour = 'reset';
        const { ms, error } = await timed(call);
        assert.ok(error instanceof CalendarProviderError, `${what} reset: ${String(error)}`);
        assert.equal(error.code, 'PROVIDER_ERROR', `${what} reset`);
        assert.ok(ms < TIMEOUT_MS + SLACK_MS, `${what} reset: ${ms} ms`);
      }
    });
  }
});
