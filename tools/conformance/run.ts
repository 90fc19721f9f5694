/**
 * Runs the official MCP conformance suite's server scenarios against this
 * service: a test instance on a temporary SQLite file, one agent with every
 * read action, and a loopback proxy in front that adds the agent's key (the
 * suite sends no credential). Scenarios that test features this server does not
 * offer are listed, with the reason, in baseline.yml next to this file.
 *
 * Usage: npx tsx tools/conformance/run.ts   (needs `npm ci --prefix tools/conformance`)
 */
import { spawnSync } from 'node:child_process';
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
const config = loadConfig({
  NODE_ENV: 'test',
  LOG_LEVEL: 'warn',
  RATE_LIMIT_MAX: '100000',
  PORT: '0',
  DATABASE_URL: `sqlite:${join(dataDir, 'conformance.db')}`,
});
const app = await buildApp(config);
await app.listen({ port: 0, host: '127.0.0.1' });
const servicePort = (app.server.address() as AddressInfo).port;

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

// The proxy: every request goes to the service unchanged, plus the agent key.
const proxy = createServer((incoming, outgoing) => {
  const forwarded = httpRequest(
    {
      host: '127.0.0.1',
      port: servicePort,
      path: incoming.url,
      method: incoming.method,
      headers: { ...incoming.headers, host: `127.0.0.1:${servicePort}`, 'x-agent-key': key },
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

const node22 = join(here, 'node_modules', 'node', 'bin', 'node');
const cli = join(here, 'node_modules', '@modelcontextprotocol', 'conformance', 'dist', 'index.js');
const result = spawnSync(
  node22,
  [
    cli,
    'server',
    '--url',
    `http://127.0.0.1:${proxyPort}/api/mcp`,
    '--suite',
    'active',
    '--expected-failures',
    join(here, 'baseline.yml'),
    ...process.argv.slice(2),
  ],
  { stdio: 'inherit' },
);

proxy.close();
await app.close();
rmSync(dataDir, { recursive: true, force: true });
process.exit(result.status ?? 1);
