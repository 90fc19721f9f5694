import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/client';
import { trace } from '@opentelemetry/api';
import { z } from 'zod';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { activeTracer, flushTraces, inSpan } from '../../src/lib/tracing.js';
import { createProviderHttp } from '../../src/modules/calendar-sync/providers/http.js';
import { createProviderCaller } from '../../src/modules/payments/provider-http-client.js';
import { createTestApp, createTestDatabase, TEST_ENV, type TestApp } from '../helpers/app.js';
import { at, book, customer, futureMonday } from '../helpers/booking.js';
import { createResource, createType } from '../helpers/catalogue.js';
import { client, expectStatus } from '../helpers/http.js';
import { agentClient } from '../helpers/mcp.js';
import { type OrgOwner, ownerWithOrganisation } from '../helpers/organisations.js';
import { type OtlpReceiver, type ReceivedSpan, startOtlpReceiver } from '../helpers/otlp-receiver.js';
import { type Receiver, startReceiver, webhooksOf } from '../modules/webhooks/helpers.js';

/** What the OpenTelemetry API keeps once a provider, context manager or propagator registers. */
const registeredWithApi = () =>
  (globalThis as Record<symbol, Record<string, unknown> | undefined>)[Symbol.for('opentelemetry.js.api.1')];

const SERVER = 2;
const CLIENT = 3;
const CONSUMER = 5;
const ERROR = 2;
const DB_SYSTEM = process.env.TEST_DATABASE_URL ? 'postgresql' : 'sqlite';
const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-01$/;

const newTraceparent = () => {
  const traceId = randomBytes(16).toString('hex');
  const parentId = randomBytes(8).toString('hex');
  return { traceId, parentId, header: `00-${traceId}-${parentId}-01` };
};

describe('traces, OTEL_EXPORTER_OTLP_ENDPOINT unset', () => {
  test('no tracer provider is registered: the API answers its no-op tracer, requests are answered as ever', async () => {
    const t = await createTestApp();
    try {
      assert.equal(registeredWithApi()?.trace, undefined, 'no tracer provider registered');
      assert.equal(registeredWithApi()?.context, undefined, 'no context manager registered');
      assert.equal(activeTracer(), undefined);
      const probe = trace.getTracer('probe').startSpan('probe');
      assert.equal(probe.isRecording(), false);
      assert.equal(probe.spanContext().traceId, '0'.repeat(32));
      probe.end();
      const { header } = newTraceparent();
      const health = await client(t.app, null).request('GET', '/api/health', undefined, {
        traceparent: header,
      });
      expectStatus(health, 200);
    } finally {
      await t.close();
    }
  });
});

