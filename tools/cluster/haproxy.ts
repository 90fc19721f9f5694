import { type ChildProcess, spawnSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { spawnTied } from './tied.js';

/** How often HAProxy asks each instance's `/api/ready`, and how many answers change its mind. */
export const CHECK_INTERVAL_MS = 250;
const CHECK_FALL = 2;
/**
 * How long a draining instance goes on serving after SIGTERM (its SHUTDOWN_DRAIN_MS): the
 * failed checks that take it out of rotation, twice over.
 */
export const DRAIN_MS = 2 * CHECK_FALL * CHECK_INTERVAL_MS + 500;

/** Where Debian's package puts the binary (often off a non-root PATH). */
const DEBIAN_BINARY = '/usr/sbin/haproxy';

/** The HAProxy binary: Debian's package, installed with apt-get where it is missing (as `.ci/run` does). */
export function ensureHaproxy(): string {
  const onPath = spawnSync('sh', ['-c', 'command -v haproxy'], { encoding: 'utf8' }).stdout.trim();
  if (onPath) return onPath;
  if (existsSync(DEBIAN_BINARY)) return DEBIAN_BINARY;
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  const install = spawnSync('sh', ['-c', 'apt-get update -qq && apt-get install -y -qq haproxy'], {
    env,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  if (install.status !== 0 || !existsSync(DEBIAN_BINARY))
    throw new Error('HAProxy is missing and `apt-get install -y haproxy` failed (it needs root)');
  return DEBIAN_BINARY;
}

export interface Backend {
  name: string;
  port: number;
}

/**
 * One frontend on `port`, round robin over the instances, each checked through `/api/ready`.
 * A request reaches the server side on a connection of its own (http-server-close), so an
 * instance that stops listening is never sent a request on a connection it is closing; a
 * connection refused is retried on another instance (safe for every method: nothing was sent),
 * and a GET or HEAD also after an empty answer.
 */
export function haproxyConfig(port: number, backends: readonly Backend[], socket: string): string {
  return `global
  maxconn 4096
  stats socket ${socket} mode 600 level user

defaults
  mode http
  timeout connect 2s
  timeout client 120s
  timeout server 120s
  timeout http-request 10s
  timeout http-keep-alive 10s
  timeout check 2s
  option http-server-close
  option forwardfor
  option redispatch 1
  retries 3
  retry-on conn-failure empty-response

frontend service
  bind 127.0.0.1:${port}
  http-request disable-l7-retry unless METH_GET
  default_backend instances

backend instances
  balance roundrobin
  option httpchk GET /api/ready
  http-check expect status 200
  default-server check inter ${CHECK_INTERVAL_MS}ms fall ${CHECK_FALL} rise 1
${backends.map((backend) => `  server ${backend.name} 127.0.0.1:${backend.port}`).join('\n')}
`;
}

export interface Balancer {
  child: ChildProcess;
  /** Each instance's state as HAProxy's checks see it: `UP`, `DOWN`, `MAINT`... */
  states(): Promise<Map<string, string>>;
  stop(): Promise<void>;
}

/** HAProxy in the foreground (`-db`), a child of this process, on a config written into `dir`. */
export async function startHaproxy(
  dir: string,
  port: number,
  backends: readonly Backend[],
): Promise<Balancer> {
  const binary = ensureHaproxy();
  const socket = join(dir, 'haproxy.sock');
  const config = join(dir, 'haproxy.cfg');
  writeFileSync(config, haproxyConfig(port, backends, socket));
  const child = spawnTied(binary, ['-db', '-f', config], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-4000);
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const balancer: Balancer = {
    child,
    states: () => serverStates(socket),
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
  // Listening once its stats socket answers.
  for (let waited = 0; ; waited += 50) {
    if (child.exitCode !== null) throw new Error(`HAProxy exited at start: ${stderr.trim()}`);
    if (
      await balancer.states().then(
        () => true,
        () => false,
      )
    )
      return balancer;
    if (waited > 10_000) throw new Error(`HAProxy did not start: ${stderr.trim()}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** `show stat` on the stats socket: the `status` column of each server of the backend. */
function serverStates(socket: string): Promise<Map<string, string>> {
  return new Promise((resolve, reject) => {
    const connection = connect(socket);
    let text = '';
    connection.on('error', reject);
    connection.on('data', (chunk: Buffer) => {
      text += chunk.toString();
    });
    connection.on('end', () => {
      const [header = '', ...rows] = text.split('\n');
      const columns = header.replace(/^# /, '').split(',');
      const [proxy, server, status] = ['pxname', 'svname', 'status'].map((name) => columns.indexOf(name));
      const states = new Map<string, string>();
      for (const row of rows.map((line) => line.split(','))) {
        const name = row[server!];
        if (row[proxy!] === 'instances' && name && name !== 'BACKEND') states.set(name, row[status!]!);
      }
      resolve(states);
    });
    connection.end('show stat\n');
  });
}
