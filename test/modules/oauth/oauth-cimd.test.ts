import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import * as oauth from 'oauth4webapi';
import { buildApp } from '../../../src/app.js';
import { loadConfig } from '../../../src/config.js';
import { isPublicAddress } from '../../../src/lib/public-address.js';
import { createClientMetadataResolver } from '../../../src/modules/oauth/client-metadata.js';
import {
  ClientMetadataError,
  clientIdUrlProblem,
} from '../../../src/modules/oauth/client-metadata-document.js';
import {
  createTestApp,
  createTestDatabase,
  registerUser,
  type SignedInUser,
  TEST_ENV,
} from '../../helpers/app.js';
import { assertOAuthError, pkce, REDIRECT_URI, tokenRequest } from '../../helpers/oauth.js';

/**
 * Client ID Metadata Documents: a client_id that is a URL names the client's own
 * metadata. The documents are served by a test server on loopback, reached because
 * OAUTH_CIMD_ALLOW_PRIVATE=true (tests only) both allows loopback addresses and lets
 * `http://127.0.0.1` client ids count as document URLs; production accepts only
 * `https://` on public addresses.
 */

type Handler = (request: IncomingMessage, response: ServerResponse) => void;

interface DocumentServer {
  origin: string;
  hits: Map<string, number>;
  routes: Map<string, Handler>;
  close(): Promise<void>;
}

