import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { createServer, connect as netConnect, type Server, type Socket } from 'node:net';
import { after, before, describe, test } from 'node:test';
import Fastify, { type FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import { z } from 'zod';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { createDatabase, type Db, withoutStatementTimeout } from '../../src/db/database.js';
import { registerErrorHandling } from '../../src/http/errors.js';
import { asDomainError } from '../../src/lib/errors.js';
import type { ToolDefinition } from '../../src/mcp/types.js';
import { createTestDatabase, TEST_ENV, testDatabaseUrl } from '../helpers/app.js';
import { at, futureMonday } from '../helpers/booking.js';
import { createResource, createType } from '../helpers/catalogue.js';
import { connectClient, fakeTools, KEYS, newDirectory, startMcpServer } from '../helpers/mcp.js';
import { ownerWithOrganisation } from '../helpers/organisations.js';

// A dependency (PostgreSQL, Redis) goes away under booking load and comes back: the
// service stays up, answers every request in bounded time (503 UNAVAILABLE with
// Retry-After while it is gone), reports itself not ready, and recovers on its own with
// every acknowledged booking stored once. The dependency sits behind a TCP proxy the
// test cuts: every connection reset, new ones refused.

const PG_URL = process.env.TEST_DATABASE_URL;
const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
/** No answer may take longer than this, outage or not. */
const ANSWER_BOUND_MS = 5_000;
const CLIENTS = 10;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A TCP proxy in front of one dependency that can cut or stall every connection through it. */
class CuttableProxy {
  private state: 'open' | 'cut' | 'stalled' = 'open';
  private readonly pairs = new Set<{ client: Socket; upstream: Socket | undefined }>();
  private constructor(
    private readonly server: Server,
    readonly port: number,
    private readonly target: { host: string; port: number },
  ) {}

  static async start(target: { host: string; port: number }): Promise<CuttableProxy> {
    let proxy: CuttableProxy | undefined;
    const server = createServer((client) => proxy!.accept(client));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    if (!address || typeof address === 'string') throw new Error('no port');
    proxy = new CuttableProxy(server, address.port, target);
    return proxy;
  }

  private accept(client: Socket) {
    const pair: { client: Socket; upstream: Socket | undefined } = { client, upstream: undefined };
    this.pairs.add(pair);
    client.on('error', () => {});
    client.on('close', () => {
      this.pairs.delete(pair);
      pair.upstream?.destroy();
    });
    // A stalled network takes the connection and never answers.
    if (this.state === 'stalled') return;
    const upstream = netConnect(this.target.port, this.target.host);
    pair.upstream = upstream;
    upstream.on('error', () => {});
    upstream.on('close', () => client.destroy());
    client.on('data', (chunk) => {
      if (this.state === 'open') upstream.write(chunk);
    });
    upstream.on('data', (chunk) => {
      if (this.state === 'open') client.write(chunk);
    });
  }

  /** Resets every connection and refuses new ones. */
  async cut() {
    this.state = 'cut';
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    for (const { client, upstream } of this.pairs) {
      client.resetAndDestroy();
      upstream?.destroy();
    }
    await closed;
  }

  /** Drops every byte both ways and holds new connections unanswered: a network that went silent. */
  stall() {
    this.state = 'stalled';
  }

  async restore() {
    if (this.state === 'cut')
      await new Promise<void>((resolve) => this.server.listen(this.port, '127.0.0.1', resolve));
    // Bytes were dropped while stalled: those connections cannot carry on.
    else if (this.state === 'stalled') for (const { client } of this.pairs) client.destroy();
    this.state = 'open';
  }

  async close() {
    for (const { client, upstream } of this.pairs) {
      client.destroy();
      upstream?.destroy();
    }
    if (this.server.listening) await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

type Phase = 'before' | 'outage' | 'after';

interface Answer {
  /** The phase the request was sent in, and the one its answer came in. */
  phase: Phase;
  answeredIn: Phase;
  /** 0: no answer within ANSWER_BOUND_MS, or the connection failed. */
  status: number;
  code: string | undefined;
  retryAfter: string | null;
  ms: number;
  /** The booking's customer email: one per request. */
  tag: string;
  reservationId?: number;
}

interface Probe {
  phase: Phase;
  answeredIn: Phase;
  url: string;
  status: number;
  code: string | undefined;
}

interface Service {
  app: FastifyInstance;
  base: string;
  close(): Promise<void>;
}

async function listen(app: FastifyInstance): Promise<string> {
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  if (!address || typeof address === 'string') throw new Error('no port');
  return `http://127.0.0.1:${address.port}`;
}

async function timedFetch(url: string, init: RequestInit = {}) {
  const started = performance.now();
  try {
    const response = await fetch(url, { ...init, signal: AbortSignal.timeout(ANSWER_BOUND_MS) });
    const text = await response.text();
    let code: string | undefined;
    let id: number | undefined;
    try {
      const body = JSON.parse(text) as { id?: number; error?: { code?: string } };
      code = body.error?.code;
      id = body.id;
    } catch {}
    return {
      status: response.status,
      code,
      id,
      retryAfter: response.headers.get('retry-after'),
      ms: performance.now() - started,
    };
  } catch {
    return { status: 0, code: undefined, id: undefined, retryAfter: null, ms: performance.now() - started };
  }
}

/**
 * Ten clients book a two-lane pool (three requests per slot, so lanes are contended)
 * while probes poll health and readiness; the dependency goes for `outageMs`, then
 * comes back, and the load goes on until bookings succeed again and the service is ready.
 */
async function bookThroughOutage(
  service: Service,
  dependency: { down(): Promise<void> | void; up(): Promise<void> },
  outageMs: number,
) {
  const owner = await ownerWithOrganisation(service.app, { timezone: 'UTC' });
  const type = await createType(service.app, owner, { bookingMode: 'POOL', minBookingDuration: 30 });
  await createResource(service.app, owner, { name: 'Desk', resourceTypeId: type.id, capacity: 2 });
  const monday = futureMonday();
  const run = randomBytes(3).toString('hex');

  let phase: Phase = 'before';
  let finished = false;
  let counter = 0;
  const answers: Answer[] = [];
  const probes: Probe[] = [];

  const client = async () => {
    while (!finished) {
      const n = counter++;
      const slot = Math.floor(n / 3);
      const tag = `c${n}-${run}@outage.test`;
      const started = phase;
      const answer = await timedFetch(`${service.base}/api/reservations`, {
        method: 'POST',
        headers: { ...owner.auth, 'content-type': 'application/json' },
        body: JSON.stringify({
          resourceTypeId: type.id,
          startTime: at(monday, slot / 2),
          endTime: at(monday, slot / 2 + 0.5),
          customer: { name: 'Outage', email: tag },
        }),
      });
      answers.push({
        phase: started,
        answeredIn: phase,
        tag,
        status: answer.status,
        code: answer.code,
        retryAfter: answer.retryAfter,
        ms: answer.ms,
        ...(answer.status === 201 && answer.id !== undefined ? { reservationId: answer.id } : {}),
      });
      // As a polite client does: back off a little when refused.
      if (answer.status !== 201 && answer.status !== 409) await sleep(25);
    }
  };
  const prober = async () => {
    while (!finished) {
      const started = phase;
      for (const url of ['/api/health', '/api/ready']) {
        const answer = await timedFetch(`${service.base}${url}`);
        probes.push({ phase: started, answeredIn: phase, url, status: answer.status, code: answer.code });
      }
      await sleep(100);
    }
  };
  const load = [...Array.from({ length: CLIENTS }, client), prober()];

  await sleep(800);
  await dependency.down();
  phase = 'outage';
  await sleep(outageMs);
  await dependency.up();
  phase = 'after';
  const recovered = () => {
    const afterAnswers = answers.filter((a) => a.phase === 'after');
    const ready = probes.filter((p) => p.phase === 'after' && p.url === '/api/ready');
    return afterAnswers.filter((a) => a.status === 201).length >= 10 && ready.at(-1)?.status === 200;
  };
  const deadline = Date.now() + 10_000;
  while (!recovered() && Date.now() < deadline) await sleep(50);
  finished = true;
  await Promise.all(load);
  return { answers, probes, owner, typeId: type.id };
}

/** What every run must show, whichever dependency went away. */
async function assertSurvived(
  db: Db,
  outcome: Awaited<ReturnType<typeof bookThroughOutage>>,
  expectReady: 'down during the outage' | 'up throughout',
  boundMs = ANSWER_BOUND_MS,
) {
  const { answers, probes } = outcome;
  const kinds = new Map<string, number>();
  for (const a of answers) {
    const kind = `${a.phase} ${a.status} ${a.code ?? ''}`;
    kinds.set(kind, (kinds.get(kind) ?? 0) + 1);
  }
  const summary = JSON.stringify([...kinds]);

  const unanswered = answers.filter((a) => a.status === 0);
  assert.equal(unanswered.length, 0, `requests without an answer within ${ANSWER_BOUND_MS} ms: ${summary}`);
  const slowest = Math.max(...answers.map((a) => a.ms));
  assert.ok(slowest < boundMs, `slowest answer ${Math.round(slowest)} ms, over ${boundMs} ms`);
  for (const a of answers) {
    if (a.status === 201) continue;
    if (a.status === 409) assert.equal(a.code, 'SLOT_UNAVAILABLE', summary);
    else {
      assert.equal(a.status, 503, `only 201, 409 or 503: ${summary}`);
      assert.equal(a.code, 'UNAVAILABLE', summary);
      assert.match(a.retryAfter ?? '', /^\d+$/, 'a 503 says when to retry');
    }
  }
  assert.equal(
    answers.filter((a) => a.answeredIn === 'before' && a.status === 503).length,
    0,
    `no 503 before the outage: ${summary}`,
  );
  assert.ok(
    answers.some((a) => a.answeredIn === 'outage' && a.status === 503),
    `the outage was felt: ${summary}`,
  );
  assert.ok(
    answers.filter((a) => a.phase === 'after' && a.status === 201).length >= 10,
    `bookings succeed again: ${summary}`,
  );

  const health = probes.filter((p) => p.url === '/api/health');
  assert.ok(health.length > 0);
  assert.deepEqual(
    health.filter((p) => p.status !== 200),
    [],
    'liveness holds throughout',
  );
  const ready = probes.filter((p) => p.url === '/api/ready');
  assert.ok(ready.filter((p) => p.answeredIn === 'before').every((p) => p.status === 200));
  if (expectReady === 'down during the outage')
    assert.ok(
      ready.some((p) => p.phase === 'outage' && p.status === 503 && p.code === 'NOT_READY'),
      JSON.stringify(ready),
    );
  else
    assert.deepEqual(
      ready.filter((p) => p.status !== 200),
      [],
    );
  assert.equal(ready.at(-1)?.status, 200, 'ready again');

  // Every acknowledged booking is stored once, and no lane holds two bookings at one time.
  const acknowledged = answers.filter((a) => a.status === 201);
  const tags = new Set(answers.map((a) => a.tag));
  const rows = await db.kysely
    .selectFrom('reservations')
    .select(['id', 'resourceId', 'startTime', 'endTime', 'customerEmail', 'status'])
    .where('resourceTypeId', '=', outcome.typeId)
    .execute();
  const stored = rows.filter((row) => tags.has(row.customerEmail));
  assert.equal(stored.length, rows.length, 'nothing but this run booked the type');
  const byTag = new Map<string, number>();
  for (const row of stored) byTag.set(row.customerEmail, (byTag.get(row.customerEmail) ?? 0) + 1);
  assert.deepEqual(
    [...byTag].filter(([, count]) => count > 1),
    [],
    'no request booked twice',
  );
  const storedIds = new Set(stored.map((row) => row.id));
  assert.deepEqual(
    acknowledged.filter((a) => !storedIds.has(a.reservationId!)).map((a) => a.tag),
    [],
    'every acknowledged booking is stored',
  );
  const kept = stored.filter((row) => row.status !== 'cancelled');
  for (const row of kept) {
    const overlapping = kept.filter(
      (other) =>
        other.id !== row.id &&
        other.resourceId === row.resourceId &&
        other.startTime < row.endTime &&
        row.startTime < other.endTime,
    );
    assert.deepEqual(overlapping, [], `lane ${row.resourceId} double-booked at ${row.startTime}`);
  }
}

/** Unhandled errors of the process while `work` runs (a crash, without this listener). */
async function recordingUncaught<T>(work: () => Promise<T>): Promise<{ result: T; uncaught: unknown[] }> {
  const uncaught: unknown[] = [];
  const record = (error: unknown) => uncaught.push(error);
  process.on('uncaughtException', record);
  process.on('unhandledRejection', record);
  try {
    return { result: await work(), uncaught };
  } finally {
    process.off('uncaughtException', record);
    process.off('unhandledRejection', record);
  }
}

const describeMessages = (errors: unknown[]) =>
  errors.map((error) => (error instanceof Error ? error.message : String(error))).join('; ');

// PostgreSQL itself behind the proxy: only in the PostgreSQL pass (npm run test:pg).
if (PG_URL)
  describe('PostgreSQL goes away under booking load', () => {
    let proxy: CuttableProxy;
    let db: Db;
    let drop: () => Promise<void>;
    let service: Service;
    const jobsRun: number[] = [];
    /** A job that finishes when the test says so: to finish it while the database is away. */
    const finishing = { started: [] as number[], gate: Promise.resolve(), release: () => {} };

    before(async () => {
      // A test database of its own, reached through the proxy.
      const created = await createTestDatabase();
      drop = created.drop;
      const target = new URL(testDatabaseUrl(created.db));
      proxy = await CuttableProxy.start({ host: target.hostname, port: Number(target.port || 5432) });
      const proxied = new URL(target);
      proxied.host = `127.0.0.1:${proxy.port}`;
      db = createDatabase(proxied.toString(), {
        ...(created.db.schema ? { searchPath: created.db.schema } : {}),
        poolSize: 20,
        connectTimeoutMs: 1_000,
        statementTimeoutMs: 1_000,
      });
      // pg-boss, as in production: its workers poll through the same pool.
      const app = await buildApp(loadConfig({ ...TEST_ENV, JOB_QUEUE: 'auto' }), { db, logger: false });
      app.jobs.work<{ n: number }>('outage-probe', async ({ n }) => {
        jobsRun.push(n);
      });
      app.jobs.work<{ n: number }>('outage-finishing', async ({ n }) => {
        finishing.started.push(n);
        await finishing.gate;
      });
      const base = await listen(app);
      service = { app, base, close: () => app.close() };
    });
    after(async () => {
      // A failed test may have left the database away; the service shuts down against it restored.
      await proxy?.restore();
      await service?.close();
      await db?.close();
      await proxy?.close();
      await drop?.();
    });

    test('every connection reset and new ones refused for 2.5 s: no crash, 503s, then recovery', async () => {
      const { result, uncaught } = await recordingUncaught(() =>
        bookThroughOutage(service, { down: () => proxy.cut(), up: () => proxy.restore() }, 2_500),
      );
      assert.deepEqual(uncaught, [], `unhandled errors: ${describeMessages(uncaught)}`);
      await assertSurvived(db, result, 'down during the outage');

      // The hot paths' named prepared statements are prepared again on the new connections.
      const me = await timedFetch(`${service.base}/api/auth/me`, { headers: result.owner.auth });
      assert.equal(me.status, 200);

      // Jobs resume: pg-boss polls through the pool again.
      await service.app.jobs.send('outage-probe', { n: 1 });
      const deadline = Date.now() + 8_000;
      while (!jobsRun.includes(1) && Date.now() < deadline) await sleep(50);
      assert.deepEqual(jobsRun, [1], 'a job sent after the outage runs');
    });

    test('a job that finishes while the database is away: no unhandled error, and the service goes on', async () => {
      finishing.gate = new Promise<void>((resolve) => {
        finishing.release = resolve;
      });
      await service.app.jobs.send('outage-finishing', { n: 1 });
      const deadline = Date.now() + 8_000;
      while (!finishing.started.includes(1) && Date.now() < deadline) await sleep(50);
      assert.deepEqual(finishing.started, [1], 'the job started');
      const { uncaught } = await recordingUncaught(async () => {
        await proxy.cut();
        // The queue records the job's end (complete) against a database that is not there.
        finishing.release();
        await sleep(1_500);
        await proxy.restore();
        await sleep(500);
      });
      assert.deepEqual(uncaught, [], `unhandled errors: ${describeMessages(uncaught)}`);
      const me = await timedFetch(`${service.base}/api/auth/me`, {
        headers: (await ownerWithOrganisation(service.app)).auth,
      });
      assert.equal(me.status, 200);
    });

    test('a network that goes silent (nothing answers, nothing resets) fails requests in bounded time', async () => {
      const { result, uncaught } = await recordingUncaught(() =>
        bookThroughOutage(service, { down: () => proxy.stall(), up: () => proxy.restore() }, 4_000),
      );
      assert.deepEqual(uncaught, [], `unhandled errors: ${describeMessages(uncaught)}`);
      // A statement unanswered for its timeout plus a second (2 s here) fails then, well before the
      // network comes back: a request in flight at the stall does not wait the 4 s out.
      await assertSurvived(db, result, 'down during the outage', 3_500);
    });
  });

if (PG_URL)
  describe('the statement timeout', () => {
    test('cancels a long statement as UNAVAILABLE, except where lifted (migrations)', async () => {
      // One connection, so the lifted and the restored setting are seen on the same session.
      const db = createDatabase(PG_URL, { statementTimeoutMs: 200, poolSize: 1 });
      const unavailable = (error: unknown) => asDomainError(error)?.code === 'UNAVAILABLE';
      try {
        await assert.rejects(sql`select pg_sleep(0.5)`.execute(db.kysely), unavailable);
        // Longer than the statement timeout and the silence bound after it (1.2 s) together.
        await withoutStatementTimeout(db, (executor) => sql`select pg_sleep(1.5)`.execute(executor));
        await assert.rejects(sql`select pg_sleep(0.5)`.execute(db.kysely), unavailable, 'bounded again');
      } finally {
        await db.close();
      }
    });
  });

/**
 * Waits until the service's Redis client is connected and answers. The client connects when the
 * app is built and reconnects after an outage; on a loaded machine that can take longer than a
 * command may wait (2 s), and the load must start against a Redis that is there.
 */
async function untilRedisAnswers(app: FastifyInstance) {
  const redis = app.store.redis!;
  const deadline = Date.now() + 20_000;
  for (;;) {
    try {
      if (redis.status === 'ready' && (await redis.ping()) === 'PONG') return;
    } catch {}
    if (Date.now() > deadline) throw new Error(`Redis did not answer within 20 s (${redis.status})`);
    await sleep(50);
  }
}

describe('Redis goes away under booking load', () => {
  let proxy: CuttableProxy;
  let service: Service;
  let db: Db;
  let drop: () => Promise<void>;

  before(async () => {
    const target = new URL(REDIS_URL);
    proxy = await CuttableProxy.start({ host: target.hostname, port: Number(target.port || 6379) });
    ({ db, drop } = await createTestDatabase());
    // The rate limiter counts every request in Redis.
    const app = await buildApp(
      loadConfig({ ...TEST_ENV, REDIS_URL: `redis://127.0.0.1:${proxy.port}`, RATE_LIMIT_MAX: '100000' }),
      { db, logger: false },
    );
    const base = await listen(app);
    service = { app, base, close: () => app.close() };
  });
  after(async () => {
    await proxy?.restore();
    await service?.close();
    await drop?.();
    await proxy?.close();
  });

  test('every Redis connection reset and new ones refused for 1.5 s: 503s, readiness kept, then recovery', async () => {
    await untilRedisAnswers(service.app);
    const { result, uncaught } = await recordingUncaught(() =>
      bookThroughOutage(service, { down: () => proxy.cut(), up: () => proxy.restore() }, 1_500),
    );
    assert.deepEqual(uncaught, [], `unhandled errors: ${describeMessages(uncaught)}`);
    // Readiness is the database's (SPEC): a Redis outage fails requests, not the probe.
    await assertSurvived(db, result, 'up throughout');
  });

  test('a Redis network that goes silent fails requests in bounded time', async () => {
    await untilRedisAnswers(service.app);
    const { result, uncaught } = await recordingUncaught(() =>
      bookThroughOutage(service, { down: () => proxy.stall(), up: () => proxy.restore() }, 4_000),
    );
    assert.deepEqual(uncaught, [], `unhandled errors: ${describeMessages(uncaught)}`);
    // A command unanswered for 2 s fails then: a request in flight at the stall does not wait the 4 s out.
    await assertSurvived(db, result, 'up throughout', 3_500);
  });
});

describe('errors that mean a dependency is unreachable', () => {
  const pgError = (code: string, message: string) => Object.assign(new Error(message), { code });
  const unreachable: Array<[string, () => unknown]> = [
    ['a reset', () => pgError('ECONNRESET', 'read ECONNRESET')],
    ['a refused connection', () => pgError('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:5432')],
    ['a connection lost mid-query', () => new Error('Connection terminated unexpectedly')],
    ['a full pool timing out', () => new Error('timeout exceeded when trying to connect')],
    [
      'a connect timing out',
      () => new Error('Connection terminated due to connection timeout', { cause: new Error('x') }),
    ],
    [
      'an administrator shutdown',
      () => pgError('57P01', 'terminating connection due to administrator command'),
    ],
    ['a crash shutdown', () => pgError('57P02', 'terminating connection because of crash of another server')],
    ['a server starting up', () => pgError('57P03', 'the database system is starting up')],
    ['a connection failure', () => pgError('08006', 'connection failure')],
    ['the statement timeout', () => pgError('57014', 'canceling statement due to statement timeout')],
    ['a silent connection closed', () => pgError('ETIMEDOUT', 'The database did not answer within 3000 ms')],
    [
      'Redis out of retries',
      () =>
        Object.assign(new Error('Reached the max retries per request limit (which is 2).'), {
          name: 'MaxRetriesPerRequestError',
        }),
    ],
    ['Redis closed', () => new Error('Connection is closed.')],
    [
      'every address refused',
      () => new AggregateError([pgError('ECONNREFUSED', 'connect ECONNREFUSED ::1:5432')], 'connect failed'),
    ],
  ];
  const bugs: Array<[string, () => unknown]> = [
    ['a syntax error', () => pgError('42601', 'syntax error at or near "selec"')],
    ['a unique violation', () => pgError('23505', 'duplicate key value violates unique constraint')],
    ['a plain bug', () => new TypeError("Cannot read properties of undefined (reading 'id')")],
  ];

  let app: FastifyInstance;
  before(async () => {
    app = Fastify({ logger: false });
    registerErrorHandling(app);
    for (const [index, [, make]] of [...unreachable, ...bugs].entries())
      app.get(`/throw/${index}`, async () => {
        throw make();
      });
    await app.ready();
  });
  after(() => app.close());

  test('answer 503 UNAVAILABLE with Retry-After; anything else stays a 500 without internals', async () => {
    for (const [index, [what]] of [...unreachable, ...bugs].entries()) {
      const response = await app.inject({ method: 'GET', url: `/throw/${index}` });
      const body = response.json();
      if (index < unreachable.length) {
        assert.equal(response.statusCode, 503, what);
        assert.equal(body.error.code, 'UNAVAILABLE', what);
        assert.match(String(response.headers['retry-after']), /^\d+$/, what);
      } else {
        assert.equal(response.statusCode, 500, what);
        assert.equal(body.error.code, 'INTERNAL', what);
        assert.equal(response.headers['retry-after'], undefined, what);
      }
      assert.equal(body.success, false);
      assert.equal(/ECONN|5432|statement|syntax/.test(response.body), false, `${what}: nothing internal`);
    }
  });

  test('an MCP tool call that loses the database is a tool error UNAVAILABLE, and the gateway a 503', async () => {
    const { db, drop } = await createTestDatabase();
    const losing: ToolDefinition = {
      actionKey: 'test.crash',
      title: 'Loses the database',
      description: 'Its query meets a connection reset.',
      input: z.object({}),
      output: z.object({ ok: z.boolean() }),
      run: async () => {
        throw new Error('Connection terminated unexpectedly');
      },
    };
    const server = await startMcpServer(db, newDirectory(), {
      tools: [...fakeTools().filter((tool) => tool.actionKey !== 'test.crash'), losing],
    });
    try {
      const { client } = await connectClient(server.url, { 'x-agent-key': KEYS.a });
      const result = await client.callTool({ name: 'test_crash', arguments: {} });
      assert.equal(result.isError, true);
      assert.equal(
        (result.structuredContent as { error: { code: string } }).error.code,
        'UNAVAILABLE',
        JSON.stringify(result),
      );
      await client.close();

      const gateway = await fetch(new URL('/api/mcp/execute', server.url), {
        method: 'POST',
        headers: { 'x-agent-key': KEYS.a, 'content-type': 'application/json' },
        body: JSON.stringify({ tool: 'test_crash' }),
      });
      assert.equal(gateway.status, 503);
      assert.equal((await gateway.json()).error.code, 'UNAVAILABLE');
      assert.match(gateway.headers.get('retry-after') ?? '', /^\d+$/);
    } finally {
      await server.close();
      await drop();
    }
  });
});
