import assert from 'node:assert/strict';
import { after, afterEach, before, describe, test } from 'node:test';
import { ConfigError, loadConfig } from '../../../src/config.js';
import { httpStatusOf } from '../../../src/http/errors.js';
import { createHttpPaymentProvider } from '../../../src/modules/payments/http-provider.js';
import { PaymentProviderError } from '../../../src/modules/payments/provider.js';
import { startDevelopmentPayments } from '../../../tools/emulators/development.js';
import { type PaymentEmulator, startPaymentEmulator } from '../../../tools/emulators/payment/server.js';
import { createTestApp, registerUser, TEST_ENV, type TestApp } from '../../helpers/app.js';
import { call, expectStatus } from '../../helpers/http.js';
import { createOrganisation, createTeam, type Team } from '../../helpers/organisations.js';

const SECRET = 'sk_test_0123456789abcdefSECRET';

const NOT_CONNECTED = {
  providerAccountId: null,
  providerConnectStatus: 'not_connected',
  defaultCurrency: 'usd',
  chargesEnabled: false,
  payoutsEnabled: false,
  detailsSubmitted: false,
  requiresOnboarding: false,
  currentlyDue: [],
  pendingVerification: [],
  disabledReason: null,
};

describe('payment connection', () => {
  let emulator: PaymentEmulator;
  let t: TestApp;
  before(async () => {
    emulator = await startPaymentEmulator({ secretKey: SECRET });
    t = await createTestApp({
      PAYMENT_API_BASE: emulator.url,
      PAYMENT_SECRET_KEY: SECRET,
      PAYMENT_TIMEOUT_MS: '2000',
    });
  });
  after(async () => {
    await t.close();
    await emulator.close();
  });
  afterEach(() => emulator.setBehaviour('normal'));

  const path = (team: Team | number, action: string) =>
    `/api/organisations/${typeof team === 'number' ? team : team.organisationId}/payment/${action}`;
  const status = (team: Team, user = team.owner) => call(t.app, user, 'GET', path(team, 'status'));
  const onboarding = (team: Team, user = team.owner) =>
    call(t.app, user, 'POST', path(team, 'onboarding-link'));
  const dashboard = (team: Team, user = team.owner) =>
    call(t.app, user, 'POST', path(team, 'dashboard-link'));
  const disconnect = (team: Team, user = team.owner) => call(t.app, user, 'POST', path(team, 'disconnect'));
  const apiCalls = () => emulator.requests().length;

  test('before any connection the status is not_connected, without asking the provider', async () => {
    const team = await createTeam(t.app);
    const before = apiCalls();
    assert.deepEqual(expectStatus(await status(team), 200), {
      organisationId: team.organisationId,
      ...NOT_CONNECTED,
    });
    assert.equal(apiCalls(), before);
  });

  test('end to end: onboarding link gives pending, completing onboarding makes it active, dashboard link, disconnect', async () => {
    const team = await createTeam(t.app);

    // 1. Onboarding link: the account is created, pending.
    const link = expectStatus(await onboarding(team), 200);
    assert.deepEqual(Object.keys(link).sort(), ['providerAccountId', 'providerConnectStatus', 'url']);
    assert.equal(link.providerConnectStatus, 'pending');
    assert.match(link.providerAccountId, /^acct_/);
    assert.ok(link.url.startsWith(`${emulator.url}/connect/onboarding/`), link.url);

    const pending = expectStatus(await status(team), 200);
    assert.equal(pending.providerAccountId, link.providerAccountId);
    assert.equal(pending.providerConnectStatus, 'pending');
    assert.equal(pending.chargesEnabled, false);
    assert.equal(pending.detailsSubmitted, false);
    assert.equal(pending.requiresOnboarding, true);
    assert.ok(pending.currentlyDue.includes('external_account'), JSON.stringify(pending.currentlyDue));
    assert.equal(pending.disabledReason, 'requirements.past_due');

    // 2. No dashboard before onboarding is complete.
    expectStatus(await dashboard(team), 409, 'ONBOARDING_INCOMPLETE');

    // 3. The user follows the link (a real HTTP GET): the provider redirects back to the frontend.
    const visit = await fetch(link.url, { redirect: 'manual' });
    assert.equal(visit.status, 302);
    assert.equal(
      visit.headers.get('location'),
      `${TEST_ENV.FRONTEND_URL}/app/payments?organisation=${team.organisationId}&onboarding=complete`,
    );

    // 4. Reading the status syncs from the provider: active.
    const active = expectStatus(await status(team), 200);
    assert.deepEqual(active, {
      organisationId: team.organisationId,
      providerAccountId: link.providerAccountId,
      providerConnectStatus: 'active',
      defaultCurrency: 'usd',
      chargesEnabled: true,
      payoutsEnabled: true,
      detailsSubmitted: true,
      requiresOnboarding: false,
      currentlyDue: [],
      pendingVerification: [],
      disabledReason: null,
    });

    // 5. Dashboard link to the provider's dashboard.
    const board = expectStatus(await dashboard(team, team.admin), 200);
    assert.equal(board.providerAccountId, link.providerAccountId);
    assert.ok(board.url.startsWith(`${emulator.url}/express/${link.providerAccountId}/dashboard`), board.url);
    assert.equal((await fetch(board.url)).status, 200);

    // 6. A second onboarding link refreshes the link of the same account.
    const again = expectStatus(await onboarding(team, team.admin), 200);
    assert.equal(again.providerAccountId, link.providerAccountId);
    assert.equal(again.providerConnectStatus, 'active');
    assert.notEqual(again.url, link.url);

    // 7. A used link sends the user to the refresh URL instead.
    const reused = await fetch(link.url, { redirect: 'manual' });
    assert.equal(reused.status, 302);
    assert.match(reused.headers.get('location') ?? '', /&onboarding=refresh$/);

    // 8. Disconnect forgets the account; the status no longer asks the provider.
    const disconnected = expectStatus(await disconnect(team), 200);
    assert.deepEqual(disconnected, { organisationId: team.organisationId, ...NOT_CONNECTED });
    const calls = apiCalls();
    assert.deepEqual(expectStatus(await status(team), 200), {
      organisationId: team.organisationId,
      ...NOT_CONNECTED,
    });
    assert.equal(apiCalls(), calls);
    expectStatus(await dashboard(team), 409, 'ONBOARDING_INCOMPLETE');
    // Disconnecting again is harmless.
    expectStatus(await disconnect(team), 200);

    // 9. Connecting again creates a new account.
    const reconnected = expectStatus(await onboarding(team), 200);
    assert.notEqual(reconnected.providerAccountId, link.providerAccountId);
    assert.equal(reconnected.providerConnectStatus, 'pending');
  });

  test('the status reports the organisation default currency, lowercase', async () => {
    const team = await createTeam(t.app);
    expectStatus(
      await call(t.app, team.owner, 'PATCH', `/api/organisations/${team.organisationId}/billing`, {
        defaultCurrency: 'CHF',
      }),
      200,
    );
    assert.equal(expectStatus(await status(team), 200).defaultCurrency, 'chf');
  });

  test('the dashboard link works as soon as onboarding is done, even before a status read', async () => {
    const team = await createTeam(t.app);
    const link = expectStatus(await onboarding(team), 200);
    emulator.completeOnboarding(link.providerAccountId);
    expectStatus(await dashboard(team), 200);
    assert.equal(expectStatus(await status(team), 200).providerConnectStatus, 'active');
  });

  test('account creation carries an idempotency key: concurrent onboarding calls share one account', async () => {
    const team = await createTeam(t.app);
    const since = apiCalls();
    const [a, b] = await Promise.all([onboarding(team), onboarding(team, team.admin)]);
    const [first, second] = [expectStatus(a, 200), expectStatus(b, 200)];
    assert.equal(first.providerAccountId, second.providerAccountId);
    const creations = emulator
      .requests()
      .slice(since)
      .filter((r) => r.path === '/v1/accounts');
    assert.ok(creations.length >= 1);
    assert.ok(creations.every((r) => r.idempotencyKey && r.idempotencyKey === creations[0]!.idempotencyKey));
    // After a disconnect the next creation uses a new key.
    expectStatus(await disconnect(team), 200);
    const mark = apiCalls();
    expectStatus(await onboarding(team), 200);
    const next = emulator
      .requests()
      .slice(mark)
      .find((r) => r.path === '/v1/accounts');
    assert.ok(next?.idempotencyKey && next.idempotencyKey !== creations[0]!.idempotencyKey);
  });

  test('only OWNER and ADMIN reach the payment routes; MANAGER and MEMBER get 403, non-members 404', async () => {
    const team = await createTeam(t.app);
    const routes: Array<['GET' | 'POST', string]> = [
      ['GET', 'status'],
      ['POST', 'onboarding-link'],
      ['POST', 'dashboard-link'],
      ['POST', 'disconnect'],
    ];
    const since = apiCalls();
    for (const [method, action] of routes) {
      for (const user of [team.manager, team.member]) {
        expectStatus(await call(t.app, user, method, path(team, action)), 403, 'FORBIDDEN');
      }
      expectStatus(await call(t.app, team.outsider, method, path(team, action)), 404, 'NOT_FOUND');
      expectStatus(await call(t.app, team.outsider, method, path(999_999, action)), 404, 'NOT_FOUND');
    }
    assert.equal(apiCalls(), since, 'refused callers never reach the provider');
    assert.equal(expectStatus(await status(team, team.admin), 200).providerConnectStatus, 'not_connected');
  });

  test('the payment routes of an archived organisation answer 404', async () => {
    const team = await createTeam(t.app);
    expectStatus(await onboarding(team), 200);
    expectStatus(await call(t.app, team.owner, 'DELETE', `/api/organisations/${team.organisationId}`), 200);
    expectStatus(await status(team), 404, 'NOT_FOUND');
    expectStatus(await onboarding(team), 404, 'NOT_FOUND');
  });

  test('a failing provider answers 502 PROVIDER_ERROR with no secret in the body; safe calls were retried', async () => {
    const team = await createTeam(t.app);
    emulator.setBehaviour('fail');
    const since = apiCalls();
    const failed = await onboarding(team);
    expectStatus(failed, 502, 'PROVIDER_ERROR');
    assert.equal(failed.body.includes(SECRET), false);
    assert.equal(failed.body.includes('sk_'), false);
    assert.deepEqual(
      emulator
        .requests()
        .slice(since)
        .map((r) => `${r.method} ${r.path}`),
      ['POST /v1/accounts', 'POST /v1/accounts', 'POST /v1/accounts'],
      'account creation carries an idempotency key, so it is retried twice',
    );

    emulator.setBehaviour('normal');
    const link = expectStatus(await onboarding(team), 200);
    emulator.setBehaviour('fail');
    const statusFailed = await status(team);
    expectStatus(statusFailed, 502, 'PROVIDER_ERROR');
    assert.equal(statusFailed.body.includes(SECRET), false);
    expectStatus(await dashboard(team), 502, 'PROVIDER_ERROR');

    // One failure, then the retry of the GET succeeds.
    emulator.setBehaviour('fail', 1);
    assert.equal(expectStatus(await status(team), 200).providerAccountId, link.providerAccountId);
  });

  test('a hanging provider answers 504 PROVIDER_TIMEOUT within the configured timeout, without retrying', async () => {
    const quick = await createTestApp({
      PAYMENT_API_BASE: emulator.url,
      PAYMENT_SECRET_KEY: SECRET,
      PAYMENT_TIMEOUT_MS: '300',
    });
    try {
      const owner = await registerUser(quick.app);
      const org = await createOrganisation(quick.app, owner);
      emulator.setBehaviour('hang');
      const since = apiCalls();
      const started = Date.now();
      const timedOut = await call(quick.app, owner, 'POST', path(org.id, 'onboarding-link'));
      const elapsed = Date.now() - started;
      expectStatus(timedOut, 504, 'PROVIDER_TIMEOUT');
      assert.equal(timedOut.body.includes(SECRET), false);
      assert.ok(elapsed >= 250 && elapsed < 2000, `answered after ${elapsed} ms`);
      assert.equal(apiCalls() - since, 1, 'a timed-out call is not retried');

      emulator.setBehaviour('normal');
      expectStatus(await call(quick.app, owner, 'POST', path(org.id, 'onboarding-link')), 200);
      emulator.setBehaviour('hang');
      expectStatus(await call(quick.app, owner, 'GET', path(org.id, 'status')), 504, 'PROVIDER_TIMEOUT');
    } finally {
      emulator.setBehaviour('normal');
      await quick.close();
    }
  });

  test('a rejected secret key answers 502 without revealing the key', async () => {
    const wrong = await createTestApp({
      PAYMENT_API_BASE: emulator.url,
      PAYMENT_SECRET_KEY: 'sk_test_wrong_key_value',
    });
    try {
      const owner = await registerUser(wrong.app);
      const org = await createOrganisation(wrong.app, owner);
      const response = await call(wrong.app, owner, 'POST', path(org.id, 'onboarding-link'));
      expectStatus(response, 502, 'PROVIDER_ERROR');
      assert.equal(response.body.includes('sk_test_wrong_key_value'), false);
    } finally {
      await wrong.close();
    }
  });

  test('without a configured provider the status still answers, and provider calls answer 502', async () => {
    const bare = await createTestApp();
    try {
      const owner = await registerUser(bare.app);
      const org = await createOrganisation(bare.app, owner);
      assert.equal(
        expectStatus(await call(bare.app, owner, 'GET', path(org.id, 'status')), 200).providerConnectStatus,
        'not_connected',
      );
      expectStatus(
        await call(bare.app, owner, 'POST', path(org.id, 'onboarding-link')),
        502,
        'PROVIDER_ERROR',
      );
    } finally {
      await bare.close();
    }
  });
});

