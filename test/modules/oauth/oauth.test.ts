import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { SignJWT } from 'jose';
import { loadConfig } from '../../../src/config.js';
import { createTestApp, registerUser, type SignedInUser, TEST_ENV, type TestApp } from '../../helpers/app.js';
import { mcpInitialize } from '../../helpers/mcp.js';
import {
  approve,
  assertOAuthError,
  authorize,
  authorizeQuery,
  type Client,
  consent,
  decodeJwt,
  grant,
  pkce,
  REDIRECT_URI,
  registerClient,
  tokenRequest,
} from '../../helpers/oauth.js';

/**
 * The OAuth 2.1 server over HTTP (app.inject): discovery, registration, the
 * authorization endpoint, the consent API, the token endpoint, and the separation
 * of its access tokens from login JWTs. On SQLite by default, on PostgreSQL under
 * `npm run test:pg`.
 */

const ISSUER = 'http://service.test';
const MCP_RESOURCE = `${ISSUER}/api/mcp`;
const CHALLENGE = `Bearer realm="Reservation Service MCP API", resource_metadata="${ISSUER}/.well-known/oauth-protected-resource"`;

describe('OAuth server', () => {
  let t: TestApp;
  let user: SignedInUser;

  before(async () => {
    // Registration and authorize have rate limits of their own; this file makes more than they allow.
    t = await createTestApp({ PUBLIC_RATE_LIMIT_MAX: '100000', REGISTRATION_RATE_LIMIT_MAX: '100000' });
    user = await registerUser(t.app, 'Ada Lovelace');
  });
  after(() => t.close());

  describe('discovery', () => {
    test('authorization server metadata: exactly SPEC.md fields plus the two additions, from PUBLIC_URL', async () => {
      const response = await t.app.inject({ method: 'GET', url: '/.well-known/oauth-authorization-server' });
      assert.equal(response.statusCode, 200);
      assert.deepEqual(response.json(), {
        issuer: ISSUER,
        authorization_endpoint: `${ISSUER}/api/oauth/authorize`,
        token_endpoint: `${ISSUER}/api/oauth/token`,
        registration_endpoint: `${ISSUER}/api/oauth/register`,
        response_types_supported: ['code'],
        grant_types_supported: ['authorization_code', 'refresh_token'],
        code_challenge_methods_supported: ['S256'],
        token_endpoint_auth_methods_supported: ['none'],
        scopes_supported: ['mcp:read', 'mcp:write'],
        authorization_response_iss_parameter_supported: true,
        client_id_metadata_document_supported: true,
      });
    });

    test('protected resource metadata at both paths, and the /api/mcp 401 points to it', async () => {
      const expected = {
        resource: MCP_RESOURCE,
        authorization_servers: [ISSUER],
        bearer_methods_supported: ['header'],
        resource_documentation: `${ISSUER}/api/docs`,
      };
      for (const url of [
        '/.well-known/oauth-protected-resource',
        '/.well-known/oauth-protected-resource/api/mcp',
      ]) {
        const response = await t.app.inject({
          method: 'GET',
          url,
          headers: { origin: 'https://host.example' },
        });
        assert.equal(response.statusCode, 200, url);
        assert.deepEqual(response.json(), expected);
        // Browser-based MCP hosts read discovery from any origin.
        assert.equal(response.headers['access-control-allow-origin'], '*');
      }
      const unauthenticated = await t.app.inject({ method: 'POST', url: '/api/mcp', payload: {} });
      assert.equal(unauthenticated.statusCode, 401);
      assert.equal(unauthenticated.headers['www-authenticate'], CHALLENGE);
    });
  });

  describe('registration (RegisterClientDto)', () => {
    test('201: a public client, no secret, the fixed grant and response types, no-store', async () => {
      const response = await t.app.inject({
        method: 'POST',
        url: '/api/oauth/register',
        payload: {
          client_name: 'Claude Desktop',
          client_description: 'An MCP host',
          client_logo_url: 'https://host.example/logo.png',
          client_homepage_url: 'https://host.example/',
          redirect_uris: ['https://host.example/cb', 'http://localhost:33418/cb', 'http://127.0.0.1/cb'],
        },
      });
      assert.equal(response.statusCode, 201, response.body);
      assert.equal(response.headers['cache-control'], 'no-store');
      const body = response.json();
      assert.match(body.client_id, /^oc_[A-Za-z0-9_-]{24}$/);
      assert.equal(body.client_secret, undefined);
      assert.deepEqual(
        { ...body, client_id: undefined, client_id_issued_at: undefined },
        {
          client_id: undefined,
          client_id_issued_at: undefined,
          client_name: 'Claude Desktop',
          client_description: 'An MCP host',
          client_logo_url: 'https://host.example/logo.png',
          client_homepage_url: 'https://host.example/',
          redirect_uris: ['https://host.example/cb', 'http://localhost:33418/cb', 'http://127.0.0.1/cb'],
          token_endpoint_auth_method: 'none',
          grant_types: ['authorization_code', 'refresh_token'],
          response_types: ['code'],
        },
      );
      assert.ok(Math.abs(body.client_id_issued_at - Date.now() / 1000) < 60);
    });

    test('unknown RFC 7591 metadata is accepted and ignored; supported values of the known ones are accepted', async () => {
      const response = await t.app.inject({
        method: 'POST',
        url: '/api/oauth/register',
        payload: {
          client_name: 'Generous',
          redirect_uris: [REDIRECT_URI],
          software_id: 'x',
          application_type: 'native',
          scope: 'mcp:read',
          contacts: ['a@example.test'],
          token_endpoint_auth_method: 'none',
          grant_types: ['authorization_code', 'refresh_token'],
          response_types: ['code'],
          logo_uri: 'https://generous.example/logo.png',
          client_uri: 'https://generous.example/',
        },
      });
      assert.equal(response.statusCode, 201, response.body);
      const body = response.json();
      assert.equal(body.software_id, undefined);
      assert.equal(body.client_logo_url, 'https://generous.example/logo.png');
      assert.equal(body.client_homepage_url, 'https://generous.example/');
    });

    const refused: Array<[string, Record<string, unknown>, string]> = [
      ['plain http off loopback', { redirect_uris: ['http://example.test/cb'] }, 'body.redirect_uris.0'],
      [
        'a look-alike of localhost',
        { redirect_uris: ['http://localhost.evil.test/cb'] },
        'body.redirect_uris.0',
      ],
      ['IPv6 loopback (not in SPEC.md)', { redirect_uris: ['http://[::1]:8080/cb'] }, 'body.redirect_uris.0'],
      ['a custom scheme', { redirect_uris: ['com.example.app:/cb'] }, 'body.redirect_uris.0'],
      ['a relative URI', { redirect_uris: ['/cb'] }, 'body.redirect_uris.0'],
      ['a fragment', { redirect_uris: ['https://host.example/cb#x'] }, 'body.redirect_uris.0'],
      ['user information', { redirect_uris: ['https://me:pw@host.example/cb'] }, 'body.redirect_uris.0'],
      ['no redirect URI', { redirect_uris: [] }, 'body.redirect_uris'],
      [
        'eleven redirect URIs',
        { redirect_uris: Array.from({ length: 11 }, (_, i) => `https://host.example/cb${i}`) },
        'body.redirect_uris',
      ],
      ['a repeated redirect URI', { redirect_uris: [REDIRECT_URI, REDIRECT_URI] }, 'body.redirect_uris'],
      ['a relative logo URL', { client_logo_url: '/logo.png' }, 'body.client_logo_url'],
      ['a javascript: homepage', { client_homepage_url: 'javascript:alert(1)' }, 'body.client_homepage_url'],
      ['a name over 200 characters', { client_name: 'x'.repeat(201) }, 'body.client_name'],
      ['no name', { client_name: undefined }, 'body.client_name'],
      [
        'a secret-based auth method',
        { token_endpoint_auth_method: 'client_secret_basic' },
        'body.token_endpoint_auth_method',
      ],
      ['an unsupported grant', { grant_types: ['client_credentials'] }, 'body.grant_types.0'],
      ['grants without authorization_code', { grant_types: ['refresh_token'] }, 'body.grant_types'],
      ['an unsupported response type', { response_types: ['token'] }, 'body.response_types.0'],
    ];
    for (const [what, change, path] of refused) {
      test(`400 VALIDATION_FAILED for ${what}`, async () => {
        const response = await t.app.inject({
          method: 'POST',
          url: '/api/oauth/register',
          payload: { client_name: 'Bad', redirect_uris: [REDIRECT_URI], ...change },
        });
        assert.equal(response.statusCode, 400, response.body);
        const body = response.json();
        assert.equal(body.success, false);
        assert.equal(body.error.code, 'VALIDATION_FAILED');
        assert.ok(
          body.error.details.some((d: { path: string }) => d.path === path),
          `${path} in ${JSON.stringify(body.error.details)}`,
        );
      });
    }

    test('exactly ten redirect URIs and a 200-character name are fine', async () => {
      const client = await registerClient(t.app, {
        client_name: 'n'.repeat(200),
        redirect_uris: Array.from({ length: 10 }, (_, i) => `https://host.example/cb${i}`),
      });
      assert.equal(client.redirect_uris.length, 10);
    });
  });

  describe('authorization endpoint', () => {
    let client: Client;
    const { challenge } = pkce();
    before(async () => {
      client = await registerClient(t.app, {
        redirect_uris: [REDIRECT_URI, 'https://host.example/cb?tenant=7'],
      });
    });

    test('success: 302 to FRONTEND_URL/oauth/consent with exactly its own query', async () => {
      const query = authorizeQuery(client, {
        challenge,
        state: 'a b&c',
        extra: { scope: 'mcp:read mcp:write', resource: MCP_RESOURCE, prompt: 'consent' },
      });
      const response = await authorize(t.app, query);
      assert.equal(response.statusCode, 302, response.body);
      assert.equal(response.headers.location, `http://frontend.test/oauth/consent?${query}`);
      assert.equal(response.headers['cache-control'], 'no-store');
    });

    // Every request error: 400, never a redirect (DECISIONS.md, OAuth hardening), naming the parameter.
    const refused: Array<[string, (q: URLSearchParams) => void, string, RegExp]> = [
      ['an unknown client', (q) => q.set('client_id', 'oc_unknown'), 'client_id', /registered client/],
      ['no client_id', (q) => q.delete('client_id'), 'client_id', /required/],
      ['client_id twice', (q) => q.append('client_id', 'oc_other'), 'client_id', /more than once/],
      [
        'an unregistered redirect URI',
        (q) => q.set('redirect_uri', 'https://evil.example/cb'),
        'redirect_uri',
        /not registered/,
      ],
      [
        'a redirect URI with a trailing slash added',
        (q) => q.set('redirect_uri', `${REDIRECT_URI}/`),
        'redirect_uri',
        /exactly/,
      ],
      [
        'another loopback port',
        (q) => q.set('redirect_uri', 'http://127.0.0.1:8766/callback'),
        'redirect_uri',
        /not registered/,
      ],
      ['no redirect URI', (q) => q.delete('redirect_uri'), 'redirect_uri', /required/],
      ['redirect_uri twice', (q) => q.append('redirect_uri', REDIRECT_URI), 'redirect_uri', /more than once/],
      [
        'an unknown client even with every other parameter wrong',
        (q) => {
          q.set('client_id', 'oc_unknown');
          q.set('code_challenge_method', 'plain');
        },
        'code_challenge_method',
        /S256/,
      ],
      ['plain PKCE', (q) => q.set('code_challenge_method', 'plain'), 'code_challenge_method', /S256/],
      ['no code_challenge_method', (q) => q.delete('code_challenge_method'), 'code_challenge_method', /S256/],
      ['no code_challenge', (q) => q.delete('code_challenge'), 'code_challenge', /PKCE/],
      ['a malformed challenge', (q) => q.set('code_challenge', 'short'), 'code_challenge', /43/],
      ['response_type token', (q) => q.set('response_type', 'token'), 'response_type', /code/],
      ['no response_type', (q) => q.delete('response_type'), 'response_type', /required/],
      ['another resource', (q) => q.set('resource', 'https://other.example/api'), 'resource', /RFC 8707/],
      [
        'two resources',
        (q) => {
          q.append('resource', MCP_RESOURCE);
          q.append('resource', MCP_RESOURCE);
        },
        'resource',
        /one resource/,
      ],
      ['a malformed scope', (q) => q.set('scope', 'a  b'), 'scope', /RFC 6749 §3\.3/],
      [
        'code_challenge twice',
        (q) => q.append('code_challenge', challenge),
        'code_challenge',
        /more than once/,
      ],
      ['state twice', (q) => q.append('state', 'again'), 'state', /more than once/],
      ['a state too long', (q) => q.set('state', 's'.repeat(2049)), 'state', /2048/],
    ];
    for (const [what, change, parameter, message] of refused) {
      test(`${what}: 400 without a redirect, an HTML page or the envelope by Accept`, async () => {
        const query = authorizeQuery(client, { challenge, state: 'xyz' });
        change(query);
        const page = await authorize(t.app, query);
        assert.equal(page.statusCode, 400, page.body);
        assert.equal(page.headers.location, undefined);
        assert.equal(page.headers['cache-control'], 'no-store');
        assert.match(String(page.headers['content-type']), /^text\/html/);
        assert.match(page.body, /Authorization request refused/);
        assert.match(page.body, message);
        assert.doesNotMatch(page.body, /evil\.example/);

        const envelope = await t.app.inject({
          method: 'GET',
          url: `/api/oauth/authorize?${query}`,
          headers: { accept: 'application/json' },
        });
        assert.equal(envelope.statusCode, 400, envelope.body);
        assert.equal(envelope.headers.location, undefined);
        const { error } = envelope.json();
        assert.equal(error.code, 'VALIDATION_FAILED');
        assert.deepEqual(
          error.details.map((d: { path: string }) => d.path),
          [`querystring.${parameter}`],
        );
        assert.match(error.details[0].message, message);
      });
    }

    test('the same request error with a registered redirect URI that has its own query: no redirect', async () => {
      const query = authorizeQuery(client, { challenge, redirectUri: 'https://host.example/cb?tenant=7' });
      query.set('code_challenge_method', 'plain');
      const response = await authorize(t.app, query);
      assert.equal(response.statusCode, 400);
      assert.equal(response.headers.location, undefined);
    });

    test('Accept decides between the page and the envelope', async () => {
      const query = authorizeQuery(client, { challenge });
      query.set('code_challenge_method', 'plain');
      const cases: Array<[string | undefined, 'html' | 'json']> = [
        [undefined, 'html'],
        ['*/*', 'html'],
        ['text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8', 'html'],
        ['application/json, text/html', 'html'],
        ['application/json', 'json'],
        ['application/json, text/plain, */*', 'json'],
        ['text/html;q=0.5, application/json', 'json'],
        ['application/*', 'json'],
        ['application/json;q=0, */*', 'html'],
      ];
      for (const [accept, kind] of cases) {
        const response = await t.app.inject({
          method: 'GET',
          url: `/api/oauth/authorize?${query}`,
          headers: accept === undefined ? {} : { accept },
        });
        assert.equal(response.statusCode, 400, String(accept));
        assert.equal(response.headers.location, undefined);
        if (kind === 'html') assert.match(String(response.headers['content-type']), /^text\/html/, accept);
        else assert.equal(response.json().error.code, 'VALIDATION_FAILED', accept);
      }
    });
  });

  describe('consent API', () => {
    let client: Client;
    const { challenge } = pkce();
    before(async () => {
      client = await registerClient(t.app, {
        client_name: 'Consent Host',
        client_description: 'Plans your week',
        logo_uri: 'https://consent.example/logo.png',
        redirect_uris: [REDIRECT_URI],
      });
    });
    const detailsUrl = (change: (q: URLSearchParams) => void = () => {}) => {
      const query = new URLSearchParams({
        client_id: client.client_id,
        redirect_uri: REDIRECT_URI,
        code_challenge: challenge,
        code_challenge_method: 'S256',
        response_type: 'code',
      });
      change(query);
      return `/api/oauth/consent-details?${query}`;
    };

    test('consent-details: client display info and only the groups the person may assign', async () => {
      const response = await t.app.inject({ method: 'GET', url: detailsUrl(), headers: user.auth });
      assert.equal(response.statusCode, 200, response.body);
      const body = response.json();
      assert.deepEqual(
        { ...body, availablePermissionGroups: undefined },
        {
          clientId: client.client_id,
          clientName: 'Consent Host',
          clientDescription: 'Plans your week',
          clientLogoUrl: 'https://consent.example/logo.png',
          clientHomepageUrl: null,
          redirectUri: REDIRECT_URI,
          availablePermissionGroups: undefined,
        },
      );
      const ids = body.availablePermissionGroups.map((g: { id: string }) => g.id);
      assert.ok(ids.includes('minimal') && !ids.includes('full_mcp_admin'), ids.join());
      for (const group of body.availablePermissionGroups) {
        assert.deepEqual(Object.keys(group).sort(), [
          'actionKeys',
          'canAssign',
          'description',
          'highlights',
          'id',
          'label',
          'requiresGlobalAdmin',
        ]);
        assert.equal(group.canAssign, true);
      }
      const admin = await registerUser(t.app);
      await t.app.services.auth.updateUserByEmail(admin.email, { isGlobalAdmin: true });
      const adminView = await t.app.inject({ method: 'GET', url: detailsUrl(), headers: admin.auth });
      assert.ok(
        adminView.json().availablePermissionGroups.some((g: { id: string }) => g.id === 'full_mcp_admin'),
      );
    });

    test('the consent API takes only the login JWT: none, an API key, an OAuth token are 401', async () => {
      const key = (
        await t.app.inject({
          method: 'POST',
          url: '/api/auth/api-keys',
          headers: user.auth,
          payload: { label: 'consent' },
        })
      ).json().key;
      const { tokens } = await grant(t.app, user);
      for (const headers of [
        {},
        { 'x-api-key': key },
        { authorization: `ApiKey ${key}` },
        { authorization: `Bearer ${tokens.access_token}` },
      ]) {
        const details = await t.app.inject({ method: 'GET', url: detailsUrl(), headers });
        assert.equal(details.statusCode, 401, JSON.stringify(headers));
        const decision = await t.app.inject({
          method: 'POST',
          url: '/api/oauth/consent',
          headers,
          payload: {
            clientId: client.client_id,
            redirectUri: REDIRECT_URI,
            codeChallenge: challenge,
            approve: false,
          },
        });
        assert.equal(decision.statusCode, 401);
        assert.equal(decision.json().error.code, 'UNAUTHENTICATED');
      }
    });

    const invalid: Array<[string, (q: URLSearchParams) => void, string]> = [
      ['plain PKCE', (q) => q.set('code_challenge_method', 'plain'), 'querystring.code_challenge_method'],
      ['response_type token', (q) => q.set('response_type', 'token'), 'querystring.response_type'],
      ['an unknown client', (q) => q.set('client_id', 'oc_nope'), 'querystring.client_id'],
      [
        'an unregistered redirect URI',
        (q) => q.set('redirect_uri', 'https://evil.example/'),
        'querystring.redirect_uri',
      ],
      ['a malformed challenge', (q) => q.set('code_challenge', 'abc'), 'querystring.code_challenge'],
      ['another resource', (q) => q.set('resource', 'https://other.example/'), 'querystring.resource'],
    ];
    for (const [what, change, path] of invalid) {
      test(`consent-details: 400 VALIDATION_FAILED for ${what}`, async () => {
        const response = await t.app.inject({ method: 'GET', url: detailsUrl(change), headers: user.auth });
        assert.equal(response.statusCode, 400, response.body);
        assert.equal(response.json().error.code, 'VALIDATION_FAILED');
        assert.ok(
          response.json().error.details.some((d: { path: string }) => d.path === path),
          response.body,
        );
      });
    }

    test('deny: error=access_denied with state and iss, no code', async () => {
      const response = await consent(t.app, user, {
        clientId: client.client_id,
        redirectUri: REDIRECT_URI,
        codeChallenge: challenge,
        state: 'keep-me',
        approve: false,
      });
      assert.equal(response.statusCode, 200, response.body);
      const to = new URL(response.json().redirectUrl);
      assert.equal(`${to.origin}${to.pathname}`, REDIRECT_URI);
      assert.equal(to.searchParams.get('error'), 'access_denied');
      assert.equal(to.searchParams.get('state'), 'keep-me');
      assert.equal(to.searchParams.get('iss'), ISSUER);
      assert.equal(to.searchParams.has('code'), false);
    });

    for (const group of ['full_mcp_admin', 'no_such_group', '']) {
      test(`approving with an unassignable group (${group || 'empty'}): error=access_denied, no agent`, async () => {
        const before = (await t.app.inject({ method: 'GET', url: '/api/agents', headers: user.auth })).json();
        const response = await consent(t.app, user, {
          clientId: client.client_id,
          redirectUri: REDIRECT_URI,
          codeChallenge: challenge,
          permissionGroupId: group,
        });
        assert.equal(response.statusCode, 200, response.body);
        const to = new URL(response.json().redirectUrl);
        assert.equal(to.searchParams.get('error'), 'access_denied');
        assert.equal(to.searchParams.get('state'), 'st-1');
        assert.equal(to.searchParams.get('iss'), ISSUER);
        const afterwards = (
          await t.app.inject({ method: 'GET', url: '/api/agents', headers: user.auth })
        ).json();
        assert.equal(afterwards.length, before.length);
      });
    }

    test('approve: a code with state and iss; the agent is named after the client and reused on re-approval', async () => {
      const person = await registerUser(t.app);
      const params = await approve(t.app, person, client, {
        challenge,
        state: 'abc',
        permissionGroupId: 'calendar_only',
      });
      assert.match(params.get('code') ?? '', /^[A-Za-z0-9_-]{43}$/);
      assert.equal(params.get('state'), 'abc');
      assert.equal(params.get('iss'), ISSUER);
      const agents = (await t.app.inject({ method: 'GET', url: '/api/agents', headers: person.auth })).json();
      assert.equal(agents.length, 1);
      assert.equal(agents[0].name, 'Consent Host');
      assert.equal(agents[0].oauthClientId, client.client_id);
      assert.equal(agents[0].permissionGroupId, 'calendar_only');

      // Revoked (disabled) and approved again: the same agent comes back, with the new group.
      await t.app.inject({ method: 'DELETE', url: `/api/agents/${agents[0].id}`, headers: person.auth });
      await approve(t.app, person, client, { challenge, permissionGroupId: 'minimal' });
      const again = (await t.app.inject({ method: 'GET', url: '/api/agents', headers: person.auth })).json();
      assert.equal(again.length, 1);
      assert.equal(again[0].id, agents[0].id);
      assert.equal(again[0].status, 'active');
      assert.equal(again[0].permissionGroupId, 'minimal');
    });

    test('the consent body refuses unknown fields and an unregistered redirect URI (envelope, no redirect)', async () => {
      const unknown = await t.app.inject({
        method: 'POST',
        url: '/api/oauth/consent',
        headers: user.auth,
        payload: {
          clientId: client.client_id,
          redirectUri: REDIRECT_URI,
          codeChallenge: challenge,
          approve: true,
          extra: 1,
        },
      });
      assert.equal(unknown.statusCode, 400);
      assert.equal(unknown.json().error.code, 'VALIDATION_FAILED');
      const evil = await consent(t.app, user, {
        clientId: client.client_id,
        redirectUri: 'https://evil.example/cb',
        codeChallenge: challenge,
        approve: false,
      });
      assert.equal(evil.statusCode, 400);
      assert.equal(evil.json().error.details[0].path, 'body.redirectUri');
    });
  });

  describe('token endpoint: authorization_code', () => {
    let client: Client;
    before(async () => {
      client = await registerClient(t.app);
    });

    async function freshCode(state = 's') {
      const { verifier, challenge } = pkce();
      const params = await approve(t.app, user, client, { challenge, state });
      return { code: params.get('code')!, verifier };
    }
    const exchange = (code: string, verifier: string, extra: Record<string, string> = {}, json = false) =>
      tokenRequest(
        t.app,
        {
          grant_type: 'authorization_code',
          client_id: client.client_id,
          code,
          redirect_uri: REDIRECT_URI,
          code_verifier: verifier,
          ...extra,
        },
        { json },
      );

    test('form-encoded: TokenResponse, no-store, and an access token with the decided claims', async () => {
      const { code, verifier } = await freshCode();
      const response = await exchange(code, verifier, { resource: MCP_RESOURCE });
      assert.equal(response.statusCode, 200, response.body);
      assert.equal(response.headers['cache-control'], 'no-store');
      assert.equal(response.headers.pragma, 'no-cache');
      const body = response.json();
      assert.deepEqual(Object.keys(body).sort(), [
        'access_token',
        'expires_in',
        'refresh_token',
        'scope',
        'token_type',
      ]);
      assert.equal(body.token_type, 'Bearer');
      assert.equal(body.expires_in, 3600);
      assert.equal(body.scope, 'minimal');
      assert.match(body.refresh_token, /^[A-Za-z0-9_-]{43}$/);
      const { header, payload } = decodeJwt(body.access_token);
      assert.equal(header.alg, 'HS256');
      assert.equal(header.typ, 'at+jwt');
      assert.equal(payload.iss, ISSUER);
      assert.equal(payload.aud, MCP_RESOURCE);
      assert.equal(payload.client_id, client.client_id);
      assert.equal(payload.scope, 'minimal');
      assert.equal(Number(payload.exp) - Number(payload.iat), 3600);
      const agents = (await t.app.inject({ method: 'GET', url: '/api/agents', headers: user.auth })).json();
      assert.equal(
        payload.sub,
        String(agents.find((a: { oauthClientId: string }) => a.oauthClientId === client.client_id).id),
      );
      assert.equal((await mcpInitialize(t.app, body.access_token)).statusCode, 200);
    });

    test('a JSON body works the same', async () => {
      const { code, verifier } = await freshCode();
      const response = await exchange(code, verifier, {}, true);
      assert.equal(response.statusCode, 200, response.body);
    });

    test('wrong verifier, redirect URI or client: invalid_grant, and the code stays usable by its owner', async () => {
      const { code, verifier } = await freshCode();
      const other = await registerClient(t.app);
      assert.match(assertOAuthError(await exchange(code, pkce().verifier), 'invalid_grant'), /PKCE/);
      assert.match(
        assertOAuthError(
          await exchange(code, verifier, { redirect_uri: `${REDIRECT_URI}/` }),
          'invalid_grant',
        ),
        /redirect_uri/,
      );
      assert.match(
        assertOAuthError(await exchange(code, verifier, { client_id: other.client_id }), 'invalid_grant'),
        /another client/,
      );
      assert.equal((await exchange(code, verifier)).statusCode, 200);
    });

    test('a code past its 60 seconds: invalid_grant', async () => {
      const { code, verifier } = await freshCode();
      await t.db.kysely
        .updateTable('oauthAuthorizationCodes')
        .set({ expiresAt: new Date(Date.now() - 1000).toISOString() })
        .where('consumedAt', 'is', null)
        .execute();
      assert.match(assertOAuthError(await exchange(code, verifier), 'invalid_grant'), /expired/);
    });

    test('codes live 60 seconds', async () => {
      const before = Date.now();
      await freshCode();
      const row = await t.db.kysely
        .selectFrom('oauthAuthorizationCodes')
        .select(['expiresAt', 'createdAt'])
        .orderBy('id', 'desc')
        .executeTakeFirstOrThrow();
      assert.equal(Date.parse(row.expiresAt) - Date.parse(row.createdAt), 60_000);
      assert.ok(Date.parse(row.createdAt) >= before - 1000);
    });

    test('codes are stored only as hashes', async () => {
      const { code } = await freshCode();
      const rows = await t.db.kysely.selectFrom('oauthAuthorizationCodes').select('codeHash').execute();
      assert.ok(rows.every((row) => row.codeHash !== code));
    });

    test('a reused code: invalid_grant, and the tokens issued from it are revoked', async () => {
      const { code, verifier } = await freshCode();
      const first = await exchange(code, verifier);
      assert.equal(first.statusCode, 200);
      const tokens = first.json();
      assert.equal((await mcpInitialize(t.app, tokens.access_token)).statusCode, 200);
      assert.match(assertOAuthError(await exchange(code, verifier), 'invalid_grant'), /already used/);
      const refresh = await tokenRequest(t.app, {
        grant_type: 'refresh_token',
        client_id: client.client_id,
        refresh_token: tokens.refresh_token,
      });
      assertOAuthError(refresh, 'invalid_grant');
      const mcp = await mcpInitialize(t.app, tokens.access_token);
      assert.equal(mcp.statusCode, 401);
      assert.equal(mcp.headers['www-authenticate'], `${CHALLENGE}, error="invalid_token"`);
    });

    test('two concurrent exchanges of one code: exactly one succeeds, and its tokens die with the replay', async () => {
      for (let round = 0; round < 5; round++) {
        const { code, verifier } = await freshCode();
        const answers = await Promise.all([
          exchange(code, verifier),
          exchange(code, verifier),
          exchange(code, verifier),
        ]);
        const ok = answers.filter((a) => a.statusCode === 200);
        assert.equal(ok.length, 1, answers.map((a) => a.body).join('\n'));
        for (const refused of answers.filter((a) => a.statusCode !== 200))
          assertOAuthError(refused, 'invalid_grant');
        const tokens = ok[0]!.json();
        assert.equal((await mcpInitialize(t.app, tokens.access_token)).statusCode, 401);
      }
    });

    const requestErrors: Array<[string, Record<string, string | undefined>, string, number?]> = [
      ['no grant_type', { grant_type: undefined }, 'invalid_request'],
      ['an unknown grant_type', { grant_type: 'client_credentials' }, 'unsupported_grant_type'],
      ['the implicit-style password grant', { grant_type: 'password' }, 'unsupported_grant_type'],
      ['no client_id', { client_id: undefined }, 'invalid_request'],
      ['an unknown client_id', { client_id: 'oc_nobody' }, 'invalid_client', 401],
      ['a client_secret', { client_secret: 'x' }, 'invalid_client', 401],
      ['no code', { code: undefined }, 'invalid_request'],
      ['no redirect_uri', { redirect_uri: undefined }, 'invalid_request'],
      ['no code_verifier', { code_verifier: undefined }, 'invalid_request'],
      ['a short code_verifier', { code_verifier: 'abc' }, 'invalid_request'],
      ['an unknown code', { code: 'A'.repeat(43) }, 'invalid_grant'],
      ['another resource', { resource: 'https://other.example/api' }, 'invalid_target'],
    ];
    for (const [what, change, error, status] of requestErrors) {
      test(`${what}: ${error}${status ? ` (${status})` : ''}`, async () => {
        const { verifier } = pkce();
        const params: Record<string, string> = {
          grant_type: 'authorization_code',
          client_id: client.client_id,
          code: 'B'.repeat(43),
          redirect_uri: REDIRECT_URI,
          code_verifier: verifier,
        };
        for (const [name, value] of Object.entries(change)) {
          if (value === undefined) delete params[name];
          else params[name] = value;
        }
        assertOAuthError(await tokenRequest(t.app, params), error, status);
        assertOAuthError(await tokenRequest(t.app, params, { json: true }), error, status);
      });
    }

    test('body and client-authentication failures are RFC 6749 bodies too, never the envelope', async () => {
      const form = 'application/x-www-form-urlencoded';
      const raw = (payload: string, contentType: string, headers: Record<string, string> = {}) =>
        t.app.inject({
          method: 'POST',
          url: '/api/oauth/token',
          headers: { 'content-type': contentType, ...headers },
          payload,
        });
      assertOAuthError(
        await raw('grant_type=refresh_token&grant_type=authorization_code', form),
        'invalid_request',
      );
      assertOAuthError(await raw('{"grant_type": 1}', 'application/json'), 'invalid_request');
      assertOAuthError(await raw('["grant_type"]', 'application/json'), 'invalid_request');
      assertOAuthError(await raw('{nope', 'application/json'), 'invalid_request');
      assertOAuthError(await raw('<xml/>', 'application/xml'), 'invalid_request');
      assertOAuthError(await raw('', form), 'invalid_request');
      assertOAuthError(await raw('x'.repeat(1_100_000), form), 'invalid_request');
      const basic = Buffer.from(`${client.client_id}:`).toString('base64');
      assertOAuthError(
        await raw(`grant_type=refresh_token&client_id=${client.client_id}&refresh_token=x`, form, {
          authorization: `Basic ${basic}`,
        }),
        'invalid_client',
        401,
      );
      // Empty values count as omitted (RFC 6749 §3.2).
      assertOAuthError(await raw(`grant_type=&client_id=${client.client_id}`, form), 'invalid_request');
    });
  });

  describe('token endpoint: refresh_token', () => {
    const refresh = (clientId: string, refreshToken: string, extra: Record<string, string> = {}) =>
      tokenRequest(t.app, {
        grant_type: 'refresh_token',
        client_id: clientId,
        refresh_token: refreshToken,
        ...extra,
      });

    test('rotates on every use: a fresh pair, the same grant and scope', async () => {
      const { client, tokens } = await grant(t.app, user, { permissionGroupId: 'tasks_and_routines' });
      const first = await refresh(client.client_id, tokens.refresh_token);
      assert.equal(first.statusCode, 200, first.body);
      const next = first.json();
      assert.notEqual(next.refresh_token, tokens.refresh_token);
      assert.notEqual(next.access_token, tokens.access_token);
      assert.equal(next.scope, 'tasks_and_routines');
      assert.equal(first.headers['cache-control'], 'no-store');
      assert.equal(decodeJwt(next.access_token).payload.sid, decodeJwt(tokens.access_token).payload.sid);
      const second = await refresh(client.client_id, next.refresh_token, { scope: 'tasks_and_routines' });
      assert.equal(second.statusCode, 200, second.body);
      assert.equal((await mcpInitialize(t.app, second.json().access_token)).statusCode, 200);
      // The older access tokens of a live grant keep working until they expire.
      assert.equal((await mcpInitialize(t.app, tokens.access_token)).statusCode, 200);
    });

    test('a rotated token presented again: invalid_grant, and every token of the (client, agent) pair is revoked', async () => {
      const { client, tokens } = await grant(t.app, user);
      // A second grant of the same client and agent: the pair covers it too.
      const { tokens: sibling } = await grant(t.app, user, { client });
      const rotated = (await refresh(client.client_id, tokens.refresh_token)).json();
      assert.match(
        assertOAuthError(await refresh(client.client_id, tokens.refresh_token), 'invalid_grant'),
        /already used/,
      );
      assertOAuthError(await refresh(client.client_id, rotated.refresh_token), 'invalid_grant');
      assertOAuthError(await refresh(client.client_id, sibling.refresh_token), 'invalid_grant');
      for (const token of [tokens.access_token, rotated.access_token, sibling.access_token])
        assert.equal((await mcpInitialize(t.app, token)).statusCode, 401);
      // Another person's grant of the same client is untouched.
      const other = await registerUser(t.app);
      const { tokens: theirs } = await grant(t.app, other, { client });
      assert.equal((await refresh(client.client_id, theirs.refresh_token)).statusCode, 200);
    });

    test('two concurrent rotations of one token: exactly one succeeds', async () => {
      for (let round = 0; round < 5; round++) {
        const { client, tokens } = await grant(t.app, user);
        const answers = await Promise.all([
          refresh(client.client_id, tokens.refresh_token),
          refresh(client.client_id, tokens.refresh_token),
        ]);
        assert.equal(
          answers.filter((a) => a.statusCode === 200).length,
          1,
          answers.map((a) => a.body).join('\n'),
        );
        for (const refused of answers.filter((a) => a.statusCode !== 200))
          assertOAuthError(refused, 'invalid_grant');
      }
    });

    test('another client, another scope, an unknown token, another resource', async () => {
      const { client, tokens } = await grant(t.app, user);
      const other = await registerClient(t.app);
      assert.match(
        assertOAuthError(await refresh(other.client_id, tokens.refresh_token), 'invalid_grant'),
        /another client/,
      );
      assertOAuthError(
        await refresh(client.client_id, tokens.refresh_token, { scope: 'full_mcp_admin' }),
        'invalid_scope',
      );
      assertOAuthError(await refresh(client.client_id, 'C'.repeat(43)), 'invalid_grant');
      assertOAuthError(
        await refresh(client.client_id, tokens.refresh_token, { resource: ISSUER }),
        'invalid_target',
      );
      assertOAuthError(
        await tokenRequest(t.app, { grant_type: 'refresh_token', client_id: client.client_id }),
        'invalid_request',
      );
      // None of those spent the token.
      assert.equal((await refresh(client.client_id, tokens.refresh_token)).statusCode, 200);
    });

    test('an expired refresh token: invalid_grant', async () => {
      const { client, tokens } = await grant(t.app, user);
      await t.db.kysely
        .updateTable('oauthRefreshTokens')
        .set({ expiresAt: new Date(Date.now() - 1000).toISOString() })
        .where('clientId', '=', client.client_id)
        .execute();
      assert.match(
        assertOAuthError(await refresh(client.client_id, tokens.refresh_token), 'invalid_grant'),
        /expired/,
      );
    });

    test('disabling the agent stops its access tokens at once and its refresh tokens', async () => {
      const { client, tokens, agentId } = await grant(t.app, user);
      assert.equal((await mcpInitialize(t.app, tokens.access_token)).statusCode, 200);
      const disabled = await t.app.inject({
        method: 'DELETE',
        url: `/api/agents/${agentId}`,
        headers: user.auth,
      });
      assert.equal(disabled.statusCode, 200);
      const mcp = await mcpInitialize(t.app, tokens.access_token);
      assert.equal(mcp.statusCode, 401);
      assert.equal(mcp.headers['www-authenticate'], `${CHALLENGE}, error="invalid_token"`);
      assertOAuthError(await refresh(client.client_id, tokens.refresh_token), 'invalid_grant');
      // Approving again reactivates the agent, but the old grant stays dead.
      const { tokens: fresh, agentId: again } = await grant(t.app, user, { client });
      assert.equal(again, agentId);
      assert.equal((await mcpInitialize(t.app, fresh.access_token)).statusCode, 200);
      assert.equal((await mcpInitialize(t.app, tokens.access_token)).statusCode, 401);
    });
  });

  describe('separation from login JWTs', () => {
    test('an OAuth access token is refused on the normal /api/* routes', async () => {
      const { tokens } = await grant(t.app, user);
      for (const url of ['/api/auth/me', '/api/agents', '/api/organisations']) {
        const response = await t.app.inject({
          method: 'GET',
          url,
          headers: { authorization: `Bearer ${tokens.access_token}` },
        });
        assert.equal(response.statusCode, 401, url);
        assert.equal(response.json().error.code, 'UNAUTHENTICATED');
      }
    });

    test('a login JWT is refused on /api/mcp', async () => {
      const response = await mcpInitialize(t.app, user.token);
      assert.equal(response.statusCode, 401);
      assert.equal(response.headers['www-authenticate'], `${CHALLENGE}, error="invalid_token"`);
    });

    test('tokens of another audience, issuer, type, key or algorithm are refused', async () => {
      const { tokens, client } = await grant(t.app, user);
      const { payload } = decodeJwt(tokens.access_token);
      const config = loadConfig(TEST_ENV);
      const oauthKey = new TextEncoder().encode(config.oauthJwtSecret);
      const sign = (changes: { aud?: string; iss?: string; typ?: string; key?: Uint8Array }) =>
        new SignJWT({ client_id: client.client_id, scope: 'minimal', sid: payload.sid })
          .setProtectedHeader({ alg: 'HS256', typ: changes.typ ?? 'at+jwt' })
          .setIssuer(changes.iss ?? ISSUER)
          .setAudience(changes.aud ?? MCP_RESOURCE)
          .setSubject(String(payload.sub))
          .setIssuedAt()
          .setExpirationTime('5m')
          .sign(changes.key ?? oauthKey);
      // The control: the same forgery with every value right verifies (the test key is known).
      assert.equal((await mcpInitialize(t.app, await sign({}))).statusCode, 200);
      const refused = [
        await sign({ aud: 'https://other.example/api/mcp' }),
        await sign({ aud: 'reservation-service-api' }),
        await sign({ iss: 'reservation-service' }),
        await sign({ typ: 'JWT' }),
        await sign({ key: new TextEncoder().encode(config.jwtSecret) }),
        `${Buffer.from(JSON.stringify({ alg: 'none', typ: 'at+jwt' })).toString('base64url')}.${tokens.access_token.split('.')[1]}.`,
      ];
      for (const token of refused) assert.equal((await mcpInitialize(t.app, token)).statusCode, 401, token);
    });
  });
});

