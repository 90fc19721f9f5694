import assert from 'node:assert/strict';
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { createTestDatabase, TEST_ENV } from './helpers/app.js';
import { cliInProcess, cliProcess } from './helpers/cli.js';
import { startOtlpReceiver } from './helpers/otlp-receiver.js';

// These tests run the real entry points (npm start's tools/start.ts, the CLI) on a SQLite file.
const dir = mkdtempSync(join(tmpdir(), 'rs-process-'));
const env = {
  ...process.env,
  ...TEST_ENV,
  LOG_LEVEL: 'info',
  DATABASE_URL: `sqlite:${join(dir, 'service.db')}`,
  PORT: '0',
  // The payment emulator is started in-process only in development.
  PAYMENT_API_BASE: 'http://127.0.0.1:9',
  PAYMENT_SECRET_KEY: 'sk_test_process',
};

function waitForLine(child: ChildProcess, pattern: RegExp, timeoutMs = 20_000): Promise<string> {
  return new Promise((resolve, reject) => {
    let seen = '';
    const timer = setTimeout(() => reject(new Error(`no line matching ${pattern} in: ${seen}`)), timeoutMs);
    child.stdout!.on('data', (chunk: Buffer) => {
      seen += chunk.toString();
      const match = seen.match(pattern);
      if (match) {
        clearTimeout(timer);
        resolve(match[0]);
      }
    });
  });
}

describe('process entry points', () => {
  after(() => rmSync(dir, { recursive: true, force: true }));

  test('the CLI creates a user and sets plan and admin flag', async () => {
    // The process once each way (exit 0 with its output, exit 1 with the usage on stderr); the
    // other commands as the CLI runs them, on an app over the same file.
    const created = cliProcess(env, 'user:create', 'cli@example.test', 'a long password', 'Cli', 'User');
    assert.equal(created.status, 0, created.stderr);
    assert.match(created.stdout, /Created user \d+ <cli@example.test>/);
    const wrong = cliProcess(env, 'user:set-plan', 'cli@example.test', 'GOLD');
    assert.equal(wrong.status, 1);
    assert.match(wrong.stderr, /Usage/);
    const app = await buildApp(loadConfig({ ...TEST_ENV, DATABASE_URL: env.DATABASE_URL }), {
      logger: false,
    });
    try {
      const cli = (command: string, ...args: string[]) => cliInProcess(app, command, ...args);
      assert.match((await cli('user:set-plan', 'cli@example.test', 'ENTERPRISE')).stdout, /plan ENTERPRISE/);
      assert.match((await cli('user:set-admin', 'cli@example.test', 'true')).stdout, /global admin: true/);
      assert.equal((await cli('user:create', 'cli@example.test', 'a long password', 'Again')).status, 1);
      const weak = await cli('user:create', 'weak@example.test', 'short', 'Weak');
      assert.equal(weak.status, 1);
      assert.match(weak.stderr, /password: must be at least 10 characters/);
      assert.match((await cli('user:create', 'not-an-email', 'a long password', 'X')).stderr, /email/);
      assert.match((await cli('user:forget')).stderr, /Usage/);
    } finally {
      await app.close();
    }
  });

  test('npm start runs the build output with node, serves, then SIGTERM closes it cleanly', async () => {
    // The service's part of what `npm install` does (its prepare script; CI's install runs the
    // whole of it, pages included), then exactly the start command.
    const build = spawnSync('npx', ['tsc', '-p', 'tsconfig.build.json'], { encoding: 'utf8' });
    assert.equal(build.status, 0, build.stdout + build.stderr);
    const { scripts } = JSON.parse(readFileSync('package.json', 'utf8'));
    // Compiled JavaScript on node (env only sets glibc's malloc tuning before it).
    assert.match(scripts.start, /^(?:env (?:\w+=\S+ )+)?node .*dist\/tools\/start\.js$/);
    // Traces on: the spans still buffered at SIGTERM are sent as the service closes.
    const otlp = await startOtlpReceiver();
    const child = spawn('sh', ['-c', `exec ${scripts.start}`], {
      env: { ...env, OTEL_EXPORTER_OTLP_ENDPOINT: otlp.endpoint, SHUTDOWN_DRAIN_MS: '2000' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    try {
      const line = await waitForLine(child, /Server listening at http:\/\/127\.0\.0\.1:\d+/);
      const url = line.replace('Server listening at ', '');
      const me = await fetch(`${url}/api/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: 'cli@example.test', password: 'a long password' }),
      });
      assert.equal(me.status, 200, 'the user the CLI created signs in');
      const body = await me.json();
      assert.equal(body.user.plan, 'ENTERPRISE');
      assert.equal(body.user.isGlobalAdmin, true);
      const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
      const shuttingDown = waitForLine(child, /shutting down/);
      child.kill('SIGTERM');
      await shuttingDown;
      // Draining: still serving, but no longer ready, so a load balancer takes it out first.
      const ready = await fetch(`${url}/api/ready`);
      assert.equal(ready.status, 503);
      assert.equal((await ready.json()).error.code, 'NOT_READY');
      assert.equal((await fetch(`${url}/api/health`)).status, 200);
      assert.equal(await exited, 0);
      assert.ok(
        otlp.spans.some((span) => span.name === 'POST /api/auth/login'),
        'the sign-in was traced and sent at shutdown',
      );
    } finally {
      child.kill('SIGKILL');
      await otlp.close();
    }
  });
});

describe('logs', () => {
  let lines: string[];
  let close: () => Promise<void>;
  before(async () => {
    lines = [];
    const { db, drop } = await createTestDatabase();
    const app = await buildApp(loadConfig({ ...TEST_ENV, LOG_LEVEL: 'debug' }), {
      db,
      logStream: { write: (line: string) => lines.push(line) },
    });
    close = async () => {
      await app.close();
      await drop();
    };
    const password = 'never in a log line';
    const registered = await app.inject({
      method: 'POST',
      url: '/api/auth/register?token=query-secret',
      payload: { email: 'logs@example.test', password, name: 'Logs' },
    });
    const token = registered.json().accessToken;
    await app.inject({
      method: 'GET',
      url: '/api/auth/me',
      headers: { authorization: `Bearer ${token}`, 'x-api-key': 'rs_uk_x' },
    });
    app.log.info({ headers: { authorization: `Bearer ${token}`, cookie: 'refresh_token=abc' } }, 'explicit');
  });
  after(() => close());

  test('carry request ids and paths, never credentials or query strings', () => {
    const text = lines.join('');
    assert.match(text, /"reqId":"[0-9a-f-]{36}"/);
    assert.match(text, /"url":"\/api\/auth\/register"/);
    for (const secret of [
      'never in a log line',
      'query-secret',
      'refresh_token=abc',
      'rs_uk_x',
      'Bearer ey',
    ]) {
      assert.equal(text.includes(secret), false, `log contains ${secret}`);
    }
    assert.match(text, /\[Redacted\]/);
  });

  test('one access line per request, with its id, path and status', () => {
    const me = lines.map((line) => JSON.parse(line)).filter((entry) => entry.req?.url === '/api/auth/me');
    assert.equal(me.length, 1, JSON.stringify(me));
    assert.equal(me[0].msg, 'request completed');
    // The made-up API key beside the token is refused.
    assert.equal(me[0].res.statusCode, 401);
    assert.equal(typeof me[0].responseTime, 'number');
    assert.match(me[0].reqId, /^[0-9a-f-]{36}$/);
    assert.equal(lines.join('').includes('incoming request'), false);
  });
});
