// OAuth token endpoint benchmark: authorization-code exchanges (PKCE, one atomic redeem,
// refresh-token insert, JWT signing) and refresh grants (one atomic rotation, insert,
// JWT signing) per second, on SQLite and on PostgreSQL. The service is started as
// `npm start` starts it (bench/harness.ts; default logging into a temp file); autocannon
// runs in this process. Codes are made by one real consent, then copied straight into
// the database with a 15-minute expiry (a run needs tens of thousands within their 60 s
// otherwise); refresh tokens come from real code exchanges.
// Run: npm run bench -- oauth
// (BENCH_CODES, default 30000; BENCH_SECONDS for refresh, default 10; BENCH_CONNECTIONS,
// default 20; PG_ADMIN_URL, default postgres://postgres@127.0.0.1:5432/postgres; BENCH_SKIP_PG=1.)
import { createHash, randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import pg from 'pg';
import { createDatabase } from '../src/db/database.js';
import { cpuUs, startService, stop } from './harness.js';

const CODES = Number(process.env.BENCH_CODES ?? 30_000);
const WARMUP_CODES = 3_000;
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 20);
const REDIRECT_URI = 'http://127.0.0.1:33418/callback';
const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

const sha256 = (text: string) => createHash('sha256').update(text).digest('base64url');

async function call(url: string, init: RequestInit & { headers?: Record<string, string> } = {}) {
  const response = await fetch(url, init);
  const text = await response.text();
  if (!response.ok) throw new Error(`${init.method ?? 'GET'} ${url}: ${response.status} ${text}`);
  return JSON.parse(text) as Record<string, unknown>;
}

const jsonPost = (url: string, body: unknown, headers: Record<string, string> = {}) =>
  call(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });

interface Row {
  database: string;
  grant: string;
  requests: number;
  perSecond: number;
  p50: number;
  p99: number;
  /** The service's CPU time per request (Linux only), the figure a busy machine moves least. */
  serverCpuUs: number | null;
}

const cpuPerRequest = (before: number | null, after: number | null, requests: number) =>
  before === null || after === null ? null : Math.round((after - before) / requests);