describe('OAuth settings from the environment', () => {
  test('rate limits: registration has REGISTRATION_RATE_LIMIT_MAX; the token endpoint answers 429 in RFC 6749 shape', async () => {
    const t = await createTestApp({ REGISTRATION_RATE_LIMIT_MAX: '2', RATE_LIMIT_MAX: '6' });
    try {
      const register = () =>
        t.app.inject({
          method: 'POST',
          url: '/api/oauth/register',
          payload: { client_name: 'x', redirect_uris: [REDIRECT_URI] },
        });
      assert.equal((await register()).statusCode, 201);
      assert.equal((await register()).statusCode, 201);
      const limited = await register();
      assert.equal(limited.statusCode, 429);
      assert.equal(limited.json().error.code, 'RATE_LIMITED');
      let last = await tokenRequest(t.app, { grant_type: 'refresh_token' });
      for (let i = 0; i < 10 && last.statusCode !== 429; i++)
        last = await tokenRequest(t.app, { grant_type: 'refresh_token' });
      assert.equal(last.statusCode, 429);
      assert.deepEqual(Object.keys(last.json()).sort(), ['error', 'error_description']);
    } finally {
      await t.close();
    }
  });

  test('OAUTH_ACCESS_TOKEN_TTL and OAUTH_REFRESH_TOKEN_TTL', async () => {
    const t = await createTestApp({ OAUTH_ACCESS_TOKEN_TTL: '120', OAUTH_REFRESH_TOKEN_TTL: '600' });
    try {
      const person = await registerUser(t.app);
      const before = Date.now();
      const { tokens } = await grant(t.app, person);
      assert.equal(tokens.expires_in, 120);
      const { payload } = decodeJwt(tokens.access_token);
      assert.equal(Number(payload.exp) - Number(payload.iat), 120);
      const row = await t.db.kysely
        .selectFrom('oauthRefreshTokens')
        .select('expiresAt')
        .executeTakeFirstOrThrow();
      const lifetime = Date.parse(row.expiresAt) - before;
      assert.ok(lifetime >= 599_000 && lifetime <= 610_000, String(lifetime));
    } finally {
      await t.close();
    }
  });

  test('FEATURE_FLAGS {"oauth": false}: the OAuth routes are 404 and access tokens stop verifying', async () => {
    const t = await createTestApp({ FEATURE_FLAGS: '{"oauth":false}' });
    try {
      for (const url of [
        '/.well-known/oauth-authorization-server',
        '/.well-known/oauth-protected-resource',
      ]) {
        assert.equal((await t.app.inject({ method: 'GET', url })).statusCode, 404, url);
      }
      const register = await t.app.inject({
        method: 'POST',
        url: '/api/oauth/register',
        payload: { client_name: 'x', redirect_uris: [REDIRECT_URI] },
      });
      assert.equal(register.statusCode, 404);
    } finally {
      await t.close();
    }
  });
});

