// MCP benchmark: `tools/call` of read tools (`agent_profile`, and two that read the database) and
// of `reservations_create` (by an agent without a policy, and by one whose policy counts a daily
// limit) on /api/mcp, for the 2025-era revision (one `initialize`, then requests carrying
// `mcp-session-id`) and for 2026-07-28 (stateless requests with the `_meta` envelope), beside the
// SDK's own minimal server measured in the same run (the floor): an `McpServer` with one trivial
// tool on plain node:http, sessionful 2025 transport and `createMcpHandler` for 2026.
// The service is started as `npm start` starts it (bench/harness.ts: default logging
// into a temp file, a temp SQLite); the floor runs in a process of its own, and
// autocannon in this one. Run: npm run bench -- mcp
// (BENCH_SECONDS, default 10; BENCH_CONNECTIONS, default 20; BENCH_ROUNDS, default 1: each case's
// best of that many rounds; BENCH_ONLY=<regular expression>: only the cases whose title it matches
// and the floors, e.g. "agent_profile" or "2025.*reservations_create|2026.*agent_profile";
// BENCH_PROFILE_DIR=<dir>: the floor and the service write V8 CPU profiles there when they stop.)
import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { bookingBody, poolTypes } from './booking-load.js';
import {
  cpuUs,
  type Server as HarnessServer,
  profiledEnv,
  ROOT,
  startService,
  stop,
  untilMailDrained,
  vacuum,
  withPostgresDatabase,
} from './harness.js';

const DURATION_SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 20);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 1);
const WARMUP_SECONDS = 2;
const LEGACY = '2025-11-25';
const MODERN = '2026-07-28';
const PROTOCOL_VERSION_META = 'io.modelcontextprotocol/protocolVersion';

// ---------------------------------------------------------------------------------------------
// The floor: the SDK's minimal server, as its README and d.ts show it, on plain node:http.
// ---------------------------------------------------------------------------------------------

async function serveFloor() {
  const sdk = await import('@modelcontextprotocol/server');
  const { z } = await import('zod');
  const newServer = () => {
    const server = new sdk.McpServer({ name: 'floor', version: '1.0.0' });
    server.registerTool('ping', { description: 'Answers pong.', inputSchema: z.object({}) }, async () => ({
      content: [{ type: 'text', text: 'pong' }],
    }));
    return server;
  };
  // 2026-07-28: one server per request, the SDK's stateless entry (2025 traffic routed below).
  const modern = sdk.createMcpHandler(() => newServer(), { legacy: 'reject' });
  // 2025-era: the SDK's sessionful idiom, one server and transport per session, kept in memory.
  const sessions = new Map<string, InstanceType<typeof sdk.WebStandardStreamableHTTPServerTransport>>();

  const handle = async (request: Request, body: unknown): Promise<Response> => {
    if (!(await sdk.isLegacyRequest(request, body))) return modern.fetch(request, { parsedBody: body });
    const sessionId = request.headers.get('mcp-session-id');
    let transport = sessionId ? sessions.get(sessionId) : undefined;
    if (!transport) {
      if (sessionId || !sdk.isInitializeRequest(body))
        return new Response('no such session', { status: 404 });
      const created = new sdk.WebStandardStreamableHTTPServerTransport({
        sessionIdGenerator: randomUUID,
        enableJsonResponse: true,
        onsessioninitialized: (id) => {
          sessions.set(id, created);
        },
      });
      await newServer().connect(created);
      transport = created;
    }
    return transport.handleRequest(request, { parsedBody: body });
  };

  // What `toNodeHandler` of @modelcontextprotocol/node does: node:http in, web Request out and back.
  const server = createServer(async (req: IncomingMessage, res: ServerResponse) => {
    try {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      const text = Buffer.concat(chunks).toString('utf8');
      const headers = new Headers();
      for (const [name, value] of Object.entries(req.headers)) {
        if (typeof value === 'string' && name !== 'content-length' && name !== 'host') {
          headers.set(name, value);
        }
      }
      const request = new Request(`http://${req.headers.host}${req.url}`, { method: req.method!, headers });
      const response = await handle(request, text ? JSON.parse(text) : undefined);
      const payload = Buffer.from(await response.arrayBuffer());
      res.writeHead(response.status, Object.fromEntries(response.headers));
      res.end(payload);
    } catch (error) {
      res.writeHead(500).end(String(error));
    }
  });
  server.keepAliveTimeout = 72_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (!address || typeof address === 'string') throw new Error('no port');
  // An exit of its own, so that a CPU profile (BENCH_PROFILE_DIR) is written.
  process.once('SIGTERM', () => process.exit(0));
  console.log(JSON.stringify({ url: `http://127.0.0.1:${address.port}/mcp` }));
}

