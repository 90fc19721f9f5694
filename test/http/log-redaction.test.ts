import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import type { Db } from '../../src/db/database.js';
import { createTestDatabase, TEST_ENV } from '../helpers/app.js';
import { at, customer, futureMonday } from '../helpers/booking.js';
import { createResource, createType } from '../helpers/catalogue.js';
import { ownerWithOrganisation } from '../helpers/organisations.js';

/** Tokens in paths never reach a log line: access lines, error lines, Fastify's own messages. */
describe('tokens in paths are redacted from logs', () => {
  let app: FastifyInstance;
  let db: Db;
  let drop: () => Promise<void>;
  let lines: string[];
  let token: string;
  // biome-ignore lint/suspicious/noExplicitAny: log lines are read loosely
  const entries = () => lines.map((line) => JSON.parse(line) as Record<string, any>);

  before(async () => {
    lines = [];
    ({ db, drop } = await createTestDatabase());
    app = await buildApp(loadConfig({ ...TEST_ENV, LOG_LEVEL: 'debug', PUBLIC_RATE_LIMIT_MAX: '1000' }), {
      db,
      logStream: { write: (line: string) => lines.push(line) },
    });
    // Two routes under a token path that fail the ways Fastify logs a URL: a handler error
    // naming its URL (500), and a reply sent twice (Fastify warns with the URL).
    app.get('/api/public/resources/:token/broken', async (request) => {
      throw new Error(`could not serve ${request.url}`);
    });
    app.get('/api/public/resources/:token/twice', (_request, reply) => {
      reply.send({ ok: true });
      reply.send({ ok: true });
    });
    await app.ready();
    const owner = await ownerWithOrganisation(app, { name: 'Logs Ltd', timezone: 'UTC' });
    const type = await createType(app, owner, { name: 'Room' });
    const room = await createResource(app, owner, { name: 'Room 1', resourceTypeId: type.id });
    token = (
      await app.inject({ method: 'GET', url: `/api/resources/${room.id}/public-token`, headers: owner.auth })
    ).json().token;
    assert.ok(token.length >= 40, token);
  });
  after(async () => {
    await app.close();
    await drop();
  });

  test('the public token routes log their path with [token] in place of the token', async () => {
    lines.length = 0;
    const mon = futureMonday();
    const requests = [
      { method: 'GET', url: `/api/public/resources/${token}`, status: 200 },
      {
        method: 'GET',
        url: `/api/public/resources/${token}/availability?from=${at(mon, 8)}&to=${at(mon, 9)}`,
        status: 200,
      },
      {
        method: 'POST',
        url: `/api/public/resources/${token}/reservations`,
        payload: { startTime: at(mon, 10), endTime: at(mon, 11), customer },
        status: 201,
      },
      // No route matches: a typo after the token, or a doubled slash, is redacted all the same.
      { method: 'GET', url: `/api/public/resources/${token}/typo`, status: 404 },
      { method: 'GET', url: `/api/public//resources/${token}`, status: 404 },
      // A bad percent-escape: Fastify's error names the whole URL.
      { method: 'GET', url: `/api/public/resources/${token}%zz/availability`, status: 400 },
      // The manage and feed paths later issues add are covered by the same rule now.
      { method: 'GET', url: `/api/public/reservations/${token}`, status: 404 },
      { method: 'POST', url: `/api/public/reservations/${token}/cancel`, status: 404 },
      { method: 'DELETE', url: `/api/public/waitlist/${token}`, status: 404 },
      { method: 'GET', url: `/api/feeds/${token}.ics`, status: 404 },
      // The web app's manage page (built by `npm install`).
      { method: 'GET', url: `/manage/${token}`, status: 200 },
    ] as const;
    for (const { status, ...request } of requests) {
      const response = await app.inject(request);
      assert.equal(response.statusCode, status, `${request.method} ${request.url}: ${response.body}`);
    }
    const text = lines.join('');
    assert.equal(text.includes(token), false, 'a log line holds the token');
    const urls = entries()
      .filter((entry) => entry.msg === 'request completed')
      .map((entry) => entry.req.url);
    assert.deepEqual(urls, [
      '/api/public/resources/[token]',
      '/api/public/resources/[token]/availability',
      '/api/public/resources/[token]/reservations',
      '/api/public/resources/[token]/typo',
      '/api/public//resources/[token]',
      // (Fastify writes no access line for a URL it cannot decode.)
      '/api/public/reservations/[token]',
      '/api/public/reservations/[token]/cancel',
      '/api/public/waitlist/[token]',
      '/api/feeds/[token]',
      '/manage/[token]',
    ]);
  });

  test('error lines of such requests hold no token: the 500 and its error, a reply sent twice', async () => {
    lines.length = 0;
    const broken = await app.inject({ method: 'GET', url: `/api/public/resources/${token}/broken` });
    assert.equal(broken.statusCode, 500);
    assert.equal(broken.body.includes(token), false);
    await app.inject({ method: 'GET', url: `/api/public/resources/${token}/twice` });
    const logged = entries();
    const failure = logged.find((entry) => entry.msg === 'request failed');
    assert.ok(failure, JSON.stringify(logged));
    assert.equal(failure.err.message, 'could not serve /api/public/resources/[token]/broken');
    assert.match(failure.err.stack, /could not serve \/api\/public\/resources\/\[token\]\/broken/);
    assert.ok(
      logged.some(
        (entry) => entry.level === 40 && JSON.stringify(entry).includes('/api/public/resources/[token]'),
      ),
      'Fastify warns about the second reply, with the redacted URL',
    );
    assert.equal(lines.join('').includes(token), false, 'a log line holds the token');
  });

  test('paths that carry no secret stay as they are', async () => {
    lines.length = 0;
    await app.inject({ method: 'GET', url: '/api/public/organisations/logs-ltd' });
    await app.inject({ method: 'GET', url: '/api/resources/123/public-token' });
    assert.deepEqual(
      entries().map((entry) => entry.req?.url),
      ['/api/public/organisations/logs-ltd', '/api/resources/123/public-token'],
    );
  });
});