async function run(database: string, databaseUrl: string): Promise<Row[]> {
  const logFile = join(tmpdir(), `bench-oauth-${process.pid}-${Date.now()}.log`);
  const service = await startService({ DATABASE_URL: databaseUrl }, logFile);
  const { base } = service;
  const rows: Row[] = [];
  const db = createDatabase(databaseUrl);
  try {
    // A person, a registered client, and one real consent: the agent and a code to copy.
    const registered = await jsonPost(`${base}/api/auth/register`, {
      email: `bench-${process.pid}@example.test`,
      password: 'benchmark password',
      name: 'Bench',
    });
    const login = { authorization: `Bearer ${registered.accessToken as string}` };
    const client = await jsonPost(`${base}/api/oauth/register`, {
      client_name: 'Bench MCP host',
      redirect_uris: [REDIRECT_URI],
    });
    const clientId = client.client_id as string;
    const verifier = randomBytes(32).toString('base64url');
    const challenge = sha256(verifier);
    await jsonPost(
      `${base}/api/oauth/consent`,
      {
        clientId,
        redirectUri: REDIRECT_URI,
        state: 's',
        codeChallenge: challenge,
        approve: true,
        permissionGroupId: 'minimal',
      },
      login,
    );
    const template = await db.kysely
      .selectFrom('oauthAuthorizationCodes')
      .selectAll()
      .where('clientId', '=', clientId)
      .executeTakeFirstOrThrow();

    // Copies of that code, each with its own value.
    const total = WARMUP_CODES + CODES + CONNECTIONS * 2;
    const codes: string[] = [];
    const now = new Date().toISOString();
    const expiresAt = new Date(Date.now() + 15 * 60_000).toISOString();
    for (let start = 0; start < total; start += 500) {
      const batch = Array.from({ length: Math.min(500, total - start) }, () =>
        randomBytes(32).toString('base64url'),
      );
      codes.push(...batch);
      await db.kysely
        .insertInto('oauthAuthorizationCodes')
        .values(
          batch.map((code) => ({
            codeHash: sha256(code),
            clientId,
            userId: template.userId,
            agentId: template.agentId,
            redirectUri: REDIRECT_URI,
            codeChallenge: challenge,
            resource: null,
            scope: template.scope,
            expiresAt,
            consumedAt: null,
            issuedFamilyId: null,
            createdAt: now,
          })),
        )
        .execute();
    }
    const exchangeBody = (code: string) =>
      new URLSearchParams({
        grant_type: 'authorization_code',
        client_id: clientId,
        code,
        redirect_uri: REDIRECT_URI,
        code_verifier: verifier,
      }).toString();

    // Refresh tokens for the refresh run: one grant per connection, and as many spare.
    const refreshTokens: string[] = [];
    for (let i = 0; i < CONNECTIONS * 2; i++) {
      const tokens = await call(`${base}/api/oauth/token`, {
        method: 'POST',
        headers: FORM,
        body: exchangeBody(codes.pop()!),
      });
      refreshTokens.push(tokens.refresh_token as string);
    }

    const exchange = async (amount: number) => {
      const result = await autocannon({
        url: `${base}/api/oauth/token`,
        method: 'POST',
        headers: FORM,
        connections: CONNECTIONS,
        amount,
        requests: [{ setupRequest: (request) => ({ ...request, body: exchangeBody(codes.pop()!) }) }],
      });
      if (result.non2xx || result.errors || result.timeouts)
        throw new Error(
          `code exchange: ${result.non2xx} non-2xx, ${result.errors} errors, ${result.timeouts} timeouts`,
        );
      return result;
    };
    // The same service's cheapest route, measured alongside: on a shared machine it shows
    // how much of the machine the run had (GET /api/health reached 20,620/s on an idle one).
    await autocannon({ url: `${base}/api/health`, connections: CONNECTIONS, duration: 2 });
    const healthCpu = cpuUs(service);
    const health = await autocannon({
      url: `${base}/api/health`,
      connections: CONNECTIONS,
      duration: SECONDS,
    });
    rows.push({
      database,
      grant: '(GET /api/health, for scale)',
      requests: health.requests.total,
      perSecond: Math.round(health.requests.average),
      p50: health.latency.p50,
      p99: health.latency.p99,
      serverCpuUs: cpuPerRequest(healthCpu, cpuUs(service), health.requests.total),
    });

    await exchange(WARMUP_CODES);
    const codeCpu = cpuUs(service);
    const started = performance.now();
    const codeRun = await exchange(CODES);
    const elapsed = (performance.now() - started) / 1000;
    rows.push({
      database,
      grant: 'authorization_code',
      requests: codeRun.requests.total,
      perSecond: Math.round(codeRun.requests.total / elapsed),
      p50: codeRun.latency.p50,
      p99: codeRun.latency.p99,
      serverCpuUs: cpuPerRequest(codeCpu, cpuUs(service), codeRun.requests.total),
    });

    // Refresh: every answer's new refresh token goes back into the pool the next request takes from.
    let refused = 0;
    const refreshCpu = cpuUs(service);
    const refreshRun = await autocannon({
      url: `${base}/api/oauth/token`,
      method: 'POST',
      headers: FORM,
      connections: CONNECTIONS,
      duration: SECONDS,
      requests: [
        {
          setupRequest: (request) => {
            const token = refreshTokens.shift();
            if (!token) throw new Error('the refresh-token pool ran dry');
            return {
              ...request,
              body: new URLSearchParams({
                grant_type: 'refresh_token',
                client_id: clientId,
                refresh_token: token,
              }).toString(),
            };
          },
          onResponse: (status, body) => {
            if (status === 200) refreshTokens.push(JSON.parse(body).refresh_token as string);
            else refused++;
          },
        },
      ],
    });
    if (refused || refreshRun.non2xx || refreshRun.errors)
      throw new Error(
        `refresh: ${refused} refused, ${refreshRun.non2xx} non-2xx, ${refreshRun.errors} errors`,
      );
    rows.push({
      database,
      grant: 'refresh_token',
      requests: refreshRun.requests.total,
      perSecond: Math.round(refreshRun.requests.average),
      p50: refreshRun.latency.p50,
      p99: refreshRun.latency.p99,
      serverCpuUs: cpuPerRequest(refreshCpu, cpuUs(service), refreshRun.requests.total),
    });
  } finally {
    await db.close();
    await stop(service);
    rmSync(logFile, { force: true });
  }
  for (const row of rows) console.error(JSON.stringify(row));
  return rows;
}

const rows: Row[] = [];
const sqliteFile = join(tmpdir(), `bench-oauth-${process.pid}.db`);
try {
  rows.push(...(await run('SQLite', `sqlite:${sqliteFile}`)));
} finally {
  for (const suffix of ['', '-wal', '-shm']) rmSync(`${sqliteFile}${suffix}`, { force: true });
}

if (!process.env.BENCH_SKIP_PG) {
  const adminUrl = process.env.PG_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
  const name = `rs_bench_oauth_${process.pid}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`create database ${name}`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  try {
    rows.push(...(await run('PostgreSQL', url.toString())));
  } finally {
    await admin.query(`drop database if exists ${name} with (force)`);
    await admin.end();
  }
}

console.log(`connections ${CONNECTIONS}, Node ${process.version}, load average ${loadavg()[0]!.toFixed(1)}`);
console.log('| database | grant | requests | per second | p50 ms | p99 ms | server CPU µs/request |');
console.log('|---|---|---|---|---|---|---|');
for (const r of rows)
  console.log(
    `| ${r.database} | ${r.grant} | ${r.requests} | ${r.perSecond} | ${r.p50} | ${r.p99} | ${r.serverCpuUs ?? 'n/a'} |`,
  );