// ---------------------------------------------------------------------------------------------
// The orchestrator: starts both servers, sets up an agent over the HTTP API, runs autocannon.
// ---------------------------------------------------------------------------------------------

interface Server extends HarnessServer {
  /** The MCP endpoint. */
  url: string;
}

interface Case {
  title: string;
  /** The protocol revision; each case is compared with the floor's of the same revision. */
  revision: string;
  server: Server;
  headers: Record<string, string>;
  /** A JSON-RPC request; autocannon gives every request a fresh id. */
  body: Record<string, unknown>;
  /** For calls that must differ each time (bookings): the next call's arguments, replacing the body's. */
  nextArguments?: () => Record<string, unknown>;
}

interface Row {
  title: string;
  revision: string;
  rps: number;
  p50: number;
  p99: number;
  serverCpuUs: number | null;
  bytes: number;
}

const JSON_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

function exited(child: ChildProcess, name: string): Promise<never> {
  return new Promise((_, reject) =>
    child.once('exit', (code) => reject(new Error(`${name} exited with ${code} before it was ready`))),
  );
}

/**
 * With BENCH_PROFILE_DIR, the floor's V8 CPU profiles (its own command line, so --cpu-prof), written
 * to `<dir>/<name>/` when it stops (the largest file is the main thread's; tsx's loader thread
 * writes one too). The service's: `profiledEnv`.
 */
function profileFlags(name: string): string[] {
  const dir = process.env.BENCH_PROFILE_DIR;
  return dir ? ['--cpu-prof', `--cpu-prof-dir=${join(dir, name)}`] : [];
}

function startFloor(): Promise<Server> {
  const child = spawn(
    process.execPath,
    [...profileFlags('floor'), '--import', 'tsx', new URL(import.meta.url).pathname, '--serve=floor'],
    {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  const ready = new Promise<Server>((resolve) => {
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const line = out.split('\n').find((l) => l.startsWith('{'));
      if (line) {
        const url = JSON.parse(line).url as string;
        resolve({ child, url, base: new URL(url).origin });
      }
    });
  });
  return Promise.race([ready, exited(child, 'the floor')]);
}

async function post(url: string, headers: Record<string, string>, body: unknown) {
  return send('POST', url, headers, body);
}

