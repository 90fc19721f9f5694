import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { after, before, describe, test } from 'node:test';
import {
  auth,
  Client as McpClient,
  type OAuthClientInformationMixed,
  type OAuthClientMetadata,
  type OAuthClientProvider,
  type OAuthDiscoveryState,
  type OAuthTokens,
  StreamableHTTPClientTransport,
  UnauthorizedError,
} from '@modelcontextprotocol/client';
import type { FastifyInstance } from 'fastify';
import * as oauth from 'oauth4webapi';
import { buildApp } from '../../../src/app.js';
import { loadConfig } from '../../../src/config.js';
import {
  createTestApp,
  createTestDatabase,
  registerUser,
  type SignedInUser,
  TEST_ENV,
  type TestApp,
} from '../../helpers/app.js';
import { fetchThrough } from '../../helpers/oauth.js';

/**
 * Two strict, independent clients drive the server end to end: panva's
 * oauth4webapi (RFC 9728 and RFC 8414 discovery, RFC 7591 registration, RFC 9207
 * `iss` validation, PKCE code exchange, refresh), and the MCP SDK's own OAuth client
 * doing what an MCP host does headlessly: discovery from the 401, dynamic
 * registration, authorize, consent (through the API, as the consent page does),
 * token, `tools/call`, refresh.
 */

