// Several real instances behind HAProxy, for the cluster tests (test/cluster/*.cluster.ts, run
// by `npm run test:cluster`). The set-up is `npm run cluster`'s own (tools/cluster/cluster.ts);
// here each cluster gets a fresh PostgreSQL database (migrated by the instances as they start)
// and the instances run src/main.ts under tsx, so no build is needed.
//
//   const cluster = await start({ instances: 3 });
//   await fetch(`${cluster.url}/api/ready`);          // through the balancer
//   await cluster.instances[0]!.restart();             // SIGTERM, exit, start, back in rotation
//   await cluster.stop();                               // instances, HAProxy, then the database
//
// `cluster.databaseUrl` opens the same database from the test (pg.Client, createDatabase).
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { type ClusterInstance, startCluster } from '../../tools/cluster/cluster.js';

export type { ClusterInstance };

export interface StartOptions {
  /** How many instances (at least 1). */
  instances: number;
  /** More environment for every instance (over the defaults below). */
  env?: Record<string, string>;
  /** The instances' log lines on the test's stdout (debugging). */
  logs?: boolean;
}

export interface TestCluster {
  /** The balancer's address (every instance's PUBLIC_URL): `http://127.0.0.1:<port>`. */
  url: string;
  /**
   * Each instance: `name` (i1, i2, ...), `port` (its own, unchanged by restarts), `pid` (the
   * current process), and `restart()`: SIGTERM, wait for its exit (its code is answered: 0
   * after a clean drain), start it again, resolve once HAProxy's health check has it back.
   */
  instances: ClusterInstance[];
  /** The cluster's database, for reading what the instances wrote. */
  databaseUrl: string;
  /** Stops the instances (each drains), HAProxy, and drops the database. */
  stop(): Promise<void>;
}

/** Where databases are created and dropped (as scripts/test-pg.mjs). */
const ADMIN_URL = process.env.PG_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

/** The instances' environment: test mode, generous limits (every request comes from one address). */
const CLUSTER_ENV: Record<string, string> = {
  NODE_ENV: 'test',
  LOG_LEVEL: 'warn',
  RATE_LIMIT_MAX: '1000000',
  PUBLIC_RATE_LIMIT_MAX: '1000000',
  REGISTER_RATE_LIMIT_MAX: '100000',
  PUBLIC_HOLD_IP_MAX: '100000',
  LOGIN_RATE_LIMIT_MAX: '100000',
  // Test mode starts no emulator; nothing here takes a payment.
  PAYMENT_API_BASE: 'http://127.0.0.1:9',
  PAYMENT_SECRET_KEY: 'sk_test_cluster',
};

async function admin(statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: ADMIN_URL });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

/** A fresh database for one cluster (the instances migrate it as they start), and the instances' environment on it. */
export async function clusterDatabase(
  extra: Record<string, string> = {},
): Promise<{ databaseUrl: string; env: Record<string, string | undefined>; drop(): Promise<void> }> {
  const name = `rs_cluster_${Date.now()}_${randomBytes(4).toString('hex')}`;
  await admin(`create database ${name}`);
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  const databaseUrl = url.toString();
  return {
    databaseUrl,
    env: { PATH: process.env.PATH, ...CLUSTER_ENV, ...extra, DATABASE_URL: databaseUrl, REDIS_URL },
    drop: () => admin(`drop database if exists ${name} with (force)`),
  };
}

/** node's arguments that start an instance in the tests: the source under tsx, no build needed. */
export const INSTANCE_ENTRY = ['--import', 'tsx', 'src/main.ts'] as const;

export async function start(options: StartOptions): Promise<TestCluster> {
  const { databaseUrl, env, drop } = await clusterDatabase(options.env);
  try {
    const cluster = await startCluster({
      instances: options.instances,
      env,
      entry: INSTANCE_ENTRY,
      logs: options.logs ?? false,
    });
    return {
      url: cluster.url,
      instances: cluster.instances,
      databaseUrl,
      async stop() {
        await cluster.stop();
        await drop();
      },
    };
  } catch (error) {
    await drop();
    throw error;
  }
}
