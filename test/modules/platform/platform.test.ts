import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestApp, type TestApp } from '../../helpers/app.js';

describe('platform routes', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp({
      FEATURE_FLAGS: '{"publicBooking":false,"beta":true}',
      INGEST_MAX_ROWS: '3',
    });
  });
  after(() => t.close());

  test('root, health and the legacy alias', async () => {
    const root = await t.app.inject({ method: 'GET', url: '/api/' });
    assert.equal(root.statusCode, 200);
    assert.equal(root.json().docs, '/api/docs');
    for (const url of ['/api/health', '/api/healthz']) {
      const r = await t.app.inject({ method: 'GET', url });
      assert.equal(r.statusCode, 200);
      assert.equal(r.json().status, 'ok');
    }
  });

  test('every response carries a request id, and a sane incoming one is kept', async () => {
    const r = await t.app.inject({
      method: 'GET',
      url: '/api/health',
      headers: { 'x-request-id': 'trace-123' },
    });
    assert.equal(r.headers['x-request-id'], 'trace-123');
    const bad = await t.app.inject({
      method: 'GET',
      url: '/api/health',
      headers: { 'x-request-id': 'a b\nc' },
    });
    assert.notEqual(bad.headers['x-request-id'], 'a b\nc');
    assert.match(String(bad.headers['x-request-id']), /^[0-9a-f-]{36}$/);
  });

  test('ready does a database round trip', async () => {
    const r = await t.app.inject({ method: 'GET', url: '/api/ready' });
    assert.equal(r.statusCode, 200);
    assert.deepEqual(r.json(), { status: 'ready', database: 'ok' });
  });

  test('feature flags merge FEATURE_FLAGS over the defaults', async () => {
    const r = await t.app.inject({ method: 'GET', url: '/api/feature-flags' });
    assert.equal(r.statusCode, 200);
    const body = r.json();
    assert.equal(body.flags.publicBooking, false);
    assert.equal(body.flags.beta, true);
    assert.equal(body.flags.mcp, true);
    assert.ok(!Number.isNaN(Date.parse(body.generatedAt)));
  });

  test('frontend errors: 202, stored, counted; limits enforced', async () => {
    const ok = await t.app.inject({
      method: 'POST',
      url: '/api/monitoring/frontend-errors',
      payload: { source: 'web', message: 'boom', severity: 'warn', details: { page: 'home' } },
    });
    assert.equal(ok.statusCode, 202);
    const stored = await t.db.kysely.selectFrom('frontendErrors').selectAll().execute();
    assert.equal(stored.length, 1);
    assert.equal(stored[0]!.severity, 'warn');
    assert.deepEqual(JSON.parse(stored[0]!.details!), { page: 'home' });

    for (const payload of [
      { source: 'x'.repeat(181), message: 'm' },
      { source: 's', message: 'm'.repeat(401) },
      { source: 's', message: 'm', stack: 's'.repeat(10_001) },
      { source: 's', message: 'm', url: 'u'.repeat(401) },
      { source: 's', message: 'm', severity: 'fatal' },
      { message: 'm' },
    ]) {
      const r = await t.app.inject({ method: 'POST', url: '/api/monitoring/frontend-errors', payload });
      assert.equal(r.statusCode, 400, JSON.stringify(payload).slice(0, 60));
      assert.equal(r.json().error.code, 'VALIDATION_FAILED');
    }
    assert.equal((await t.db.kysely.selectFrom('frontendErrors').selectAll().execute()).length, 1);
    const metrics = await t.app.inject({ method: 'GET', url: '/api/monitoring/metrics' });
    assert.match(metrics.body, /frontend_errors_total\{severity="warn"\} 1/);
  });

  test('security reports: both media types and both body styles, 204, stored with a bound on rows', async () => {
    const csp = { 'csp-report': { 'document-uri': 'https://a.test', 'violated-directive': 'script-src' } };
    const cases: Array<[string, string, unknown]> = [
      ['/api/security/reports/csp', 'application/csp-report', csp],
      ['/api/security/reports/csp', 'application/json', { cspReport: { blockedUri: 'x' } }],
      ['/api/security/reports/csp', 'application/reports+json', [{ type: 'csp-violation', body: { a: 1 } }]],
      ['/api/security/reports/ct', 'application/json', { report: { hostname: 'a.test' } }],
    ];
    for (const [url, type, body] of cases) {
      const r = await t.app.inject({
        method: 'POST',
        url,
        headers: { 'content-type': type },
        payload: JSON.stringify(body),
      });
      assert.equal(r.statusCode, 204, `${url} ${type}`);
    }
    const rows = await t.db.kysely
      .selectFrom('securityReports')
      .select(['kind', 'body'])
      .orderBy('id')
      .execute();
    assert.equal(rows.length, 3, 'bounded at INGEST_MAX_ROWS');
    assert.deepEqual(
      rows.map((r) => r.kind),
      ['csp', 'csp', 'ct'],
    );
    const bad = await t.app.inject({
      method: 'POST',
      url: '/api/security/reports/csp',
      headers: { 'content-type': 'application/json' },
      payload: '"just a string"',
    });
    assert.equal(bad.statusCode, 400);
    const metrics = await t.app.inject({ method: 'GET', url: '/api/monitoring/metrics/json' });
    const counter = metrics.json().find((m: { name: string }) => m.name === 'security_reports_total');
    const csvCount = counter.values.find((v: { labels: { kind: string } }) => v.labels.kind === 'csp').value;
    assert.equal(csvCount, 3);
  });

  test('honeypot: page 200, submit 401, hits recorded and counted, then /api/auth/* is blocked for that IP', async () => {
    const ip = '203.0.113.9';
    const before = await t.app.inject({ method: 'GET', url: '/api/auth/me', remoteAddress: ip });
    assert.equal(before.statusCode, 401);

    const page = await t.app.inject({
      method: 'GET',
      url: '/api/security/honeypot/admin-login',
      remoteAddress: ip,
    });
    assert.equal(page.statusCode, 200);
    assert.match(String(page.headers['content-type']), /text\/html/);
    assert.match(page.body, /<form/);
    const afterVisit = await t.app.inject({ method: 'GET', url: '/api/auth/me', remoteAddress: ip });
    assert.equal(afterVisit.statusCode, 401, 'a visit to the trap page alone blocks nothing');
    const submit = await t.app.inject({
      method: 'POST',
      url: '/api/security/honeypot/submit',
      remoteAddress: ip,
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'user-agent': 'bot/1.0' },
      payload: 'username=admin&password=admin',
    });
    assert.equal(submit.statusCode, 401);
    assert.equal(submit.json().error.code, 'UNAUTHENTICATED');

    const hits = await t.db.kysely.selectFrom('honeypotHits').selectAll().where('ip', '=', ip).execute();
    assert.equal(hits.length, 2);
    assert.equal(hits[1]!.userAgent, 'bot/1.0');

    const blocked = await t.app.inject({
      method: 'POST',
      url: '/api/auth/login',
      remoteAddress: ip,
      payload: { email: 'a@b.test', password: 'whatever' },
    });
    assert.equal(blocked.statusCode, 403);
    assert.equal(blocked.json().error.code, 'BLOCKED');
    const elsewhere = await t.app.inject({
      method: 'GET',
      url: '/api/auth/me',
      remoteAddress: '203.0.113.10',
    });
    assert.equal(elsewhere.statusCode, 401, 'other IPs are not blocked');
    const metrics = await t.app.inject({ method: 'GET', url: '/api/monitoring/metrics' });
    assert.match(metrics.body, /honeypot_hits_total\{path="\/api\/security\/honeypot\/submit"\} 1/);
  });

  test('honeypot: what any web page can make a browser send never blocks, and is still recorded', async () => {
    const ip = '203.0.113.21';
    // An <img src> of the trap page on any site, fetched by every visitor's browser.
    for (let i = 0; i < 3; i++) {
      const page = await t.app.inject({
        method: 'GET',
        url: '/api/security/honeypot/admin-login',
        remoteAddress: ip,
        headers: { 'sec-fetch-site': 'cross-site', 'sec-fetch-dest': 'image' },
      });
      assert.equal(page.statusCode, 200);
    }
    // A hidden form another site's page posts into the trap (by Sec-Fetch-Site, or by Origin alone).
    for (const headers of [
      { 'sec-fetch-site': 'cross-site', origin: 'https://evil.example' },
      { origin: 'https://evil.example' },
      { origin: 'null' },
    ]) {
      const forged = await t.app.inject({
        method: 'POST',
        url: '/api/security/honeypot/submit',
        remoteAddress: ip,
        headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
        payload: 'username=admin&password=admin',
      });
      assert.equal(forged.statusCode, 401);
    }
    // Recorded all the same (this suite keeps the newest 3 rows: the three forged posts).
    const hits = await t.db.kysely.selectFrom('honeypotHits').select('path').where('ip', '=', ip).execute();
    assert.deepEqual(
      hits.map((hit) => hit.path),
      Array(3).fill('/api/security/honeypot/submit'),
    );
    const login = await t.app.inject({
      method: 'POST',
      url: '/api/auth/login',
      remoteAddress: ip,
      payload: { email: 'nobody@example.test', password: 'whatever12' },
    });
    assert.equal(login.statusCode, 401, 'the visitor can still sign in');
    assert.equal(login.json().error.code, 'UNAUTHENTICATED');

    // The trap's own form, submitted from the trap page (same origin), blocks.
    const typed = await t.app.inject({
      method: 'POST',
      url: '/api/security/honeypot/submit',
      remoteAddress: ip,
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        'sec-fetch-site': 'same-origin',
        origin: 'http://service.test',
      },
      payload: 'username=admin&password=admin',
    });
    assert.equal(typed.statusCode, 401);
    const blocked = await t.app.inject({ method: 'GET', url: '/api/auth/me', remoteAddress: ip });
    assert.equal(blocked.statusCode, 403);
    assert.equal(blocked.json().error.code, 'BLOCKED');
  });

  test('metrics: Prometheus text with process metrics and request histograms by route template', async () => {
    const count = async (labels: string) => {
      const text = (await t.app.inject({ method: 'GET', url: '/api/monitoring/metrics' })).body;
      const line = text.split('\n').find((l) => l.startsWith(`http_requests_total{${labels}}`));
      return line ? Number(line.split(' ').pop()) : 0;
    };
    const health = 'route="/api/health",method="GET",status_code="200"';
    const unmatched = 'route="unmatched",method="GET",status_code="404"';
    const [healthBefore, unmatchedBefore] = [await count(health), await count(unmatched)];
    for (let i = 0; i < 3; i++) await t.app.inject({ method: 'GET', url: '/api/health' });
    await t.app.inject({ method: 'GET', url: '/api/no-such-route/42' });
    assert.equal(await count(health), healthBefore + 3, 'every request counted once');
    assert.equal(await count(unmatched), unmatchedBefore + 1, 'unknown paths count under one label');
    const r = await t.app.inject({ method: 'GET', url: '/api/monitoring/metrics' });
    assert.equal(r.statusCode, 200);
    assert.match(String(r.headers['content-type']), /text\/plain/);
    assert.match(r.body, /process_cpu_user_seconds_total/);
    assert.match(
      r.body,
      /http_request_duration_seconds_bucket\{.*route="\/api\/health".*method="GET".*status_code="200"/,
    );
    assert.match(r.body, /http_requests_total\{route="\/api\/health",method="GET",status_code="200"\}/);
    const json = await t.app.inject({ method: 'GET', url: '/api/monitoring/metrics/json' });
    assert.equal(json.statusCode, 200);
    assert.ok(json.json().some((m: { name: string }) => m.name === 'http_requests_total'));
  });

  test('OpenAPI 3.1 document and the docs page', async () => {
    const spec = await t.app.inject({ method: 'GET', url: '/api/openapi.json' });
    assert.equal(spec.statusCode, 200);
    const doc = spec.json();
    assert.equal(doc.openapi, '3.1.0');
    assert.ok(doc.paths['/api/auth/me'].get.security.some((s: object) => 'apiKeyHeader' in s));
    assert.deepEqual(doc.paths['/api/health'].get.security, []);
    assert.ok(doc.paths['/api/auth/register'].post.requestBody);
    const page = await t.app.inject({ method: 'GET', url: '/api/docs/' });
    assert.equal(page.statusCode, 200);
    assert.match(page.body, /swagger/i);
  });

  test('security headers and CORS allow-list', async () => {
    const allowed = await t.app.inject({
      method: 'GET',
      url: '/api/health',
      headers: { origin: 'http://frontend.test' },
    });
    assert.equal(allowed.headers['access-control-allow-origin'], 'http://frontend.test');
    assert.equal(allowed.headers['x-content-type-options'], 'nosniff');
    assert.ok(allowed.headers['strict-transport-security']);
    const foreign = await t.app.inject({
      method: 'GET',
      url: '/api/health',
      headers: { origin: 'http://evil.test' },
    });
    assert.equal(foreign.headers['access-control-allow-origin'], undefined);
  });

  test('CORS for browser MCP clients: their request headers pass the preflight, session and challenge are readable', async () => {
    const mcpHeaders = [
      'mcp-session-id',
      'mcp-protocol-version',
      'mcp-method',
      'mcp-name',
      'last-event-id',
      'x-agent-key',
      'x-agent-token',
      'authorization',
      'content-type',
    ];
    const preflight = (url: string, origin: string) =>
      t.app.inject({
        method: 'OPTIONS',
        url,
        headers: {
          origin,
          'access-control-request-method': 'POST',
          'access-control-request-headers': mcpHeaders.join(', '),
        },
      });
    const allowed = await preflight('/api/mcp', 'http://frontend.test');
    assert.equal(allowed.statusCode, 204);
    assert.equal(allowed.headers['access-control-allow-origin'], 'http://frontend.test');
    assert.equal(allowed.headers['access-control-allow-credentials'], 'true');
    assert.match(String(allowed.headers['access-control-allow-methods']), /\bPOST\b.*\bDELETE\b/);
    const allowHeaders = String(allowed.headers['access-control-allow-headers']).split(', ');
    for (const header of mcpHeaders) assert.ok(allowHeaders.includes(header), header);

    // The MCP Origin rule admits PUBLIC_URL too, so CORS on /api/mcp does; other routes keep CORS_ORIGINS.
    const own = await preflight('/api/mcp', 'http://service.test');
    assert.equal(own.statusCode, 204);
    assert.equal(own.headers['access-control-allow-origin'], 'http://service.test');
    const gateway = await preflight('/api/mcp/execute', 'http://service.test');
    assert.equal(gateway.headers['access-control-allow-origin'], 'http://service.test');
    const elsewhere = await preflight('/api/agents', 'http://service.test');
    assert.equal(elsewhere.headers['access-control-allow-origin'], undefined);
    const lookalike = await preflight('/api/mcpx', 'http://service.test');
    assert.equal(lookalike.headers['access-control-allow-origin'], undefined);
    const foreign = await preflight('/api/mcp', 'http://evil.test');
    assert.equal(foreign.headers['access-control-allow-origin'], undefined);
    assert.equal(foreign.headers['access-control-allow-headers'], undefined);

    // The actual request: a browser may read the session id and the 401 challenge.
    const unauthenticated = await t.app.inject({
      method: 'POST',
      url: '/api/mcp',
      headers: { origin: 'http://frontend.test', 'content-type': 'application/json' },
      payload: { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} },
    });
    assert.equal(unauthenticated.statusCode, 401);
    assert.equal(unauthenticated.headers['access-control-allow-origin'], 'http://frontend.test');
    assert.ok(unauthenticated.headers['www-authenticate']);
    const exposed = String(unauthenticated.headers['access-control-expose-headers']).split(', ');
    for (const header of ['mcp-session-id', 'www-authenticate']) assert.ok(exposed.includes(header), header);
  });
});