async function documentServer(): Promise<DocumentServer> {
  const hits = new Map<string, number>();
  const routes = new Map<string, Handler>();
  const server: Server = createServer((request, response) => {
    const path = request.url ?? '/';
    hits.set(path, (hits.get(path) ?? 0) + 1);
    const handler = routes.get(path);
    if (handler) return handler(request, response);
    response.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (!address || typeof address === 'string') throw new Error('no port');
  return {
    origin: `http://127.0.0.1:${address.port}`,
    hits,
    routes,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const json =
  (body: unknown, headers: Record<string, string> = {}): Handler =>
  (_request, response) => {
    response.writeHead(200, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
  };

describe('Client ID Metadata Documents: the fetcher', () => {
  let docs: DocumentServer;
  before(async () => {
    docs = await documentServer();
  });
  after(() => docs.close());

  const doc = (clientId: string, extra: Record<string, unknown> = {}) => ({
    client_id: clientId,
    client_name: 'Document Client',
    redirect_uris: [REDIRECT_URI],
    ...extra,
  });
  const serve = (path: string, handler: (url: string) => Handler) => {
    const url = `${docs.origin}${path}`;
    docs.routes.set(path, handler(url));
    return url;
  };
  const refusal = async (promise: Promise<unknown>, pattern: RegExp) =>
    assert.rejects(promise, (error) => error instanceof ClientMetadataError && pattern.test(error.message));

  test('public and non-public addresses', () => {
    for (const address of ['8.8.8.8', '1.1.1.1', '2606:4700:4700::1111', '93.184.216.34'])
      assert.equal(isPublicAddress(address), true, address);
    for (const address of [
      '127.0.0.1',
      '10.1.2.3',
      '172.16.0.1',
      '192.168.1.1',
      '169.254.169.254',
      '100.64.0.1',
      '0.0.0.0',
      '224.0.0.1',
      '255.255.255.255',
      '::1',
      '::',
      '::ffff:127.0.0.1',
      '::ffff:8.8.8.8',
      '64:ff9b::7f00:1',
      'fd00::1',
      'fe80::1',
      'ff02::1',
      '2002:7f00:1::',
      'not-an-address',
    ])
      assert.equal(isPublicAddress(address), false, address);
  });

  test('the shape of a client_id URL', () => {
    assert.equal(clientIdUrlProblem('https://app.example/oauth/client.json', false), null);
    const bad: Array<[string, RegExp]> = [
      ['http://app.example/client.json', /https/],
      ['https://app.example/', /path/],
      ['https://app.example', /path/],
      ['https://app.example/client.json?v=1', /query/],
      ['https://app.example/client.json#x', /fragment/],
      ['https://me:pw@app.example/client.json', /user information/],
      ['https://app.example/a/../client.json', /dot/],
      ['https://app.example/./client.json', /dot/],
    ];
    for (const [id, pattern] of bad) assert.match(clientIdUrlProblem(id, false) ?? '', pattern, id);
    // Loopback http ids count only in the test setting.
    assert.match(clientIdUrlProblem(`${docs.origin}/c.json`, false) ?? '', /https/);
    assert.equal(clientIdUrlProblem(`${docs.origin}/c.json`, true), null);
  });

  test('without OAUTH_CIMD_ALLOW_PRIVATE: loopback is refused before any request, by literal or by name', async () => {
    const strict = createClientMetadataResolver({ allowPrivate: false });
    const port = new URL(docs.origin).port;
    await refusal(strict.resolve(`https://127.0.0.1:${port}/strict.json`), /not a public address/);
    await refusal(strict.resolve(`https://[::1]:${port}/strict.json`), /not a public address/);
    // By name: refused like any unreachable host, without saying what the name resolves to.
    await refusal(
      strict.resolve(`https://localhost:${port}/strict.json`),
      /^the document could not be fetched$/,
    );
    await refusal(strict.resolve(`${docs.origin}/strict.json`), /https/);
    assert.equal(docs.hits.get('/strict.json'), undefined, 'nothing reached the server');
  });

  test('a valid document: the client as registered, cached by max-age, one fetch for concurrent asks', async () => {
    const url = serve('/cached.json', (id) =>
      json(doc(id, { logo_uri: 'https://docs.example/logo.png', client_uri: 'https://docs.example/' }), {
        'cache-control': 'public, max-age=60',
      }),
    );
    const resolver = createClientMetadataResolver({ allowPrivate: true });
    const [first, second] = await Promise.all([resolver.resolve(url), resolver.resolve(url)]);
    assert.deepEqual(first, {
      clientId: url,
      clientName: 'Document Client',
      logoUrl: 'https://docs.example/logo.png',
      homepageUrl: 'https://docs.example/',
      redirectUris: [REDIRECT_URI],
    });
    assert.deepEqual(second, first);
    await resolver.resolve(url);
    assert.equal(docs.hits.get('/cached.json'), 1);
  });

  test('no-store is fetched every time; the name defaults to the host', async () => {
    const url = serve('/uncached.json', (id) =>
      json({ client_id: id, redirect_uris: [REDIRECT_URI] }, { 'cache-control': 'no-store' }),
    );
    const resolver = createClientMetadataResolver({ allowPrivate: true });
    assert.equal((await resolver.resolve(url)).clientName, new URL(docs.origin).host);
    await resolver.resolve(url);
    assert.equal(docs.hits.get('/uncached.json'), 2);
  });

  test('a max-age beyond the bound is cut to the bound', async () => {
    const url = serve('/long.json', (id) => json(doc(id), { 'cache-control': 'max-age=999999999' }));
    const resolver = createClientMetadataResolver({ allowPrivate: true, maxCacheSeconds: 1 });
    await resolver.resolve(url);
    await resolver.resolve(url);
    assert.equal(docs.hits.get('/long.json'), 1);
    await new Promise((resolve) => setTimeout(resolve, 1100));
    await resolver.resolve(url);
    assert.equal(docs.hits.get('/long.json'), 2);
  });

  const invalid: Array<[string, (id: string) => Handler, RegExp]> = [
    ['another client_id', () => json(doc('https://someone-else.example/c.json')), /must equal the URL/],
    ['a client secret', (id) => json(doc(id, { client_secret: 's' })), /secret/],
    [
      'a secret-based auth method',
      (id) => json(doc(id, { token_endpoint_auth_method: 'client_secret_post' })),
      /none/,
    ],
    ['no redirect URIs', (id) => json(doc(id, { redirect_uris: [] })), /redirect_uris/],
    [
      'an http redirect URI off loopback',
      (id) => json(doc(id, { redirect_uris: ['http://x.example/cb'] })),
      /redirect_uris/,
    ],
    ['an unsupported grant', (id) => json(doc(id, { grant_types: ['client_credentials'] })), /grant_types/],
    ['a relative logo', (id) => json(doc(id, { logo_uri: '/logo.png' })), /logo_uri/],
    [
      'not JSON',
      () => (_q, s) => s.writeHead(200, { 'content-type': 'application/json' }).end('{nope'),
      /JSON/,
    ],
    ['an array', () => json([1, 2]), /object/],
    [
      'text/html',
      (id) => (_q, s) => s.writeHead(200, { 'content-type': 'text/html' }).end(JSON.stringify(doc(id))),
      /application\/json/,
    ],
    ['a 404', () => (_q, s) => s.writeHead(404).end(), /404/],
    ['a body over 64 KiB', (id) => json(doc(id, { padding: 'x'.repeat(70 * 1024) })), /larger than/],
    [
      'a streamed body over 64 KiB',
      () => (_q, s) => {
        s.writeHead(200, { 'content-type': 'application/json' });
        s.write(`{"padding":"${'x'.repeat(40 * 1024)}`);
        s.end(`${'x'.repeat(40 * 1024)}"}`);
      },
      /larger than/,
    ],
  ];
  invalid.forEach(([what, handler, pattern], index) => {
    test(`refused: ${what}`, async () => {
      const url = serve(`/invalid-${index}.json`, handler);
      await refusal(createClientMetadataResolver({ allowPrivate: true }).resolve(url), pattern);
    });
  });

  test('redirects: followed within the origin, refused to another origin', async () => {
    const target = serve('/moved-here.json', () => json(doc(`${docs.origin}/moved.json`)));
    serve('/moved.json', () => (_q, s) => s.writeHead(301, { location: '/moved-here.json' }).end());
    assert.ok(target);
    const same = await createClientMetadataResolver({ allowPrivate: true }).resolve(
      `${docs.origin}/moved.json`,
    );
    assert.equal(same.clientId, `${docs.origin}/moved.json`);

    const other = await documentServer();
    try {
      other.routes.set('/elsewhere.json', json(doc(`${docs.origin}/away.json`)));
      serve(
        '/away.json',
        () => (_q, s) => s.writeHead(302, { location: `${other.origin}/elsewhere.json` }).end(),
      );
      await refusal(
        createClientMetadataResolver({ allowPrivate: true }).resolve(`${docs.origin}/away.json`),
        /another origin/,
      );
      assert.equal(other.hits.get('/elsewhere.json'), undefined);
    } finally {
      await other.close();
    }
  });

  test('a server that never answers: refused after the time bound', async () => {
    const url = serve('/slow.json', () => () => {
      // never answers
    });
    const started = Date.now();
    await refusal(
      createClientMetadataResolver({ allowPrivate: true, timeoutMs: 200 }).resolve(url),
      /longer than 200 ms/,
    );
    assert.ok(Date.now() - started < 2000);
  });
});

describe('Client ID Metadata Documents: the whole flow', () => {
  let docs: DocumentServer;
  let app: FastifyInstance;
  let origin: string;
  let dropDb: () => Promise<void>;
  let user: SignedInUser;
  let clientId: string;

  before(async () => {
    docs = await documentServer();
    clientId = `${docs.origin}/clients/host.json`;
    docs.routes.set(
      '/clients/host.json',
      json({
        client_id: clientId,
        client_name: 'Metadata Document Host',
        client_uri: 'https://host.example/',
        logo_uri: 'https://host.example/logo.png',
        redirect_uris: [REDIRECT_URI],
        token_endpoint_auth_method: 'none',
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        software_id: 'ignored',
      }),
    );
    docs.routes.set(
      '/clients/mismatch.json',
      json({ client_id: 'https://elsewhere.example/c.json', redirect_uris: [REDIRECT_URI] }),
    );
    const { db, drop } = await createTestDatabase();
    dropDb = drop;
    app = await buildApp(
      loadConfig({ ...TEST_ENV, OAUTH_CIMD_ALLOW_PRIVATE: 'true', PUBLIC_URL: 'http://127.0.0.1:1' }),
      { db, logger: false },
    );
    const url = await app.listen({ port: 0, host: '127.0.0.1' });
    origin = url;
    user = await registerUser(app);
  });
  after(async () => {
    await app.close();
    await dropDb();
    await docs.close();
  });

  test('authorize, consent-details, consent and token with a URL client_id (oauth4webapi on http)', async () => {
    // PUBLIC_URL names another port on purpose: only the authorization response and tokens carry it.
    const issuer = new URL('http://127.0.0.1:1');
    const as: oauth.AuthorizationServer = {
      issuer: issuer.href.replace(/\/$/, ''),
      authorization_endpoint: `${origin}/api/oauth/authorize`,
      token_endpoint: `${origin}/api/oauth/token`,
      authorization_response_iss_parameter_supported: true,
    };
    const client: oauth.Client = { client_id: clientId, token_endpoint_auth_method: 'none' };
    const { verifier, challenge } = pkce();
    const state = oauth.generateRandomState();
    const query = new URLSearchParams({
      response_type: 'code',
      client_id: clientId,
      redirect_uri: REDIRECT_URI,
      code_challenge: challenge,
      code_challenge_method: 'S256',
      state,
    });
    const entry = await app.inject({ method: 'GET', url: `/api/oauth/authorize?${query}` });
    assert.equal(entry.statusCode, 302, entry.body);
    assert.equal(entry.headers.location, `http://frontend.test/oauth/consent?${query}`);

    const details = await app.inject({
      method: 'GET',
      url: `/api/oauth/consent-details?${new URLSearchParams({
        client_id: clientId,
        redirect_uri: REDIRECT_URI,
        code_challenge: challenge,
        code_challenge_method: 'S256',
        response_type: 'code',
      })}`,
      headers: user.auth,
    });
    assert.equal(details.statusCode, 200, details.body);
    assert.deepEqual(
      { ...(details.json() as Record<string, unknown>), availablePermissionGroups: undefined },
      {
        clientId,
        clientName: 'Metadata Document Host',
        clientDescription: '',
        clientLogoUrl: 'https://host.example/logo.png',
        clientHomepageUrl: 'https://host.example/',
        redirectUri: REDIRECT_URI,
        availablePermissionGroups: undefined,
      },
    );
    const decided = await app.inject({
      method: 'POST',
      url: '/api/oauth/consent',
      headers: user.auth,
      payload: {
        clientId,
        redirectUri: REDIRECT_URI,
        state,
        codeChallenge: challenge,
        approve: true,
        permissionGroupId: 'minimal',
      },
    });
    assert.equal(decided.statusCode, 200, decided.body);
    const params = oauth.validateAuthResponse(as, client, new URL(decided.json().redirectUrl), state);
    const tokens = await oauth.processAuthorizationCodeResponse(
      as,
      client,
      await oauth.authorizationCodeGrantRequest(as, client, oauth.None(), params, REDIRECT_URI, verifier, {
        [oauth.allowInsecureRequests]: true,
      }),
    );
    assert.equal(tokens.scope, 'minimal');
    const refreshed = await oauth.processRefreshTokenResponse(
      as,
      client,
      await oauth.refreshTokenGrantRequest(as, client, oauth.None(), tokens.refresh_token!, {
        [oauth.allowInsecureRequests]: true,
      }),
    );
    assert.ok(refreshed.access_token);
    const agents = (await app.inject({ method: 'GET', url: '/api/agents', headers: user.auth })).json();
    assert.equal(agents.length, 1);
    assert.equal(agents[0].oauthClientId, clientId);
    assert.equal(agents[0].name, 'Metadata Document Host');
  });

  test('a document whose client_id differs: an error page at authorize, 400 at consent-details', async () => {
    const mismatch = `${docs.origin}/clients/mismatch.json`;
    const { challenge } = pkce();
    const query = new URLSearchParams({
      response_type: 'code',
      client_id: mismatch,
      redirect_uri: REDIRECT_URI,
      code_challenge: challenge,
      code_challenge_method: 'S256',
    });
    const entry = await app.inject({ method: 'GET', url: `/api/oauth/authorize?${query}` });
    assert.equal(entry.statusCode, 400);
    assert.equal(entry.headers.location, undefined);
    assert.match(entry.body, /metadata document cannot be used/);
    const missing = await app.inject({
      method: 'GET',
      url: `/api/oauth/authorize?${new URLSearchParams({ ...Object.fromEntries(query), client_id: `${docs.origin}/clients/none.json` })}`,
    });
    assert.equal(missing.statusCode, 400);
    assert.match(missing.body, /404/);
  });

  test('at the token endpoint a URL client_id is checked by shape; the code binds it', async () => {
    assertOAuthError(
      await tokenRequest(app, {
        grant_type: 'refresh_token',
        client_id: `${docs.origin}/clients/../host.json`,
        refresh_token: 'x'.repeat(43),
      }),
      'invalid_client',
      401,
    );
    assertOAuthError(
      await tokenRequest(app, {
        grant_type: 'refresh_token',
        client_id: clientId,
        refresh_token: 'x'.repeat(43),
      }),
      'invalid_grant',
    );
  });
});

describe('Client ID Metadata Documents in the default setting', () => {
  test('an http://127.0.0.1 client_id is just an unknown client; https on loopback is refused', async () => {
    const docs = await documentServer();
    const t = await createTestApp();
    try {
      const { challenge } = pkce();
      const port = new URL(docs.origin).port;
      for (const clientId of [
        `${docs.origin}/c.json`,
        `https://127.0.0.1:${port}/c.json`,
        `https://localhost:${port}/c.json`,
      ]) {
        const query = new URLSearchParams({
          response_type: 'code',
          client_id: clientId,
          redirect_uri: REDIRECT_URI,
          code_challenge: challenge,
          code_challenge_method: 'S256',
        });
        const response = await t.app.inject({ method: 'GET', url: `/api/oauth/authorize?${query}` });
        assert.equal(response.statusCode, 400, clientId);
        assert.equal(response.headers.location, undefined);
      }
      assert.equal(docs.hits.size, 0, 'nothing reached the loopback server');
    } finally {
      await t.close();
      await docs.close();
    }
  });
});
