import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/client';
import type { LightMyRequestResponse } from 'fastify';
import { createTestApp, registerUser, type SignedInUser, type TestApp, uniqueEmail } from '../helpers/app.js';
import { connectClient } from '../helpers/mcp.js';
import { authorize, authorizeQuery, pkce, REDIRECT_URI, registerClient } from '../helpers/oauth.js';

/**
 * One rule for text: a NUL (or any C0 control but tab, line feed and carriage return) in
 * any string input is 400 VALIDATION_FAILED naming where it is, on every route and tool and
 * on both databases (PostgreSQL refuses NUL in text; SQLite would store it). Nothing is written.
 */
describe('control characters in string input', () => {
  let t: TestApp;
  let user: SignedInUser;

  before(async () => {
    t = await createTestApp({ MCP_ALLOWED_ORIGINS: 'https://agent-console.test' });
    user = await registerUser(t.app);
  });
  after(() => t.close());

  const send = (method: 'GET' | 'POST' | 'PUT' | 'PATCH', url: string, payload?: unknown, auth = true) =>
    t.app.inject({
      method,
      url,
      ...(auth ? { headers: user.auth } : {}),
      ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }),
    });

  function expectRefused(response: LightMyRequestResponse, path: string, found = 'U\\+0000') {
    assert.equal(response.statusCode, 400, response.body);
    const { error } = response.json();
    assert.equal(error.code, 'VALIDATION_FAILED');
    assert.deepEqual(
      error.details.map((d: { path: string }) => d.path),
      [path],
    );
    assert.match(error.details[0].message, new RegExp(`control characters \\(found ${found}\\)`));
    assert.ok(error.message.includes(path), error.message);
  }

  test('a NUL in a string field of a body is a 400 naming the field, on every kind of route', async () => {
    const cases: Array<[string, () => Promise<LightMyRequestResponse>, string]> = [
      [
        'registration',
        () =>
          send(
            'POST',
            '/api/auth/register',
            { email: uniqueEmail(), password: 'correct horse battery', name: 'Ada\u0000' },
            false,
          ),
        'body.name',
      ],
      ['calendars', () => send('POST', '/api/calendars', { name: 'Work\u0000' }), 'body.name'],
      ['tasks', () => send('POST', '/api/tasks', { title: 'Buy\u0000milk' }), 'body.title'],
      ['agents', () => send('POST', '/api/agents', { name: '\u0000' }), 'body.name'],
      ['API keys', () => send('POST', '/api/auth/api-keys', { label: 'ci\u0000' }), 'body.label'],
      [
        'consents',
        () =>
          send('PUT', '/api/compliance/me/privacy/consents/marketing_email', {
            decision: 'accepted',
            policyVersion: 'v1\u0000',
          }),
        'body.policyVersion',
      ],
      [
        'frontend errors',
        () =>
          send('POST', '/api/monitoring/frontend-errors', { source: 'web', message: 'boom\u0000' }, false),
        'body.message',
      ],
      [
        'frontend errors, nested',
        () =>
          send(
            'POST',
            '/api/monitoring/frontend-errors',
            { source: 'web', message: 'boom', details: { frames: ['ok', 'bad\u0000'] } },
            false,
          ),
        'body.details.frames.1',
      ],
    ];
    for (const [name, call, path] of cases) {
      const response = await call();
      assert.equal(response.statusCode, 400, `${name}: ${response.body}`);
      expectRefused(response, path);
    }
  });

  test('in a query parameter and in a path parameter', async () => {
    expectRefused(await send('GET', '/api/household/items?location=Fridge%00'), 'querystring.location');
    expectRefused(await send('GET', '/api/public/resources/abc%00def', undefined, false), 'params.token');
    expectRefused(
      await send('GET', '/api/public/organisations/acme%00/availability?resourceId=1', undefined, false),
      'params.slug',
    );
  });

  test('every C0 control but tab, line feed and carriage return; in a field name too', async () => {
    expectRefused(await send('POST', '/api/tasks', { title: 'ring\u0007' }), 'body.title', 'U\\+0007');
    expectRefused(await send('POST', '/api/tasks', { title: 'esc\u001b[31m' }), 'body.title', 'U\\+001B');
    expectRefused(await send('POST', '/api/tasks', { title: 'form\u000cfeed' }), 'body.title', 'U\\+000C');
    const key = await send(
      'POST',
      '/api/monitoring/frontend-errors',
      { source: 'web', message: 'boom', details: { 'a\u0000b': 1 } },
      false,
    );
    assert.equal(key.statusCode, 400, key.body);
    assert.equal(key.json().error.details[0].path, 'body.details');
    assert.match(key.json().error.details[0].message, /field name/);

    const fine = await send('POST', '/api/tasks', {
      title: 'Plan',
      notes: 'line one\r\nline two\twith a tab',
    });
    assert.equal(fine.statusCode, 201, fine.body);
    assert.equal(fine.json().notes, 'line one\r\nline two\twith a tab');
  });

  test('nothing was written by a refused request', async () => {
    const tasks = (await send('GET', '/api/tasks')).json().items as Array<{ title: string }>;
    assert.deepEqual(
      tasks.map((task) => task.title),
      ['Plan'],
    );
    const calendars = (await send('GET', '/api/calendars')).json() as Array<{ name: string }>;
    assert.equal(
      calendars.some((calendar) => calendar.name.includes('\u0000')),
      false,
    );
    const errors = await t.db.kysely.selectFrom('frontendErrors').select('message').execute();
    assert.equal(errors.length, 0);
  });

  test('an MCP tool argument with a NUL is a VALIDATION_FAILED tool error, and nothing is created', async () => {
    const agent = (await send('POST', '/api/agents', { name: 'Helper' })).json();
    const permissions = await send('PUT', `/api/agents/${agent.id}/permissions`, {
      permissions: [{ actionKey: 'tasks.create' }, { actionKey: 'tasks.list' }],
    });
    assert.equal(permissions.statusCode, 200, permissions.body);
    const key = (await send('POST', `/api/agents/${agent.id}/keys`, { label: 'k' })).json().key;
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const address = t.app.server.address();
    if (!address || typeof address === 'string') throw new Error('no port');
    let client: Client | undefined;
    try {
      ({ client } = await connectClient(new URL(`http://127.0.0.1:${address.port}/api/mcp`), {
        'x-agent-key': key,
      }));
      const refused = await client.callTool({
        name: 'tasks_create',
        arguments: { title: 'From\u0000agent' },
      });
      assert.equal(refused.isError, true);
      const { error } = refused.structuredContent as { error: { code: string; message: string } };
      assert.equal(error.code, 'VALIDATION_FAILED');
      assert.match(error.message, /title: must not contain control characters \(found U\+0000\)/);
      const nested = await client.callTool({
        name: 'tasks_create',
        arguments: { title: 'ok', notes: 'bell\u0007' },
      });
      assert.equal(nested.isError, true);
      assert.equal((nested.structuredContent as { error: { code: string } }).error.code, 'VALIDATION_FAILED');
      const created = await client.callTool({ name: 'tasks_create', arguments: { title: 'From agent' } });
      assert.equal(created.isError, undefined, JSON.stringify(created.structuredContent));
      // A tool name with a NUL names no tool; the call is still recorded, on both databases.
      const unknown = await client.callTool({ name: 'tasks_\u0000create', arguments: {} });
      assert.equal((unknown.structuredContent as { error: { code: string } }).error.code, 'NOT_FOUND');
    } finally {
      await client?.close();
    }
    const activity = (await send('GET', `/api/agents/${agent.id}/activity`)).json().items as Array<{
      actionKey: string;
      errorCode: string | null;
    }>;
    assert.deepEqual(activity.map((item) => [item.actionKey, item.errorCode]).reverse(), [
      ['tasks.create', 'VALIDATION_FAILED'],
      ['tasks.create', 'VALIDATION_FAILED'],
      ['tasks.create', null],
      ['tasks_\uFFFDcreate', 'NOT_FOUND'],
    ]);
    const titles = ((await send('GET', '/api/tasks')).json().items as Array<{ title: string }>).map(
      (task) => task.title,
    );
    assert.deepEqual(titles.sort(), ['From agent', 'Plan']);
  });

  // Routes that take their own validation failures (attachValidation) or check their body
  // themselves get the same rule: a NUL never reaches a lookup (a 500 on PostgreSQL).

  test('the OAuth token endpoint answers invalid_request (RFC 6749 §5.2), form-encoded and JSON', async () => {
    const client = await registerClient(t.app);
    const { verifier } = pkce();
    const parameters = {
      grant_type: 'authorization_code',
      client_id: `${client.client_id}\u0000`,
      code: 'abc',
      redirect_uri: REDIRECT_URI,
      code_verifier: verifier,
    };
    const form = await t.app.inject({
      method: 'POST',
      url: '/api/oauth/token',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams(parameters).toString(),
    });
    const json = await t.app.inject({ method: 'POST', url: '/api/oauth/token', payload: parameters });
    for (const response of [form, json]) {
      assert.equal(response.statusCode, 400, response.body);
      assert.equal(response.headers['cache-control'], 'no-store');
      const body = response.json();
      assert.deepEqual(Object.keys(body).sort(), ['error', 'error_description']);
      assert.equal(body.error, 'invalid_request');
      assert.match(
        body.error_description,
        /client_id: must not contain control characters \(found U\+0000\)/,
      );
    }
  });

  test('OAuth authorize answers 400 and never redirects: the HTML page, or the envelope', async () => {
    const client = await registerClient(t.app);
    const query = authorizeQuery(client, { challenge: pkce().challenge, state: 'st\u0000ate' });
    const page = await authorize(t.app, query);
    assert.equal(page.statusCode, 400, page.body);
    assert.equal(page.headers.location, undefined);
    assert.match(String(page.headers['content-type']), /^text\/html/);
    assert.match(page.body, /must not contain control characters \(found U\+0000\)/);

    query.set('state', 'fine');
    query.set('client_id', `${client.client_id}\u0000`);
    const json = await t.app.inject({
      method: 'GET',
      url: `/api/oauth/authorize?${query}`,
      headers: { accept: 'application/json' },
    });
    assert.equal(json.headers.location, undefined);
    expectRefused(json, 'querystring.client_id');
  });

  test('the calendar_provider_b webhook refuses a notification batch with a NUL before any lookup', async () => {
    const response = await send(
      'POST',
      '/api/calendar-sync/webhooks/calendar_provider_b',
      { value: [{ subscriptionId: 'sub\u0000', clientState: 'state', changeType: 'updated' }] },
      false,
    );
    expectRefused(response, 'body.value.0.subscriptionId');
  });
});