describe('tables fed by public routes stay bounded', () => {
  test('frontend errors and honeypot hits keep only the newest INGEST_MAX_ROWS rows', async () => {
    const t = await createTestApp({ INGEST_MAX_ROWS: '2' });
    try {
      for (let i = 0; i < 4; i++) {
        await t.app.inject({
          method: 'POST',
          url: '/api/monitoring/frontend-errors',
          payload: { source: 'web', message: `error ${i}` },
        });
        await t.app.inject({
          method: 'GET',
          url: '/api/security/honeypot/admin-login',
          remoteAddress: `10.7.0.${i}`,
        });
      }
      const errors = await t.db.kysely.selectFrom('frontendErrors').select('message').orderBy('id').execute();
      assert.deepEqual(
        errors.map((e) => e.message),
        ['error 2', 'error 3'],
      );
      const hits = await t.db.kysely.selectFrom('honeypotHits').select('ip').orderBy('id').execute();
      assert.deepEqual(
        hits.map((h) => h.ip),
        ['10.7.0.2', '10.7.0.3'],
      );
    } finally {
      await t.close();
    }
  });
});

describe('readiness when the database is gone', () => {
  test('ready answers 503 NOT_READY once the database is closed', async () => {
    const t = await createTestApp();
    try {
      await t.db.close();
      const r = await t.app.inject({ method: 'GET', url: '/api/ready' });
      assert.equal(r.statusCode, 503);
      assert.equal(r.json().error.code, 'NOT_READY');
      assert.equal(JSON.stringify(r.json()).toLowerCase().includes('select'), false);
    } finally {
      await t.app.close();
    }
  });
});
