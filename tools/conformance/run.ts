/**
 * Runs the official MCP conformance suite's server scenarios against this
 * service: a test instance on a temporary SQLite file, one agent with every
 * read action, and a loopback proxy in front that adds the agent's key (the
 * suite sends no credential). Scenarios that test features this server does not
 * offer are listed, with the reason, in baseline.yml next to this file.
 *
 * Usage (after `npm ci --prefix tools/conformance`):
 *   npx tsx tools/conformance/run.ts            the 2025 revisions (conformance 0.1.x, baseline.yml)
 *   npx tsx tools/conformance/run.ts 2026-07-28 what the 2026-07-28 revision requires (0.2 alpha,
 *                                               baseline-2026-07-28.yml)
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';

const here = dirname(fileURLToPath(import.meta.url));
const dataDir = mkdtempSync(join(tmpdir(), 'rs-conformance-'));
let servicePort = 0;
let agentKey = '';
// The proxy: every request goes to the service unchanged, plus the agent key.
const proxy = createServer((incoming, outgoing) => {
  const forwarded = httpRequest(
    {
      host: '127.0.0.1',
      port: servicePort,
      path: incoming.url,
      method: incoming.method,
      headers: { ...incoming.headers, host: `127.0.0.1:${servicePort}`, 'x-agent-key': agentKey },
    },
    (answer) => {
      outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(outgoing);
    },
  );
  forwarded.on('error', () => outgoing.destroy());
  incoming.pipe(forwarded);
});
await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
const proxyPort = (proxy.address() as AddressInfo).port;

const config = loadConfig({
  NODE_ENV: 'test',
  LOG_LEVEL: 'warn',
  RATE_LIMIT_MAX: '100000',
  PORT: '0',
  DATABASE_URL: `sqlite:${join(dataDir, 'conformance.db')}`,
  // The suite speaks to the proxy, so its origin is the one a browser would send.
  MCP_ALLOWED_ORIGINS: `http://127.0.0.1:${proxyPort}`,
});
const app = await buildApp(config);
await app.listen({ port: 0, host: '127.0.0.1' });
servicePort = (app.server.address() as AddressInfo).port;

async function call(method: string, url: string, payload: unknown, headers: Record<string, string> = {}) {
  const response = await app.inject({ method: method as 'POST', url, payload: payload as object, headers });
  if (response.statusCode >= 300)
    throw new Error(`${method} ${url}: ${response.statusCode} ${response.body}`);
  return response.json();
}

const session = await call('POST', '/api/auth/register', {
  email: 'conformance@example.test',
  password: 'conformance password',
  name: 'Conformance',
});
const auth = { authorization: `Bearer ${session.accessToken}` };
const agent = await call(
  'POST',
  '/api/agents',
  { name: 'Conformance suite', permissionGroupId: 'all_read_only' },
  auth,
);
const { key } = await call('POST', `/api/agents/${agent.id}/keys`, { label: 'conformance' }, auth);

agentKey = key;

const revision = process.argv[2] === '2026-07-28' ? '2026-07-28' : undefined;
const node22 = join(here, 'node_modules', 'node', 'bin', 'node');
const cli = revision
  ? join(here, 'node_modules', 'conformance-2026', 'dist', 'index.js')
  : join(here, 'node_modules', '@modelcontextprotocol', 'conformance', 'dist', 'index.js');
const selection = revision
  ? process.argv.includes('--scenario')
    ? ['--spec-version', revision]
    : ['--requirements', revision]
  : ['--suite', 'active'];
// Asynchronous: the service and the proxy answer from this process's event loop meanwhile.
const child = spawn(
  node22,
  [
    cli,
    'server',
    '--url',
    `http://127.0.0.1:${proxyPort}/api/mcp`,
    ...selection,
    '--expected-failures',
    join(here, revision ? `baseline-${revision}.yml` : 'baseline.yml'),
    ...process.argv.slice(revision ? 3 : 2),
  ],
  { stdio: 'inherit' },
);
const status = await new Promise<number>((resolve) => child.on('exit', (code) => resolve(code ?? 1)));

proxy.close();
await app.close();
rmSync(dataDir, { recursive: true, force: true });
process.exit(status);