describe('traces over OTLP/HTTP', () => {
  let otlp: OtlpReceiver;
  let hooks: Receiver;
  let t: TestApp;
  let owner: OrgOwner;
  let room: { id: number };
  let mcp: Client | undefined;
  const mon = futureMonday();
  const slot = (hour: number) => ({
    resourceId: room.id,
    startTime: at(mon, hour),
    endTime: at(mon, hour + 1),
  });
  const inTrace = (traceId: string) => otlp.spans.filter((span) => span.traceId === traceId);
  const queriesUnder = (parent: ReceivedSpan) =>
    otlp.spans.filter((span) => span.parentSpanId === parent.spanId && span.attributes['db.system.name']);
  /** Every export so far, as sent: nothing secret or personal may be in it. */
  const exported = () => otlp.bodies.join('\n');

  before(async () => {
    otlp = await startOtlpReceiver();
    hooks = await startReceiver();
    t = await createTestApp({
      OTEL_EXPORTER_OTLP_ENDPOINT: otlp.endpoint,
      OTEL_EXPORTER_OTLP_HEADERS: 'x-collector-key=collector%20secret',
      OTEL_SERVICE_NAME: 'reservations-under-test',
      WEBHOOK_ALLOW_PRIVATE: 'true',
    });
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    owner = await ownerWithOrganisation(t.app, { timezone: 'UTC' });
    const type = await createType(t.app, owner);
    room = await createResource(t.app, owner, { name: 'Room 1', resourceTypeId: type.id });
  });
  after(async () => {
    await mcp?.close().catch(() => {});
    await t.close();
    await hooks.close();
    await otlp.close();
  });

  test('a booking: a server span continuing the caller trace, its queries as children, no parameter', async () => {
    assert.ok(registeredWithApi()?.trace, 'a tracer provider is registered');
    const caller = newTraceparent();
    const response = await book(t.app, owner, slot(9), { headers: { traceparent: caller.header } });
    expectStatus(response, 201);
    await flushTraces();

    const server = inTrace(caller.traceId).find((span) => span.kind === SERVER);
    assert.ok(server, 'the request has a server span in the caller trace');
    assert.equal(server.parentSpanId, caller.parentId);
    assert.equal(server.name, 'POST /api/reservations');
    assert.equal(server.attributes['http.route'], '/api/reservations');
    assert.equal(server.attributes['http.request.method'], 'POST');
    assert.equal(server.attributes['http.response.status_code'], 201);
    assert.equal(server.statusCode, 0);
    assert.equal(server.resource['service.name'], 'reservations-under-test');

    const queries = inTrace(caller.traceId).filter((span) => span.attributes['db.system.name']);
    assert.ok(queries.length > 0, 'the queries are in the trace');
    for (const query of queries) {
      assert.equal(query.parentSpanId, server.spanId, `${query.name} is a child of the request`);
      assert.equal(query.kind, CLIENT);
      assert.equal(query.attributes['db.system.name'], DB_SYSTEM);
      assert.equal(query.attributes['db.system'], DB_SYSTEM);
    }
    const insert = queries.find(
      (query) =>
        query.attributes['db.operation.name'] === 'INSERT' &&
        query.attributes['db.collection.name'] === 'reservations',
    );
    assert.ok(insert, `the reservation insert is traced: ${queries.map((q) => q.name).join(', ')}`);
    assert.equal(insert.name, 'INSERT reservations');
    assert.ok(!exported().includes(customer.email), 'no parameter is exported');
    assert.ok(!exported().includes('collector secret'), 'the exporter headers are not exported');
    assert.equal(otlp.requests.at(-1)?.headers['x-collector-key'], 'collector secret');
  });

  test('bookings arriving together: each insert is a child of its own request (one SQLite commit or not)', async () => {
    const callers = [newTraceparent(), newTraceparent(), newTraceparent()];
    const responses = await Promise.all(
      callers.map((caller, i) =>
        book(t.app, owner, slot(13 + i), { headers: { traceparent: caller.header } }),
      ),
    );
    for (const response of responses) expectStatus(response, 201);
    await flushTraces();
    for (const caller of callers) {
      const server = inTrace(caller.traceId).find((span) => span.kind === SERVER);
      assert.ok(server);
      const inserts = queriesUnder(server).filter((query) => query.name === 'INSERT reservations');
      assert.equal(inserts.length, 1, `one insert under ${caller.traceId}`);
      const bookkeeping = queriesUnder(server).filter((query) => /^(SAVEPOINT|RELEASE)/.test(query.name));
      assert.deepEqual(bookkeeping, [], "the group commit's savepoints make no span");
    }
  });

  test('a failing request marks nothing failed for a 4xx; the route template names an unmatched id', async () => {
    const caller = newTraceparent();
    const missing = await client(t.app, owner).request('GET', '/api/reservations/987654', undefined, {
      ...owner.auth,
      traceparent: caller.header,
    });
    expectStatus(missing, 404);
    await flushTraces();
    const server = inTrace(caller.traceId).find((span) => span.kind === SERVER);
    assert.ok(server);
    assert.equal(server.name, 'GET /api/reservations/:id');
    assert.equal(server.attributes['http.response.status_code'], 404);
    assert.equal(server.statusCode, 0);
  });

  test('an MCP tool call: a span per tools/call under the request, its queries under it, errors flagged, no argument', async () => {
    mcp = await agentClient(t.app, owner, 'reservations_operator');
    const held = await mcp.callTool({
      name: 'reservations_hold',
      arguments: { ...slot(11), customer, holdSeconds: 300 },
    });
    assert.equal(held.isError, undefined, JSON.stringify(held.structuredContent));
    const refused = await mcp.callTool({
      name: 'reservations_hold',
      arguments: { ...slot(12), resourceId: 876_543, customer, holdSeconds: 300 },
    });
    assert.equal(refused.isError, true);
    await flushTraces();

    const calls = otlp.spans.filter((span) => span.attributes['mcp.method.name'] === 'tools/call');
    assert.equal(calls.length, 2, calls.map((call) => call.name).join(', '));
    const [ok, failed] = calls as [ReceivedSpan, ReceivedSpan];
    assert.equal(ok.name, 'tools/call reservations_hold');
    assert.equal(ok.attributes['gen_ai.tool.name'], 'reservations_hold');
    assert.equal(ok.statusCode, 0);
    const request = otlp.spans.find((span) => span.spanId === ok.parentSpanId);
    assert.ok(request, 'the tool call is a child of its request');
    assert.equal(request.kind, SERVER);
    assert.equal(request.traceId, ok.traceId);
    assert.match(request.name, /^POST \/api\/mcp/);
    assert.ok(
      queriesUnder(ok).some((query) => query.attributes['db.collection.name'] === 'reservations'),
      'the hold is written under the tool call',
    );
    assert.equal(failed.statusCode, ERROR);
    const { error } = refused.structuredContent as { error: { code: string } };
    assert.equal(failed.attributes['error.type'], error.code);
    assert.ok(!exported().includes(customer.email), 'no argument is exported');
    assert.ok(!exported().includes('876543'), 'no argument is exported');
  });

  test('a job run is a trace of its own, linked to the request that sent it; its webhook delivery a client span whose traceparent the receiver got', async () => {
    const endpoints = webhooksOf(t.app, owner, owner.organisationId);
    const secretPath = `path-secret-${randomBytes(6).toString('hex')}`;
    const hook = await endpoints.created({
      url: `${hooks.url}/${secretPath}`,
      events: ['reservation.created'],
    });
    expectStatus(await endpoints.test(hook.id), 202);
    await t.app.jobs.idle();
    await flushTraces();

    assert.equal(hooks.received.length, 1);
    const carried = TRACEPARENT.exec(hooks.received[0]!.headers.traceparent ?? '');
    assert.ok(carried, `the delivery carried a traceparent: ${hooks.received[0]!.headers.traceparent}`);
    const [, traceId, spanId] = carried;
    const delivery = otlp.spans.find((span) => span.spanId === spanId);
    assert.ok(delivery, 'the delivery span was exported');
    assert.equal(delivery.traceId, traceId);
    assert.equal(delivery.kind, CLIENT);
    assert.equal(delivery.name, 'POST');
    assert.equal(delivery.attributes['server.address'], '127.0.0.1');
    assert.equal(delivery.attributes['http.response.status_code'], 204);
    assert.equal(typeof delivery.attributes['webhook.event_id'], 'string');

    const job = otlp.spans.find((span) => span.spanId === delivery.parentSpanId);
    assert.ok(job, 'the delivery is a child of the job run');
    assert.equal(job.name, 'process webhooks.deliver');
    assert.equal(job.kind, CONSUMER);
    assert.equal(job.traceId, traceId);
    assert.equal(job.parentSpanId, undefined, 'a job run starts its own trace');
    // ...linked to the request that sent it, whose trace it is not.
    const sender = otlp.spans.find((span) => span.spanId === job.links[0]?.spanId);
    assert.ok(sender, `the job run links to the span that sent it: ${JSON.stringify(job.links)}`);
    assert.equal(sender.name, 'POST /api/organisations/:id/webhooks/:webhookId/test');
    assert.equal(job.links[0]!.traceId, sender.traceId);
    assert.notEqual(sender.traceId, job.traceId);
    assert.equal(job.attributes['messaging.destination.name'], 'webhooks.deliver');
    assert.ok(queriesUnder(job).length > 0, 'the job queries under its span');
    assert.ok(!exported().includes(secretPath), 'the webhook URL is not exported');
  });

  test('provider calls: a client span per attempt, its traceparent sent, no path or secret', async () => {
    const seen: Array<Record<string, string>> = [];
    const fakeFetch = (async (_url: unknown, init?: RequestInit) => {
      seen.push({ ...(init?.headers as Record<string, string>) });
      return new Response(JSON.stringify({ id: 'acct_1' }), { status: 200 });
    }) as typeof fetch;
    const payments = createProviderCaller({
      apiBase: 'https://payments.example',
      secretKey: 'sk_secret_for_tracing',
      timeoutMs: 1_000,
      fetch: fakeFetch,
    });
    const calendar = createProviderHttp({
      label: 'Provider A',
      timeoutMs: 1_000,
      allowedOrigins: ['https://calendar.example'],
      fetch: fakeFetch,
    });
    const parent = await inSpan('provider work', {}, async (span) => {
      await payments({
        method: 'GET',
        path: '/v1/accounts/acct_secret_path',
        parse: z.object({ id: z.string() }),
      });
      await calendar({ method: 'GET', url: 'https://calendar.example/calendars/secret-calendar/events' });
      return span!.spanContext();
    });
    await flushTraces();
    assert.equal(seen.length, 2);
    for (const [i, headers] of seen.entries()) {
      const carried = TRACEPARENT.exec(headers.traceparent ?? '');
      assert.ok(carried, `call ${i} carried a traceparent`);
      const span = otlp.spans.find((s) => s.spanId === carried[2]);
      assert.ok(span);
      assert.equal(span.kind, CLIENT);
      assert.equal(span.traceId, parent.traceId);
      assert.equal(span.parentSpanId, parent.spanId);
      assert.equal(span.attributes['http.response.status_code'], 200);
    }
    assert.deepEqual(
      otlp.spans.filter((s) => s.parentSpanId === parent.spanId).map((s) => s.attributes['server.address']),
      ['payments.example', 'calendar.example'],
    );
    for (const secret of ['acct_secret_path', 'secret-calendar', 'sk_secret_for_tracing'])
      assert.ok(!exported().includes(secret), secret);
  });

  test('closing the app sends the spans still buffered and unregisters the provider', async () => {
    const caller = newTraceparent();
    expectStatus(
      await client(t.app, null).request('GET', '/api/health', undefined, { traceparent: caller.header }),
      200,
    );
    await mcp?.close();
    mcp = undefined;
    await t.app.close();
    assert.ok(inTrace(caller.traceId).some((span) => span.name === 'GET /api/health'));
    assert.equal(registeredWithApi()?.trace, undefined, 'the provider is gone with the app');
    assert.equal(activeTracer(), undefined);
  });
});

