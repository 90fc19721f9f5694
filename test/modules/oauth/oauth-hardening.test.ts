import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { after, afterEach, before, describe, mock, test } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import * as oauth from 'oauth4webapi';
import { OAUTH_HOUSEKEEPING_JOB } from '../../../src/modules/oauth/service.js';
import { createTestApp, registerUser, type SignedInUser, type TestApp } from '../../helpers/app.js';
import { assertOAuthError, fetchThrough, pkce, REDIRECT_URI, tokenRequest } from '../../helpers/oauth.js';

/**
 * The OAuth server as an attacker tries it (issue 20; DECISIONS.md, OAuth hardening):
 * no error redirect to a client anyone could have registered, clients nobody approves
 * are deleted after 24 hours, registration is small and rate limited, and a Client ID
 * Metadata Document failure says nothing about how a host resolved. Time is a fake
 * clock (mock.timers on Date); the clean-up job is run through the job queue.
 */

const ORIGIN = 'https://service.test';
const HOUR = 3_600_000;

const registration = (redirectUris: string[] = [REDIRECT_URI], extra: Record<string, unknown> = {}) => ({
  client_name: 'Hardening test client',
  redirect_uris: redirectUris,
  ...extra,
});

function register(t: TestApp, body: unknown, remoteAddress = '127.0.0.1') {
  return t.app.inject({
    method: 'POST',
    url: '/api/oauth/register',
    remoteAddress,
    headers: { 'content-type': 'application/json' },
    payload: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

function errorCode(response: LightMyRequestResponse): string {
  return response.json().error.code;
}

describe('authorize never redirects a request error, even to a registered URI', () => {
  let t: TestApp;
  let as: oauth.AuthorizationServer;
  let client: oauth.Client;
  let fetchOptions: { [oauth.customFetch]: ReturnType<typeof fetchThrough> };
  const EVIL = 'https://evil.example/callback';

  before(async () => {
    t = await createTestApp({ PUBLIC_URL: ORIGIN, FRONTEND_URL: 'https://frontend.test' });
    fetchOptions = { [oauth.customFetch]: fetchThrough(t.app, ORIGIN) };
    const issuer = new URL(ORIGIN);
    as = await oauth.processDiscoveryResponse(
      issuer,
      await oauth.discoveryRequest(issuer, { algorithm: 'oauth2', ...fetchOptions }),
    );
    // Anyone may register any https:// redirect URI: this one is the attacker's.
    const registered = await oauth.processDynamicClientRegistrationResponse(
      await oauth.dynamicClientRegistrationRequest(
        as,
        { client_name: 'Evil', redirect_uris: [EVIL], token_endpoint_auth_method: 'none' },
        fetchOptions,
      ),
    );
    client = { client_id: registered.client_id, token_endpoint_auth_method: 'none' };
  });
  after(() => t.close());

  async function authorizeUrl(change: (query: URLSearchParams) => void) {
    const url = new URL(as.authorization_endpoint!);
    const challenge = await oauth.calculatePKCECodeChallenge(oauth.generateRandomCodeVerifier());
    url.searchParams.set('response_type', 'code');
    url.searchParams.set('client_id', client.client_id);
    url.searchParams.set('redirect_uri', EVIL);
    url.searchParams.set('code_challenge', challenge);
    url.searchParams.set('code_challenge_method', 'S256');
    url.searchParams.set('state', oauth.generateRandomState());
    change(url.searchParams);
    return `${url.pathname}${url.search}`;
  }

  test('a valid request goes to the consent page only', async () => {
    const response = await t.app.inject({ method: 'GET', url: await authorizeUrl(() => {}) });
    assert.equal(response.statusCode, 302);
    assert.match(String(response.headers.location), /^https:\/\/frontend\.test\/oauth\/consent\?/);
  });

  const malformed: Array<[string, (query: URLSearchParams) => void, string]> = [
    ['code_challenge_method=plain', (q) => q.set('code_challenge_method', 'plain'), 'code_challenge_method'],
    ['no code_challenge', (q) => q.delete('code_challenge'), 'code_challenge'],
    ['response_type=token', (q) => q.set('response_type', 'token'), 'response_type'],
    ['another resource', (q) => q.set('resource', 'https://evil.example/api'), 'resource'],
    ['a malformed scope', (q) => q.set('scope', ' '), 'scope'],
  ];
  for (const [what, change, parameter] of malformed) {
    test(`${what}: 400 without Location; HTML for a browser, the envelope for JSON`, async () => {
      const url = await authorizeUrl(change);
      const browser = await t.app.inject({
        method: 'GET',
        url,
        headers: { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' },
      });
      assert.equal(browser.statusCode, 400, browser.body);
      assert.equal(browser.headers.location, undefined);
      assert.match(String(browser.headers['content-type']), /^text\/html/);
      assert.doesNotMatch(browser.body, /evil\.example/);

      const api = await t.app.inject({ method: 'GET', url, headers: { accept: 'application/json' } });
      assert.equal(api.statusCode, 400, api.body);
      assert.equal(api.headers.location, undefined);
      assert.match(String(api.headers['content-type']), /^application\/json/);
      const body = api.json();
      assert.equal(body.success, false);
      assert.equal(body.error.code, 'VALIDATION_FAILED');
      assert.equal(body.error.details[0].path, `querystring.${parameter}`);
    });
  }
});

describe('unused dynamically registered clients expire after 24 hours', () => {
  let t: TestApp;
  let fetchOptions: { [oauth.customFetch]: ReturnType<typeof fetchThrough> };
  let as: oauth.AuthorizationServer;
  const start = Date.parse('2030-03-01T08:00:00.000Z');

  before(async () => {
    mock.timers.enable({ apis: ['Date'], now: start });
    t = await createTestApp({ PUBLIC_URL: ORIGIN, FRONTEND_URL: 'https://frontend.test' });
    fetchOptions = { [oauth.customFetch]: fetchThrough(t.app, ORIGIN) };
    const issuer = new URL(ORIGIN);
    as = await oauth.processDiscoveryResponse(
      issuer,
      await oauth.discoveryRequest(issuer, { algorithm: 'oauth2', ...fetchOptions }),
    );
  });
  after(async () => {
    mock.timers.reset();
    await t.close();
  });

  async function registerWithLibrary(name: string): Promise<oauth.Client> {
    const registered = await oauth.processDynamicClientRegistrationResponse(
      await oauth.dynamicClientRegistrationRequest(
        as,
        { client_name: name, redirect_uris: [REDIRECT_URI], token_endpoint_auth_method: 'none' },
        fetchOptions,
      ),
    );
    return { client_id: registered.client_id, token_endpoint_auth_method: 'none' };
  }

  /** Authorize (302 to consent), approve through the consent API, exchange the code: a completed authorization. */
  async function authorizeCompletely(user: SignedInUser, client: oauth.Client) {
    const verifier = oauth.generateRandomCodeVerifier();
    const challenge = await oauth.calculatePKCECodeChallenge(verifier);
    const state = oauth.generateRandomState();
    const query = new URLSearchParams({
      response_type: 'code',
      client_id: client.client_id,
      redirect_uri: REDIRECT_URI,
      code_challenge: challenge,
      code_challenge_method: 'S256',
      state,
    });
    const entry = await t.app.inject({ method: 'GET', url: `/api/oauth/authorize?${query}` });
    assert.equal(entry.statusCode, 302, entry.body);
    const decided = await t.app.inject({
      method: 'POST',
      url: '/api/oauth/consent',
      headers: user.auth,
      payload: {
        clientId: client.client_id,
        redirectUri: REDIRECT_URI,
        state,
        codeChallenge: challenge,
        approve: true,
        permissionGroupId: 'minimal',
      },
    });
    assert.equal(decided.statusCode, 200, decided.body);
    const params = oauth.validateAuthResponse(as, client, new URL(decided.json().redirectUrl), state);
    return oauth.processAuthorizationCodeResponse(
      as,
      client,
      await oauth.authorizationCodeGrantRequest(
        as,
        client,
        oauth.None(),
        params,
        REDIRECT_URI,
        verifier,
        fetchOptions,
      ),
    );
  }

  async function housekeeping() {
    await t.app.jobs.send(OAUTH_HOUSEKEEPING_JOB, {});
    await t.app.jobs.idle();
  }

  async function stored(clientId: string): Promise<boolean> {
    const row = await t.db.kysely
      .selectFrom('oauthClients')
      .select('clientId')
      .where('clientId', '=', clientId)
      .executeTakeFirst();
    return row !== undefined;
  }

  async function authorizeAnswer(clientId: string) {
    const query = new URLSearchParams({
      response_type: 'code',
      client_id: clientId,
      redirect_uri: REDIRECT_URI,
      code_challenge: pkce().challenge,
      code_challenge_method: 'S256',
    });
    return t.app.inject({
      method: 'GET',
      url: `/api/oauth/authorize?${query}`,
      headers: { accept: 'application/json' },
    });
  }

  test('a client nobody approved is deleted after 24 hours; an approved one stays', async () => {
    const unused = await registerWithLibrary('Never approved');
    const used = await registerWithLibrary('Approved');
    const user = await registerUser(t.app);
    const tokens = await authorizeCompletely(user, used);

    // Just before 24 hours nothing is deleted.
    mock.timers.setTime(start + 24 * HOUR - 1000);
    await housekeeping();
    assert.equal(await stored(unused.client_id), true);
    const late = await registerWithLibrary('Registered 23 hours later');

    mock.timers.setTime(start + 24 * HOUR + 1000);
    await housekeeping();
    assert.equal(await stored(unused.client_id), false);
    assert.equal(await stored(used.client_id), true);
    assert.equal(await stored(late.client_id), true, 'its own 24 hours are not over');

    // The deleted client is unknown everywhere; the approved one goes on working.
    const refused = await authorizeAnswer(unused.client_id);
    assert.equal(refused.statusCode, 400);
    assert.equal(refused.json().error.details[0].path, 'querystring.client_id');
    assertOAuthError(
      await tokenRequest(t.app, {
        grant_type: 'refresh_token',
        client_id: unused.client_id,
        refresh_token: 'x'.repeat(43),
      }),
      'invalid_client',
      401,
    );
    assert.equal((await authorizeAnswer(used.client_id)).statusCode, 302);
    const refreshed = await oauth.processRefreshTokenResponse(
      as,
      used,
      await oauth.refreshTokenGrantRequest(as, used, oauth.None(), tokens.refresh_token!, fetchOptions),
    );
    assert.ok(refreshed.access_token);

    mock.timers.setTime(start + 48 * HOUR);
    await housekeeping();
    assert.equal(await stored(late.client_id), false);
    assert.equal(await stored(used.client_id), true);
  });
});

describe('registration is bounded in size and rate', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp();
  });
  afterEach(() => mock.timers.reset());
  after(() => t.close());

  test('a body over 16 KiB is refused with 413 PAYLOAD_TOO_LARGE; just under is fine', async () => {
    // Unknown client metadata is accepted and ignored, so only the size decides.
    const big = await register(
      t,
      registration([REDIRECT_URI], { padding: 'x'.repeat(17 * 1024) }),
      '10.0.0.1',
    );
    assert.equal(big.statusCode, 413, big.body);
    assert.equal(errorCode(big), 'PAYLOAD_TOO_LARGE');
    const fits = await register(
      t,
      registration([REDIRECT_URI], { padding: 'x'.repeat(15 * 1024) }),
      '10.0.0.1',
    );
    assert.equal(fits.statusCode, 201, fits.body);
    const count = await t.db.kysely
      .selectFrom('oauthClients')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    assert.equal(Number(count.n), 1);
  });

  test('the 21st registration from one IP in an hour is 429 RATE_LIMITED; another IP, or the next hour, is not', async () => {
    mock.timers.enable({ apis: ['Date'], now: Date.parse('2030-04-01T10:00:00.000Z') });
    for (let i = 1; i <= 20; i++) {
      const response = await register(t, registration(), '10.0.0.2');
      assert.equal(response.statusCode, 201, `registration ${i}: ${response.body}`);
    }
    const limited = await register(t, registration(), '10.0.0.2');
    assert.equal(limited.statusCode, 429, limited.body);
    assert.equal(errorCode(limited), 'RATE_LIMITED');
    assert.ok(Number(limited.headers['retry-after']) > 60, String(limited.headers['retry-after']));
    assert.equal((await register(t, registration(), '10.0.0.3')).statusCode, 201);

    mock.timers.setTime(Date.parse('2030-04-01T10:59:00.000Z'));
    assert.equal((await register(t, registration(), '10.0.0.2')).statusCode, 429);
    mock.timers.setTime(Date.parse('2030-04-01T11:00:01.000Z'));
    assert.equal((await register(t, registration(), '10.0.0.2')).statusCode, 201);
  });

  test('REGISTRATION_RATE_LIMIT_MAX sets the hourly number', async () => {
    const small = await createTestApp({ REGISTRATION_RATE_LIMIT_MAX: '2' });
    try {
      assert.equal((await register(small, registration())).statusCode, 201);
      assert.equal((await register(small, registration())).statusCode, 201);
      assert.equal((await register(small, registration())).statusCode, 429);
    } finally {
      await small.close();
    }
  });
});

describe('Client ID Metadata Document errors say nothing about resolution or the network', () => {
  /** A loopback port with nothing listening. */
  async function closedPort(): Promise<number> {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    if (!address || typeof address === 'string') throw new Error('no port');
    await new Promise<void>((resolve) => server.close(() => resolve()));
    return address.port;
  }

  const detail = /127\.0\.0\.1|::1|resolves|ECONNREFUSED|ENOTFOUND|getaddrinfo|connect /;

  async function bothAnswers(t: TestApp, clientId: string) {
    const query = new URLSearchParams({
      response_type: 'code',
      client_id: clientId,
      redirect_uri: REDIRECT_URI,
      code_challenge: pkce().challenge,
      code_challenge_method: 'S256',
    });
    const url = `/api/oauth/authorize?${query}`;
    const page = await t.app.inject({ method: 'GET', url, headers: { accept: 'text/html' } });
    const envelope = await t.app.inject({ method: 'GET', url, headers: { accept: 'application/json' } });
    for (const response of [page, envelope]) {
      assert.equal(response.statusCode, 400, response.body);
      assert.equal(response.headers.location, undefined);
    }
    return { page: page.body, envelope: envelope.body };
  }

  test('a name that resolves to a loopback address: refused, the address not named', async () => {
    const t = await createTestApp();
    try {
      const { page, envelope } = await bothAnswers(t, `https://localhost:${await closedPort()}/client.json`);
      for (const body of [page, envelope]) {
        assert.match(body, /could not be fetched/);
        assert.doesNotMatch(body, detail);
      }
    } finally {
      await t.close();
    }
  });

  test('a refused connection: refused, the socket error not echoed', async () => {
    const t = await createTestApp({ OAUTH_CIMD_ALLOW_PRIVATE: 'true' });
    try {
      const port = await closedPort();
      const { page, envelope } = await bothAnswers(t, `http://127.0.0.1:${port}/client.json`);
      for (const body of [page, envelope]) {
        assert.match(body, /could not be fetched/);
        assert.doesNotMatch(body, detail);
        assert.doesNotMatch(body, new RegExp(`:${port}`));
      }
    } finally {
      await t.close();
    }
  });
});