describe('payment provider HTTP adapter', () => {
  let emulator: PaymentEmulator;
  before(async () => {
    emulator = await startPaymentEmulator({ secretKey: SECRET });
  });
  after(() => emulator.close());

  const provider = (options: { timeoutMs?: number; fetch?: typeof fetch } = {}) =>
    createHttpPaymentProvider({
      apiBase: emulator.url,
      secretKey: SECRET,
      timeoutMs: options.timeoutMs ?? 2000,
      backoffMs: 5,
      ...(options.fetch ? { fetch: options.fetch } : {}),
    });

  test('maps the account: requirements, booleans, currency', async () => {
    const created = await provider().createAccount({ organisationId: 7, idempotencyKey: 'key-map-1' });
    assert.deepEqual(
      { ...created, id: 'x' },
      {
        id: 'x',
        chargesEnabled: false,
        payoutsEnabled: false,
        detailsSubmitted: false,
        currentlyDue: ['business_type', 'external_account', 'tos_acceptance.date', 'tos_acceptance.ip'],
        pendingVerification: [],
        disabledReason: 'requirements.past_due',
        defaultCurrency: 'usd',
      },
    );
    const replay = await provider().createAccount({ organisationId: 7, idempotencyKey: 'key-map-1' });
    assert.equal(replay.id, created.id, 'the same idempotency key answers the same account');
  });

  test('requests are form-encoded with a bearer key; POST without an idempotency key is never retried', async () => {
    const seen: Array<{ url: string; init: RequestInit }> = [];
    const recording: typeof fetch = async (input, init) => {
      seen.push({ url: String(input), init: init ?? {} });
      return fetch(input, init);
    };
    const account = await provider({ fetch: recording }).createAccount({
      organisationId: 3,
      idempotencyKey: 'key-form-1',
    });
    const headers = seen[0]!.init.headers as Record<string, string>;
    assert.equal(headers.authorization, `Bearer ${SECRET}`);
    assert.equal(headers['content-type'], 'application/x-www-form-urlencoded');
    assert.equal(headers['idempotency-key'], 'key-form-1');
    assert.equal(seen[0]!.init.body, 'type=express&metadata%5Borganisation_id%5D=3');

    emulator.setBehaviour('fail');
    const since = emulator.requests().length;
    await assert.rejects(
      provider().createOnboardingLink({
        accountId: account.id,
        refreshUrl: 'http://frontend.test/r',
        returnUrl: 'http://frontend.test/d',
      }),
      (error: PaymentProviderError) => httpStatusOf(error.code) === 502 && error.code === 'PROVIDER_ERROR',
    );
    assert.equal(emulator.requests().length - since, 1);
    await assert.rejects(provider().retrieveAccount(account.id), PaymentProviderError);
    assert.equal(emulator.requests().length - since, 4, 'a GET is tried three times');
    emulator.setBehaviour('normal');
  });

  test('network failures are retried for safe calls and reported as 502', async () => {
    let attempts = 0;
    const refusing: typeof fetch = async () => {
      attempts += 1;
      throw new TypeError('fetch failed');
    };
    await assert.rejects(
      provider({ fetch: refusing }).retrieveAccount('acct_1'),
      (error: PaymentProviderError) => {
        assert.equal(httpStatusOf(error.code), 502);
        assert.match(String((error.cause as Error).message), /failed after 3 attempt/);
        return true;
      },
    );
    assert.equal(attempts, 3);
  });

  test('whatever the provider echoes, the secret never reaches the error or its cause', async () => {
    const echoing: typeof fetch = async () =>
      new Response(
        JSON.stringify({
          error: { type: 'invalid_request_error', message: `Invalid API Key provided: ${SECRET}` },
        }),
        {
          status: 401,
          headers: { 'content-type': 'application/json' },
        },
      );
    await assert.rejects(
      provider({ fetch: echoing }).retrieveAccount('acct_1'),
      (error: PaymentProviderError) => {
        const cause = (error.cause as Error).message;
        assert.equal(error.message.includes(SECRET), false);
        assert.equal(cause.includes(SECRET), false);
        assert.match(cause, /HTTP 401 .*\[redacted\]/);
        return true;
      },
    );
  });

  test('an unexpected body is a provider error', async () => {
    const odd: typeof fetch = async () => new Response('<html>maintenance</html>', { status: 200 });
    await assert.rejects(
      provider({ fetch: odd }).retrieveAccount('acct_1'),
      (error: PaymentProviderError) => {
        return httpStatusOf(error.code) === 502;
      },
    );
  });
});

