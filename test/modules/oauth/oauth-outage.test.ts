import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import Fastify, { type FastifyInstance } from 'fastify';
import { serializerCompiler, validatorCompiler } from 'fastify-type-provider-zod';
import { loadConfig } from '../../../src/config.js';
import { createDatabase, type Db } from '../../../src/db/database.js';
import { registerErrorHandling } from '../../../src/http/errors.js';
import { oauthRoutes } from '../../../src/modules/oauth/routes.js';
import { createOAuthService, type OAuthService } from '../../../src/modules/oauth/service.js';
import type { Services } from '../../../src/services.js';
import { TEST_ENV } from '../../helpers/app.js';
import { pkce, REDIRECT_URI } from '../../helpers/oauth.js';

/**
 * The token endpoint while its database cannot be reached (issue 21; DECISIONS.md): the
 * RFC 6749 §5.2 body `temporarily_unavailable`, 503 with Retry-After, as the envelope's 503
 * UNAVAILABLE elsewhere; a bug stays 500 server_error. The OAuth service runs on a
 * PostgreSQL pool whose server refuses every connection (a port nobody listens on), so the
 * failure is the driver's own; no database server is needed.
 */

const config = loadConfig(TEST_ENV);

/** The OAuth routes alone, over the given service, with the app's error handling. */
async function oauthApp(oauth: OAuthService): Promise<FastifyInstance> {
  const app = Fastify({ logger: false });
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  registerErrorHandling(app);
  app.decorate('config', config);
  app.decorate('services', { oauth } as unknown as Services);
  app.decorate('requireLoginSession', async () => {});
  await app.register(oauthRoutes);
  await app.ready();
  return app;
}

const tokenRequest = (app: FastifyInstance, params: Record<string, string>) =>
  app.inject({
    method: 'POST',
    url: '/api/oauth/token',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams(params).toString(),
  });

describe('OAuth token endpoint during a database outage', () => {
  let db: Db;
  let app: FastifyInstance;
  before(async () => {
    db = createDatabase('postgres://oauth:oauth@127.0.0.1:1/unreachable', { connectTimeoutMs: 2_000 });
    const oauth = createOAuthService({
      db,
      config,
      agents: {
        permissionGroups: async () => [],
        createOrReactivateForOAuthClient: async () => assert.fail('no consent here'),
        resolveAgent: async () => assert.fail('no grant is reached'),
      },
    });
    app = await oauthApp(oauth);
  });
  after(async () => {
    await app.close();
    await db.close();
  });

  test('code exchanges and a refresh answer 503 temporarily_unavailable with Retry-After', async () => {
    const { verifier } = pkce();
    const requests: Array<[string, Record<string, string>]> = [
      [
        'code exchange',
        {
          grant_type: 'authorization_code',
          client_id: 'oc_registered_before_the_outage',
          code: 'c'.repeat(43),
          redirect_uri: REDIRECT_URI,
          code_verifier: verifier,
        },
      ],
      [
        'refresh',
        {
          grant_type: 'refresh_token',
          client_id: 'oc_registered_before_the_outage',
          refresh_token: 'r'.repeat(43),
        },
      ],
      // A metadata document client is checked without the database: the grant's transaction fails.
      [
        'code exchange of a metadata document client',
        {
          grant_type: 'authorization_code',
          client_id: 'https://client.example/oauth/client.json',
          code: 'c'.repeat(43),
          redirect_uri: REDIRECT_URI,
          code_verifier: verifier,
        },
      ],
    ];
    for (const [what, params] of requests) {
      const response = await tokenRequest(app, params);
      assert.equal(response.statusCode, 503, `${what}: ${response.body}`);
      assert.deepEqual(
        response.json(),
        {
          error: 'temporarily_unavailable',
          error_description: 'The service cannot reach its database or cache right now; retry shortly',
        },
        what,
      );
      assert.match(String(response.headers['retry-after']), /^\d+$/, what);
      assert.equal(response.headers['cache-control'], 'no-store', what);
      assert.equal(/ECONN|127\.0\.0\.1/.test(response.body), false, `${what}: nothing internal`);
    }
  });

  test('a request refused before the database is asked is still 400', async () => {
    const response = await tokenRequest(app, { client_id: 'oc_any' });
    assert.equal(response.statusCode, 400);
    assert.equal(response.json().error, 'invalid_request');
    assert.equal(response.headers['retry-after'], undefined);
  });
});

describe('OAuth token endpoint on a bug', () => {
  let app: FastifyInstance;
  before(async () => {
    const failing = {
      enabled: true,
      token: async () => {
        throw new TypeError("Cannot read properties of undefined (reading 'agentId')");
      },
    };
    app = await oauthApp(failing as unknown as OAuthService);
  });
  after(() => app.close());

  test('stays 500 server_error without Retry-After or internals', async () => {
    const response = await tokenRequest(app, { grant_type: 'refresh_token', client_id: 'oc_any' });
    assert.equal(response.statusCode, 500);
    assert.deepEqual(response.json(), {
      error: 'server_error',
      error_description: 'The server could not complete the request',
    });
    assert.equal(response.headers['retry-after'], undefined);
  });
});