async function send(method: string, url: string, headers: Record<string, string>, body: unknown) {
  const response = await fetch(url, {
    method,
    headers: { ...JSON_HEADERS, ...headers },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${url}: ${response.status} ${text}`);
  return { response, json: text ? (JSON.parse(text) as Record<string, unknown>) : null };
}

/** A JSON-RPC answer that is a successful tool result (not a JSON-RPC error, not `isError`). */
function successfulToolResult(text: string): boolean {
  return text.includes('"result"') && !text.includes('"isError":true') && !text.includes('"error":{');
}

/** 2025-era: `initialize`, then `notifications/initialized`; answers the headers of every later request. */
async function openSession(url: string, credential: Record<string, string>) {
  const init = await post(url, credential, {
    jsonrpc: '2.0',
    id: 0,
    method: 'initialize',
    params: {
      protocolVersion: LEGACY,
      capabilities: {},
      clientInfo: { name: 'bench', version: '1.0.0' },
    },
  });
  const sessionId = init.response.headers.get('mcp-session-id');
  if (!sessionId) throw new Error(`initialize at ${url} answered no mcp-session-id`);
  const headers = { ...credential, 'mcp-session-id': sessionId, 'mcp-protocol-version': LEGACY };
  const initialized = await post(url, headers, { jsonrpc: '2.0', method: 'notifications/initialized' });
  if (initialized.response.status !== 202)
    throw new Error(`notifications/initialized: ${initialized.response.status}`);
  return headers;
}

const legacyCall = (name: string, args: Record<string, unknown>) => ({
  jsonrpc: '2.0',
  id: 1,
  method: 'tools/call',
  params: { name, arguments: args },
});

/** 2026-07-28: what the SDK client (pinned to 2026-07-28) sends for `tools/call`, headers and `_meta`. */
const modernHeaders = (credential: Record<string, string>, name: string) => ({
  ...credential,
  'mcp-method': 'tools/call',
  'mcp-name': name,
  'mcp-protocol-version': MODERN,
});
const modernCall = (name: string, args: Record<string, unknown>) => ({
  jsonrpc: '2.0',
  id: 1,
  method: 'tools/call',
  params: {
    name,
    arguments: args,
    _meta: {
      [PROTOCOL_VERSION_META]: MODERN,
      'io.modelcontextprotocol/clientInfo': { name: 'bench', version: '1.0.0' },
      'io.modelcontextprotocol/clientCapabilities': {},
    },
  },
});

async function measure({ title, revision, server, headers, body, nextArguments }: Case): Promise<Row> {
  const withArguments = (id: number) => {
    const params = body.params as Record<string, unknown>;
    return { ...body, id, params: { ...params, arguments: nextArguments!() } };
  };
  // Checked once before load: a benchmark of errors is worthless. Every answer under load is checked too.
  const { json } = await post(server.url, headers, nextArguments ? withArguments(0) : body);
  if (!json || !successfulToolResult(JSON.stringify(json))) {
    throw new Error(`${title}: not a successful tool result: ${JSON.stringify(json)}`);
  }
  // Every request its own JSON-RPC id, as a client sends them: a session's transport keys answers by id.
  // (autocannon's `idReplacement` declares a wrong Content-Length in version 8, so the id is set here.)
  const { id: _, ...request } = body;
  const prefix = JSON.stringify({ ...request, id: 0 }).slice(0, -2);
  let next = 0;
  const bodyOf = nextArguments ? () => JSON.stringify(withArguments(++next)) : () => `${prefix}${++next}}`;
  const options = {
    url: server.url,
    method: 'POST' as const,
    headers: { ...JSON_HEADERS, ...headers },
    requests: [{ setupRequest: (req: autocannon.Request) => ({ ...req, body: bodyOf() }) }],
    verifyBody: (text: unknown) => successfulToolResult(String(text)),
    connections: CONNECTIONS,
  };
  // A short warm-up so the JIT has compiled the hot path before the measured run.
  await autocannon({ ...options, duration: WARMUP_SECONDS });
  const cpuBefore = cpuUs(server);
  const result = await autocannon({ ...options, duration: DURATION_SECONDS });
  const cpuAfter = cpuUs(server);
  if (result.non2xx || result.errors || result.timeouts || result.mismatches) {
    throw new Error(
      `${title}: ${result.non2xx} non-2xx, ${result.errors} errors, ${result.timeouts} timeouts, ` +
        `${result.mismatches} answers that are no successful tool result`,
    );
  }
  const row = {
    title,
    revision,
    rps: Math.round(result.requests.average),
    p50: result.latency.p50,
    p99: result.latency.p99,
    serverCpuUs:
      cpuBefore === null || cpuAfter === null
        ? null
        : Math.round((cpuAfter - cpuBefore) / result.requests.total),
    bytes: Math.round(result.throughput.total / result.requests.total),
  };
  console.error(JSON.stringify(row));
  return row;
}

/** Registers a user, makes an `all_read_only` agent with a key, and a calendar with a few events. */
async function setUp(base: string) {
  const registered = await post(
    `${base}/api/auth/register`,
    {},
    {
      email: 'bench@example.test',
      password: 'benchmark password',
      name: 'Bench',
    },
  );
  const user = { authorization: `Bearer ${registered.json!.accessToken as string}` };
  const agent = await post(`${base}/api/agents`, user, {
    name: 'Bench agent',
    permissionGroupId: 'all_read_only',
  });
  const agentId = agent.json!.id as number;
  const key = await post(`${base}/api/agents/${agentId}/keys`, user, { label: 'bench' });
  const calendar = await post(`${base}/api/calendars`, user, { name: 'Bench', timezone: 'Europe/Berlin' });
  const calendarId = calendar.json!.id as number;
  const day = new Date();
  day.setUTCHours(0, 0, 0, 0);
  const at = (days: number, hours: number) =>
    new Date(day.getTime() + (days * 24 + hours) * 3_600_000).toISOString();
  for (let i = 0; i < 5; i++) {
    await post(`${base}/api/calendars/${calendarId}/events`, user, {
      title: `Event ${i + 1}`,
      startTime: at(i + 1, 9),
      endTime: at(i + 1, 10),
    });
  }
  // Writers: two reservations operators of an organisation, one of them under a policy that counts
  // a daily limit (set far above what a run books), and a pool type per writing case.
  await post(`${base}/api/organisations`, user, { name: 'Bench', timezone: 'UTC' });
  const writer = async (name: string, policy?: Record<string, unknown>) => {
    const made = await post(`${base}/api/agents`, user, { name, permissionGroupId: 'reservations_operator' });
    const id = made.json!.id as number;
    if (policy) await send('PUT', `${base}/api/agents/${id}/policy`, user, policy);
    const issued = await post(`${base}/api/agents/${id}/keys`, user, { label: 'bench' });
    return { 'x-agent-key': issued.json!.key as string };
  };
  const writers = {
    plain: await writer('Bench writer'),
    limited: await writer('Bench writer with a limit', { limits: { bookingsPerDay: 1_000_000 } }),
  };
  // A pool type per writing case and revision: plain, keyed, limited.
  const names = (revision: string) => [revision, `${revision} keyed`, `${revision} limited`];
  const writeTypes = {
    legacy: await poolTypes(base, user, names(LEGACY)),
    modern: await poolTypes(base, user, names(MODERN)),
  };
  return {
    credential: { 'x-agent-key': key.json!.key as string },
    eventsArgs: { calendarId, from: at(0, 0), to: at(7, 0) },
    writers,
    writeTypes,
  };
}

/** The cases of one database's run: per revision, the floor, then the service's tools. */
async function casesFor(floor: Server, service: Server): Promise<Case[]> {
  const { credential, eventsArgs, writers, writeTypes } = await setUp(service.base);
  const floorCredential = { 'x-agent-key': 'unused by the floor' };
  const floorSession = await openSession(floor.url, floorCredential);
  const serviceSession = await openSession(service.url, credential);
  const tools = [
    // The issue's own measure: the agent reading itself (the credential read, no domain read).
    ['agent_profile', {}],
    ['calendar_list', {}],
    ['calendar_events_read', eventsArgs],
  ] as const;
  // Bookings, each a new slot of the case's own type (counted across warm-up and rounds): by the
  // writer without a policy, with an `idempotencyKey` (a new one each call: the key store in the
  // path), and by the one whose policy counts a daily limit.
  const slots = (typeId: number | undefined, keyed = false) => {
    let n = 0;
    return () => ({ ...bookingBody(typeId!, n++), ...(keyed ? { idempotencyKey: randomUUID() } : {}) });
  };
  const writes = [
    ['', writers.plain, false],
    [' with an idempotencyKey', writers.plain, true],
    [', policy counting a limit', writers.limited, false],
  ] as const;
  const writeSessions = await Promise.all(writes.map(([, writer]) => openSession(service.url, writer)));
  const revisions = [
    { revision: LEGACY, era: 'session', types: writeTypes.legacy },
    { revision: MODERN, era: 'stateless', types: writeTypes.modern },
  ];
  return revisions.flatMap(({ revision, era, types }) => {
    const legacy = revision === LEGACY;
    const call = legacy ? legacyCall : modernCall;
    const headersOf = (credential: Record<string, string>, tool: string, session: Record<string, string>) =>
      legacy ? session : modernHeaders(credential, tool);
    return [
      {
        title: `floor ${revision} (${era}): tools/call ping`,
        revision,
        server: floor,
        headers: headersOf(floorCredential, 'ping', floorSession),
        body: call('ping', {}),
      },
      ...tools.map(([tool, args]) => ({
        title: `service ${revision} (${era}): tools/call ${tool}`,
        revision,
        server: service,
        headers: headersOf(credential, tool, serviceSession),
        body: call(tool, args),
      })),
      ...writes.map(([label, writer, keyed], i) => ({
        title: `service ${revision} (${era}): tools/call reservations_create${label}`,
        revision,
        server: service,
        headers: headersOf(writer, 'reservations_create', writeSessions[i]!),
        body: call('reservations_create', {}),
        nextArguments: slots(types[i], keyed),
      })),
    ];
  });
}

/** One database's run: the service started as `npm start` starts it, beside the floor. */
async function runOn(database: string, databaseUrl: string, floor: Server): Promise<void> {
  const only = process.env.BENCH_ONLY ? new RegExp(process.env.BENCH_ONLY) : undefined;
  const logFile = join(tmpdir(), `bench-mcp-${process.pid}-${Date.now()}.log`);
  let service: Server | undefined;
  const best = new Map<string, Row>();
  try {
    const started = await startService(
      { DATABASE_URL: databaseUrl, ...profiledEnv(`service-${database.toLowerCase()}`) },
      logFile,
    );
    service = { ...started, url: `${started.base}/api/mcp` };
    const cases = (await casesFor(floor, service)).filter(
      (c) => !only || c.title.startsWith('floor') || only.test(c.title),
    );
    // Several rounds keep each case's best: interference from other work only ever slows a run down.
    for (let round = 0; round < ROUNDS; round++) {
      for (const c of cases) {
        const row = await measure(c);
        if (row.rps > (best.get(c.title)?.rps ?? -1)) best.set(c.title, row);
        // A booking case leaves its mails to send and (on PostgreSQL) its dead rows: neither is
        // left to the next case's measure.
        if (c.nextArguments) {
          await untilMailDrained(databaseUrl, c.title);
          await vacuum(databaseUrl);
        }
      }
    }
  } finally {
    if (service) await stop(service);
    rmSync(logFile, { force: true });
  }
  const rows = [...best.values()];
  console.log(`\n${database}, load average ${loadavg()[0]!.toFixed(1)}`);
  console.log('| case | req/s | share of floor | p50 ms | p99 ms | server CPU µs/request | response bytes |');
  console.log('|---|---|---|---|---|---|---|');
  for (const r of rows) {
    const floorRps = rows.find((f) => f.title.startsWith('floor') && f.revision === r.revision)?.rps;
    const share = floorRps ? `${Math.round((r.rps / floorRps) * 100)}%` : 'n/a';
    console.log(
      `| ${r.title} | ${r.rps} | ${share} | ${r.p50} | ${r.p99} | ${r.serverCpuUs ?? 'n/a'} | ${r.bytes} |`,
    );
  }
}

async function orchestrate() {
  // The floor runs for the whole benchmark (an idle one costs nothing) and is measured again in each
  // database's run, right before the service: on a shared machine the pair sees the same load.
  const floor = await startFloor();
  console.log(
    `connections ${CONNECTIONS}, ${DURATION_SECONDS} s per case after a ${WARMUP_SECONDS} s warm-up, ` +
      `best of ${ROUNDS} round(s), Node ${process.version}`,
  );
  try {
    if (!process.env.BENCH_SKIP_SQLITE) {
      const dbFile = join(tmpdir(), `bench-mcp-${process.pid}.db`);
      try {
        await runOn('SQLite', `sqlite:${dbFile}`, floor);
      } finally {
        for (const suffix of ['', '-wal', '-shm']) rmSync(`${dbFile}${suffix}`, { force: true });
      }
    }
    if (!process.env.BENCH_SKIP_PG)
      await withPostgresDatabase('bench_mcp', (url) => runOn('PostgreSQL', url, floor));
  } finally {
    await stop(floor);
  }
}

// Last, once every constant above is initialised: `--serve=floor` is the floor's own process.
if (process.argv.includes('--serve=floor')) await serveFloor();
else await orchestrate();