describe('OAuth configuration', () => {
  const production = {
    NODE_ENV: 'production',
    JWT_SECRET: 'j'.repeat(40),
    OAUTH_JWT_SECRET: 'o'.repeat(40),
    ENCRYPTION_KEY: Buffer.alloc(32, 1).toString('base64'),
    PAYMENT_API_BASE: 'https://payments.example',
    PAYMENT_SECRET_KEY: 'sk',
    PAYMENT_WEBHOOK_SECRET: 'whsec_live_0123456789',
  };
  test('production refuses the default OAuth secret, one equal to JWT_SECRET, and OAUTH_CIMD_ALLOW_PRIVATE', () => {
    assert.doesNotThrow(() => loadConfig(production));
    assert.throws(() => loadConfig({ ...production, OAUTH_JWT_SECRET: undefined }), /OAUTH_JWT_SECRET/);
    assert.throws(() => loadConfig({ ...production, OAUTH_JWT_SECRET: 'j'.repeat(40) }), /OAUTH_JWT_SECRET/);
    assert.throws(
      () => loadConfig({ ...production, OAUTH_CIMD_ALLOW_PRIVATE: 'true' }),
      /OAUTH_CIMD_ALLOW_PRIVATE/,
    );
    assert.equal(loadConfig({ OAUTH_CIMD_ALLOW_PRIVATE: 'true' }).oauthCimdAllowPrivate, true);
    assert.equal(loadConfig({}).oauthCimdAllowPrivate, false);
    assert.throws(() => loadConfig({ OAUTH_CIMD_ALLOW_PRIVATE: 'yes' }), /OAUTH_CIMD_ALLOW_PRIVATE/);
    assert.throws(() => loadConfig({ OAUTH_ACCESS_TOKEN_TTL: '0' }), /OAUTH_ACCESS_TOKEN_TTL/);
  });
});