describe('oauth4webapi as a strict client', () => {
  const ORIGIN = 'https://service.test';
  const REDIRECT = 'http://127.0.0.1:53682/callback';
  let t: TestApp;
  let user: SignedInUser;
  let as: oauth.AuthorizationServer;
  let client: oauth.Client;
  let options: { [oauth.customFetch]: ReturnType<typeof fetchThrough> };

  before(async () => {
    t = await createTestApp({ PUBLIC_URL: ORIGIN, FRONTEND_URL: 'https://frontend.test' });
    user = await registerUser(t.app);
    options = { [oauth.customFetch]: fetchThrough(t.app, ORIGIN) };
  });
  after(() => t.close());

  test('RFC 9728 resource discovery and RFC 8414 discovery, issuer checked', async () => {
    const resource = new URL(`${ORIGIN}/api/mcp`);
    const rs = await oauth.processResourceDiscoveryResponse(
      resource,
      await oauth.resourceDiscoveryRequest(resource, options),
    );
    assert.deepEqual(rs.authorization_servers, [ORIGIN]);
    assert.deepEqual(rs.bearer_methods_supported, ['header']);
    const issuer = new URL(rs.authorization_servers![0]!);
    as = await oauth.processDiscoveryResponse(
      issuer,
      await oauth.discoveryRequest(issuer, { algorithm: 'oauth2', ...options }),
    );
    assert.equal(as.issuer, ORIGIN);
    assert.equal(as.authorization_response_iss_parameter_supported, true);
    assert.deepEqual(as.code_challenge_methods_supported, ['S256']);
  });

  test('RFC 7591 registration: a public client', async () => {
    const registered = await oauth.processDynamicClientRegistrationResponse(
      await oauth.dynamicClientRegistrationRequest(
        as,
        {
          client_name: 'oauth4webapi test client',
          redirect_uris: [REDIRECT],
          token_endpoint_auth_method: 'none',
          application_type: 'native',
        },
        options,
      ),
    );
    assert.equal(registered.token_endpoint_auth_method, 'none');
    assert.equal(registered.client_secret, undefined);
    client = { client_id: registered.client_id, token_endpoint_auth_method: 'none' };
  });

  /** The browser leg: authorize (302 to the consent page), then the consent API as the page calls it. */
  async function authorizeInBrowser(
    state: string,
    decision: { approve: boolean; permissionGroupId?: string } = {
      approve: true,
      permissionGroupId: 'minimal',
    },
  ) {
    const verifier = oauth.generateRandomCodeVerifier();
    const challenge = await oauth.calculatePKCECodeChallenge(verifier);
    const url = new URL(as.authorization_endpoint!);
    url.search = new URLSearchParams({
      response_type: 'code',
      client_id: client.client_id,
      redirect_uri: REDIRECT,
      code_challenge: challenge,
      code_challenge_method: 'S256',
      state,
      scope: 'mcp:read',
      resource: `${ORIGIN}/api/mcp`,
    }).toString();
    const entry = await t.app.inject({ method: 'GET', url: `${url.pathname}${url.search}` });
    assert.equal(entry.statusCode, 302, entry.body);
    const consentPage = new URL(String(entry.headers.location));
    assert.equal(`${consentPage.origin}${consentPage.pathname}`, 'https://frontend.test/oauth/consent');
    const page = consentPage.searchParams;
    const details = await t.app.inject({
      method: 'GET',
      url: `/api/oauth/consent-details?${new URLSearchParams({
        client_id: page.get('client_id')!,
        redirect_uri: page.get('redirect_uri')!,
        code_challenge: page.get('code_challenge')!,
        code_challenge_method: page.get('code_challenge_method')!,
        response_type: page.get('response_type')!,
      })}`,
      headers: user.auth,
    });
    assert.equal(details.statusCode, 200, details.body);
    assert.equal(details.json().clientName, 'oauth4webapi test client');
    const decided = await t.app.inject({
      method: 'POST',
      url: '/api/oauth/consent',
      headers: user.auth,
      payload: {
        clientId: page.get('client_id'),
        redirectUri: page.get('redirect_uri'),
        state: page.get('state') ?? '',
        codeChallenge: page.get('code_challenge'),
        approve: decision.approve,
        permissionGroupId: decision.permissionGroupId ?? '',
        resource: page.get('resource'),
      },
    });
    assert.equal(decided.statusCode, 200, decided.body);
    return { callback: new URL(decided.json().redirectUrl), verifier };
  }

  test('authorization code with PKCE: validateAuthResponse (state and iss), code exchange, refresh', async () => {
    const state = oauth.generateRandomState();
    const { callback, verifier } = await authorizeInBrowser(state);
    const params = oauth.validateAuthResponse(as, client, callback, state);
    const exchanged = await oauth.processAuthorizationCodeResponse(
      as,
      client,
      await oauth.authorizationCodeGrantRequest(as, client, oauth.None(), params, REDIRECT, verifier, {
        additionalParameters: { resource: `${ORIGIN}/api/mcp` },
        ...options,
      }),
    );
    assert.equal(exchanged.token_type, 'bearer');
    assert.equal(exchanged.expires_in, 3600);
    assert.equal(exchanged.scope, 'minimal');
    assert.ok(exchanged.refresh_token);

    const refreshed = await oauth.processRefreshTokenResponse(
      as,
      client,
      await oauth.refreshTokenGrantRequest(as, client, oauth.None(), exchanged.refresh_token!, options),
    );
    assert.notEqual(refreshed.refresh_token, exchanged.refresh_token);
    assert.equal(refreshed.scope, 'minimal');

    // The rotated token again: invalid_grant, and the whole (client, agent) family is gone.
    await assert.rejects(
      async () =>
        oauth.processRefreshTokenResponse(
          as,
          client,
          await oauth.refreshTokenGrantRequest(as, client, oauth.None(), exchanged.refresh_token!, options),
        ),
      (error) =>
        error instanceof oauth.ResponseBodyError && error.error === 'invalid_grant' && error.status === 400,
    );
    await assert.rejects(
      async () =>
        oauth.processRefreshTokenResponse(
          as,
          client,
          await oauth.refreshTokenGrantRequest(as, client, oauth.None(), refreshed.refresh_token!, options),
        ),
      (error) => error instanceof oauth.ResponseBodyError && error.error === 'invalid_grant',
    );
  });

  test('a reused code: oauth4webapi sees invalid_grant', async () => {
    const state = oauth.generateRandomState();
    const { callback, verifier } = await authorizeInBrowser(state);
    const params = oauth.validateAuthResponse(as, client, callback, state);
    const redeem = async () =>
      oauth.processAuthorizationCodeResponse(
        as,
        client,
        await oauth.authorizationCodeGrantRequest(
          as,
          client,
          oauth.None(),
          params,
          REDIRECT,
          verifier,
          options,
        ),
      );
    await redeem();
    await assert.rejects(
      redeem,
      (error) => error instanceof oauth.ResponseBodyError && error.error === 'invalid_grant',
    );
  });

  test('a mix-up is caught: the iss check fails for another issuer', async () => {
    const state = oauth.generateRandomState();
    const { callback } = await authorizeInBrowser(state);
    callback.searchParams.set('iss', 'https://attacker.example');
    assert.throws(() => oauth.validateAuthResponse(as, client, callback, state), /iss/);
  });

  test('denial reaches the client as access_denied with state and iss', async () => {
    const state = oauth.generateRandomState();
    const { callback } = await authorizeInBrowser(state, { approve: false });
    assert.throws(
      () => oauth.validateAuthResponse(as, client, callback, state),
      (error) => error instanceof oauth.AuthorizationResponseError && error.error === 'access_denied',
    );
  });
});