describe('payment emulator and configuration', () => {
  test('the emulator speaks the REST API: auth, idempotency, links, login links', async () => {
    const emulator = await startPaymentEmulator({ secretKey: SECRET, linkTtlSeconds: 0 });
    try {
      const api = (method: string, path: string, body?: string, headers: Record<string, string> = {}) =>
        fetch(`${emulator.url}${path}`, {
          method,
          headers: {
            authorization: `Bearer ${SECRET}`,
            'content-type': 'application/x-www-form-urlencoded',
            ...headers,
          },
          ...(body !== undefined ? { body } : {}),
        });
      assert.equal(
        (await fetch(`${emulator.url}/v1/accounts/acct_x`, { headers: { authorization: 'Bearer sk_other' } }))
          .status,
        401,
      );
      const created = await api('POST', '/v1/accounts', 'type=express', { 'idempotency-key': 'k1' });
      const account = await created.json();
      assert.equal(account.object, 'account');
      const replayed = await api('POST', '/v1/accounts', 'type=express', { 'idempotency-key': 'k1' });
      assert.equal(replayed.headers.get('idempotent-replayed'), 'true');
      assert.equal((await replayed.json()).id, account.id);
      const misused = await api('POST', '/v1/accounts', 'type=custom', { 'idempotency-key': 'k1' });
      assert.equal(misused.status, 400);
      assert.equal((await misused.json()).error.type, 'idempotency_error');
      assert.equal((await api('GET', '/v1/accounts/acct_missing')).status, 404);
      assert.equal((await api('POST', `/v1/accounts/${account.id}/login_links`, '')).status, 400);
      const missingUrls = await api(
        'POST',
        '/v1/account_links',
        `account=${account.id}&type=account_onboarding`,
      );
      assert.equal(missingUrls.status, 400);
      // An expired link (TTL 0, checked a second later) sends the user to refresh_url and completes nothing.
      const link = await (
        await api(
          'POST',
          '/v1/account_links',
          `account=${account.id}&type=account_onboarding&refresh_url=http%3A%2F%2Fx.test%2Fr&return_url=http%3A%2F%2Fx.test%2Fd`,
        )
      ).json();
      await new Promise((resolve) => setTimeout(resolve, 1100));
      const expired = await fetch(link.url, { redirect: 'manual' });
      assert.equal(expired.headers.get('location'), 'http://x.test/r');
      assert.equal((await (await api('GET', `/v1/accounts/${account.id}`)).json()).details_submitted, false);
      // The admin routes drive behaviour over HTTP too.
      const admin = await fetch(`${emulator.url}/__admin/behaviour`, {
        method: 'POST',
        body: JSON.stringify({ mode: 'fail', times: 1 }),
      });
      assert.equal(admin.status, 200);
      assert.equal((await api('GET', `/v1/accounts/${account.id}`)).status, 500);
      assert.equal((await api('GET', `/v1/accounts/${account.id}`)).status, 200);
      const completed = await fetch(`${emulator.url}/__admin/accounts/${account.id}/complete-onboarding`, {
        method: 'POST',
      });
      assert.equal((await completed.json()).charges_enabled, true);
      assert.equal((await api('POST', `/v1/accounts/${account.id}/login_links`, '')).status, 200);
    } finally {
      await emulator.close();
    }
  });

  test('npm start in development without a provider runs payments against an in-process emulator', async () => {
    const development = await startDevelopmentPayments(loadConfig({ NODE_ENV: 'development' }));
    try {
      const [emulator] = development.emulators;
      assert.ok(emulator);
      assert.equal(development.config.payment.apiBase, emulator.url);
      assert.ok(development.config.payment.secretKey);
      const probe = await fetch(`${development.config.payment.apiBase}/v1/accounts/acct_none`, {
        headers: { authorization: `Bearer ${development.config.payment.secretKey}` },
      });
      assert.equal(probe.status, 404);
    } finally {
      for (const emulator of development.emulators) await emulator.close();
    }
    const configured = await startDevelopmentPayments(
      loadConfig({
        NODE_ENV: 'development',
        PAYMENT_API_BASE: 'https://pay.example',
        PAYMENT_SECRET_KEY: 'sk_live_x',
      }),
    );
    assert.deepEqual(configured.emulators, []);
    assert.equal(configured.config.payment.apiBase, 'https://pay.example');
    assert.deepEqual((await startDevelopmentPayments(loadConfig({ NODE_ENV: 'test' }))).emulators, []);
  });

  test('configuration: the two payment variables come together, the timeout is bounded, production needs a provider', () => {
    assert.throws(
      () => loadConfig({ PAYMENT_API_BASE: 'https://pay.example' }),
      (error: ConfigError) => {
        return error instanceof ConfigError && /PAYMENT_SECRET_KEY/.test(error.message);
      },
    );
    assert.throws(() => loadConfig({ PAYMENT_SECRET_KEY: 'sk_x' }), /PAYMENT_API_BASE/);
    assert.throws(() => loadConfig({ PAYMENT_TIMEOUT_MS: 'soon' }), /PAYMENT_TIMEOUT_MS/);
    assert.throws(() => loadConfig({ PAYMENT_TIMEOUT_MS: '0' }), /PAYMENT_TIMEOUT_MS/);
    assert.equal(loadConfig({}).payment.timeoutMs, 10_000);
    assert.equal(loadConfig({ PAYMENT_TIMEOUT_MS: '2500' }).payment.timeoutMs, 2500);
    assert.throws(
      () =>
        loadConfig({
          NODE_ENV: 'production',
          JWT_SECRET: 'p'.repeat(40),
          OAUTH_JWT_SECRET: 'q'.repeat(40),
          ENCRYPTION_KEY: Buffer.alloc(32, 1).toString('base64'),
        }),
      /PAYMENT_API_BASE/,
    );
  });
});
