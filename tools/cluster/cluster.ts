import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DRAIN_MS, startHaproxy } from './haproxy.js';
import { freePort, Instance } from './instance.js';
import { startSharedProviders } from './providers.js';

export interface ClusterOptions {
  instances: number;
  /** The balancer's port; 0 or absent: a free one. */
  port?: number;
  /** The instances' environment (DATABASE_URL, REDIS_URL and the rest, as for `npm start`). */
  env: Record<string, string | undefined>;
  /** node's arguments that start one instance; default the built production entry, dist/src/main.js. */
  entry?: readonly string[];
  /** The instances' log lines on this process's stdout (default false). */
  logs?: boolean;
}

export interface ClusterInstance {
  readonly name: string;
  readonly port: number;
  /** The running process's id (it changes on restart). */
  readonly pid: number;
  /** SIGTERM, wait for the exit (its code is answered), start again, wait until the balancer sends it requests. */
  restart(): Promise<number | null>;
}

export interface Cluster {
  /** The balancer's address, every instance's PUBLIC_URL: `http://127.0.0.1:<port>`. */
  url: string;
  instances: ClusterInstance[];
  /** The development emulators every instance uses (none outside development, or with provider settings). */
  providers: { provider: string; url: string }[];
  /** Stops every instance (each drains), then the balancer and the shared emulators. */
  stop(): Promise<void>;
}

/** What several instances need from the environment: one PostgreSQL and one Redis. */
export function checkClusterEnv(env: Record<string, string | undefined>): void {
  if (!/^postgres(ql)?:\/\//.test(env.DATABASE_URL ?? ''))
    throw new Error(
      `A cluster needs PostgreSQL: set DATABASE_URL to a postgres:// URL (it is ${env.DATABASE_URL ? `"${env.DATABASE_URL.split(':')[0]}:..."` : 'unset, so SQLite'}; instances cannot share a SQLite file)`,
    );
  if (!/^rediss?:\/\//.test(env.REDIS_URL ?? ''))
    throw new Error(
      'A cluster needs Redis: set REDIS_URL (rate limits and sign-in counters are shared there)',
    );
}

/**
 * N instances of the service on one PostgreSQL and Redis, behind HAProxy on one port, each
 * started as `npm start` starts the production entry; development emulators run once, here.
 */
export async function startCluster(options: ClusterOptions): Promise<Cluster> {
  checkClusterEnv(options.env);
  const port = options.port || (await freePort());
  const url = `http://127.0.0.1:${port}`;
  const dir = mkdtempSync(join(tmpdir(), 'rs-cluster-'));
  const baseEnv = { ...options.env, PUBLIC_URL: url, TRUST_PROXY: 'true' };
  const providers = await startSharedProviders(baseEnv);
  const env = { SHUTDOWN_DRAIN_MS: String(DRAIN_MS), ...baseEnv, ...providers.env };
  const command = { args: options.entry ?? ['dist/src/main.js'], env, logs: options.logs ?? false };
  const instances: Instance[] = [];
  for (let index = 1; index <= options.instances; index += 1)
    instances.push(new Instance(`i${index}`, await freePort(), command));
  const closeProviders = () => Promise.all(providers.emulators.map((emulator) => emulator.close()));
  try {
    await Promise.all(instances.map((instance) => instance.start()));
    const balancer = await startHaproxy(dir, port, instances);
    const inRotation = (name: string) => waitFor(async () => (await balancer.states()).get(name) === 'UP');
    await Promise.all(instances.map((instance) => inRotation(instance.name)));
    const restart = async (instance: Instance) => {
      const code = await instance.stop();
      await instance.start();
      await inRotation(instance.name);
      return code;
    };
    return {
      url,
      instances: instances.map((instance) => ({
        name: instance.name,
        port: instance.port,
        get pid() {
          return instance.pid;
        },
        restart: () => restart(instance),
      })),
      providers: providers.emulators.map(({ provider, url }) => ({ provider, url })),
      async stop() {
        await Promise.all(instances.map((instance) => instance.stop()));
        await balancer.stop();
        await closeProviders();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    for (const instance of instances) instance.kill();
    await closeProviders();
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
}

async function waitFor(condition: () => Promise<boolean>, limitMs = 30_000): Promise<void> {
  const started = Date.now();
  while (!(await condition())) {
    if (Date.now() - started > limitMs) throw new Error('the balancer did not take the instance in time');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