/** A free loopback port, so PUBLIC_URL can name it before the app listens. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (!address || typeof address === 'string') throw new Error('no port');
  return address.port;
}

/** A headless MCP host: everything the SDK asks a host to keep, in memory; the "browser" is the test. */
class HeadlessHost implements OAuthClientProvider {
  clientInfo: OAuthClientInformationMixed | undefined;
  saved: OAuthTokens | undefined;
  verifier = '';
  discovery: OAuthDiscoveryState | undefined;
  authorizationUrl: URL | undefined;
  readonly stateValue = `sdk-${Math.random().toString(36).slice(2)}`;

  constructor(readonly callback: string) {}

  get redirectUrl() {
    return this.callback;
  }
  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'Headless MCP host',
      redirect_uris: [this.callback],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }
  state() {
    return this.stateValue;
  }
  clientInformation() {
    return this.clientInfo;
  }
  saveClientInformation(info: OAuthClientInformationMixed) {
    this.clientInfo = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
  saveDiscoveryState(state: OAuthDiscoveryState) {
    this.discovery = state;
  }
  discoveryState() {
    return this.discovery;
  }
}

describe('the MCP SDK client, headless, against a listening app', () => {
  let app: FastifyInstance;
  let origin: string;
  let dropDb: () => Promise<void>;
  let user: SignedInUser;
  const clients: McpClient[] = [];

  before(async () => {
    const port = await freePort();
    origin = `http://127.0.0.1:${port}`;
    const { db, drop } = await createTestDatabase();
    dropDb = drop;
    app = await buildApp(loadConfig({ ...TEST_ENV, PUBLIC_URL: origin, FRONTEND_URL: origin }), {
      db,
      logger: false,
    });
    await app.listen({ port, host: '127.0.0.1' });
    user = await registerUser(app);
  });
  after(async () => {
    await Promise.all(clients.map((client) => client.close().catch(() => {})));
    await app.close();
    await dropDb();
  });

  test('401 → discovery → registration → authorize → consent → token → tools/call → refresh', async () => {
    const mcpUrl = new URL(`${origin}/api/mcp`);
    const host = new HeadlessHost('http://127.0.0.1:33418/oauth/callback');

    // 1. The first connection is refused with the RFC 9728 challenge; the SDK discovers,
    //    registers and asks the host to open the authorization URL.
    const first = new McpClient({ name: 'headless-host', version: '1.0.0' });
    await assert.rejects(
      first.connect(new StreamableHTTPClientTransport(mcpUrl, { authProvider: host })),
      (error) => error instanceof UnauthorizedError,
    );
    assert.ok(host.clientInfo?.client_id.startsWith('oc_'), 'registered dynamically');
    assert.equal(host.discovery?.authorizationServerMetadata?.issuer, origin);
    const authorizationUrl = host.authorizationUrl!;
    assert.equal(`${authorizationUrl.origin}${authorizationUrl.pathname}`, `${origin}/api/oauth/authorize`);
    assert.equal(authorizationUrl.searchParams.get('code_challenge_method'), 'S256');
    assert.equal(authorizationUrl.searchParams.get('resource'), `${origin}/api/mcp`);

    // 2. The browser: authorize answers 302 to the consent page, which talks to the consent API.
    const entry = await fetch(authorizationUrl, { redirect: 'manual' });
    assert.equal(entry.status, 302);
    const consentPage = new URL(entry.headers.get('location')!);
    assert.equal(consentPage.pathname, '/oauth/consent');
    const page = consentPage.searchParams;
    const loginHeaders = { ...user.auth, 'content-type': 'application/json' };
    const details = await fetch(
      `${origin}/api/oauth/consent-details?${new URLSearchParams({
        client_id: page.get('client_id')!,
        redirect_uri: page.get('redirect_uri')!,
        code_challenge: page.get('code_challenge')!,
        code_challenge_method: page.get('code_challenge_method')!,
        response_type: page.get('response_type')!,
      })}`,
      { headers: user.auth },
    );
    assert.equal(details.status, 200);
    assert.equal((await details.json()).clientName, 'Headless MCP host');
    const decided = await fetch(`${origin}/api/oauth/consent`, {
      method: 'POST',
      headers: loginHeaders,
      body: JSON.stringify({
        clientId: page.get('client_id'),
        redirectUri: page.get('redirect_uri'),
        state: page.get('state') ?? '',
        codeChallenge: page.get('code_challenge'),
        approve: true,
        permissionGroupId: 'minimal',
      }),
    });
    assert.equal(decided.status, 200);
    const callback = new URL((await decided.json()).redirectUrl);
    assert.equal(callback.searchParams.get('state'), host.stateValue);
    assert.equal(callback.searchParams.get('iss'), origin);

    // 3. The host finishes: the SDK checks iss and redeems the code with its verifier.
    await new StreamableHTTPClientTransport(mcpUrl, { authProvider: host }).finishAuth(callback.searchParams);
    assert.equal(host.saved?.token_type, 'Bearer');
    assert.equal(host.saved?.scope, 'minimal');

    // 4. Connected with the access token: the agent's tools, and a call.
    const connected = new McpClient({ name: 'headless-host', version: '1.0.0' });
    clients.push(connected);
    await connected.connect(new StreamableHTTPClientTransport(mcpUrl, { authProvider: host }));
    const { tools } = await connected.listTools();
    assert.ok(tools.some((tool) => tool.name === 'agent_profile'));
    const profile = await connected.callTool({ name: 'agent_profile', arguments: {} });
    assert.notEqual(profile.isError, true, JSON.stringify(profile));
    const agent = profile.structuredContent as {
      name: string;
      oauthClientId: string;
      permissionGroupId: string;
    };
    assert.equal(agent.name, 'Headless MCP host');
    assert.equal(agent.oauthClientId, host.clientInfo!.client_id);
    assert.equal(agent.permissionGroupId, 'minimal');

    // 5. Refresh through the SDK: a new pair; the old refresh token is spent.
    const before = host.saved!;
    assert.equal(await auth(host, { serverUrl: mcpUrl }), 'AUTHORIZED');
    assert.notEqual(host.saved!.refresh_token, before.refresh_token);
    assert.notEqual(host.saved!.access_token, before.access_token);
    const afterRefresh = new McpClient({ name: 'headless-host', version: '1.0.0' });
    clients.push(afterRefresh);
    await afterRefresh.connect(new StreamableHTTPClientTransport(mcpUrl, { authProvider: host }));
    const again = await afterRefresh.callTool({ name: 'agent_profile', arguments: {} });
    assert.notEqual(again.isError, true);
    const replay = await fetch(`${origin}/api/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'refresh_token',
        client_id: host.clientInfo!.client_id,
        refresh_token: before.refresh_token!,
      }),
    });
    assert.equal(replay.status, 400);
    assert.equal((await replay.json()).error, 'invalid_grant');
  });
});