describe('traces, the collector refusing or away', () => {
  test('requests are answered as ever; a failed export is a warning in the log; closing is not held up', async () => {
    // A collector answering 400 (not retried: the exporter gives up at once).
    const refusing = createServer((_request, response) => response.writeHead(400).end('{}'));
    await new Promise<void>((resolve) => refusing.listen(0, '127.0.0.1', resolve));
    const { port } = refusing.address() as AddressInfo;
    const { db, drop } = await createTestDatabase();
    const lines: string[] = [];
    // Batches go out on the processor's timer, as in production, soon (the SDK reads this itself).
    process.env.OTEL_BSP_SCHEDULE_DELAY = '20';
    const app = await buildApp(
      loadConfig({ ...TEST_ENV, LOG_LEVEL: 'warn', OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}` }),
      { db, logStream: { write: (line: string) => lines.push(line) } },
    );
    const warnings = () =>
      lines
        .map((line) => JSON.parse(line) as { component?: string; level: number; msg: string })
        .filter((line) => line.component === 'opentelemetry');
    try {
      expectStatus(await client(app, null).request('GET', '/api/health'), 200);
      for (const until = Date.now() + 5_000; warnings().length === 0 && Date.now() < until; )
        await new Promise((resolve) => setTimeout(resolve, 20));
      const [warning] = warnings();
      assert.ok(warning, lines.join('\n'));
      assert.equal(warning.level, 40);
      assert.match(warning.msg, /^tracing: /);
      // A span left to send when the collector is gone altogether: closing still ends, in time.
      refusing.closeAllConnections();
      await new Promise<void>((resolve) => refusing.close(() => resolve()));
      expectStatus(await client(app, null).request('GET', '/api/health'), 200);
      const started = Date.now();
      await app.close();
      assert.ok(Date.now() - started < 5_000, `closed in ${Date.now() - started} ms`);
    } finally {
      delete process.env.OTEL_BSP_SCHEDULE_DELAY;
      await app.close();
      await drop();
    }
  });
});
