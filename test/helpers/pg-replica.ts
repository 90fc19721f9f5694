import { execFileSync } from 'node:child_process';
import { chownSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { freePort } from './app.js';

/**
 * A PostgreSQL primary and its streaming replica of their own, in one temporary directory, on
 * two free loopback ports: `initdb`, then `pg_basebackup -R -X stream` of it, each started with
 * `pg_ctl` (the server binaries of `pg_config --bindir`). A cluster of its own, not the test
 * run's: the shared cluster takes no replication connections (its pg_hba.conf has no
 * `replication` line), and a test editing a system file would leave it changed if it died.
 * Servers refuse to run as root: as root, every command runs as the `postgres` user.
 */
export interface ReplicatedPair {
  primaryUrl: string;
  replicaUrl: string;
  /** A client of the replica (replay pause and resume). */
  replica: pg.Client;
  /** Waits until the replica has replayed everything the primary has written so far. */
  caughtUp(): Promise<void>;
  /** Holds replay where it is, as a replica far behind would be. */
  pauseReplay(): Promise<void>;
  resumeReplay(): Promise<void>;
  /** Stops the replica at once, as a crash would. */
  stopReplica(): void;
  /** Stops both servers and removes the directory. */
  remove(): Promise<void>;
}

const DATABASE = 'rs_replica_test';
const asRoot = process.getuid?.() === 0;

function run(command: string, args: string[]): string {
  const bin = execFileSync('pg_config', ['--bindir'], { encoding: 'utf8' }).trim();
  const [file, argv] = asRoot
    ? ['runuser', ['-u', 'postgres', '--', join(bin, command), ...args]]
    : [join(bin, command), args];
  return execFileSync(file, argv, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

function ownedByPostgres(dir: string): void {
  if (!asRoot) return;
  const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }));
  const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }));
  chownSync(dir, uid, gid);
}

async function query<Row extends pg.QueryResultRow>(url: string, text: string): Promise<Row[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<Row>(text)).rows;
  } finally {
    await client.end();
  }
}

/** Starts the data directory `data` on `port`, its socket in `dir`, logging to `data.log`. */
function start(dir: string, data: string, port: number, settings: string): void {
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off ${settings}`;
  run('pg_ctl', ['-D', data, '-o', options, '-l', `${data}.log`, '-w', '-t', '60', 'start']);
}

export async function startReplicatedPair(): Promise<ReplicatedPair> {
  const dir = mkdtempSync(join(tmpdir(), 'rs-replica-'));
  ownedByPostgres(dir);
  const primaryData = join(dir, 'primary');
  const replicaData = join(dir, 'replica');
  const [primaryPort, replicaPort] = [await freePort(), await freePort()];
  const url = (port: number, database: string) => `postgres://postgres@127.0.0.1:${port}/${database}`;
  const stop = (data: string) => {
    try {
      run('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']);
    } catch {
      // Not running.
    }
  };
  const remove = async () => {
    await replica?.end().catch(() => {});
    stop(replicaData);
    stop(primaryData);
    rmSync(dir, { recursive: true, force: true });
  };
  let replica: pg.Client | undefined;
  try {
    run('initdb', ['-D', primaryData, '-U', 'postgres', '-A', 'trust', '--no-sync']);
    start(dir, primaryData, primaryPort, '');
    await query(url(primaryPort, 'postgres'), `create database ${DATABASE}`);
    // A fast checkpoint to start from: the default spreads it over minutes.
    const source = ['-h', '127.0.0.1', '-p', String(primaryPort), '-U', 'postgres', '-c', 'fast'];
    run('pg_basebackup', [...source, '-D', replicaData, '-R', '-X', 'stream']);
    start(dir, replicaData, replicaPort, '-c hot_standby=on');
    replica = new pg.Client({ connectionString: url(replicaPort, DATABASE) });
    replica.on('error', () => {});
    await replica.connect();
  } catch (error) {
    await remove();
    throw error;
  }
  const standby = replica;
  const primaryUrl = url(primaryPort, DATABASE);
  return {
    primaryUrl,
    replicaUrl: url(replicaPort, DATABASE),
    replica: standby,
    caughtUp: async () => {
      const [row] = await query<{ position: string }>(
        primaryUrl,
        'select pg_current_wal_flush_lsn()::text as position',
      );
      for (let attempt = 0; attempt < 500; attempt += 1) {
        const { rows } = await standby.query<{ done: boolean }>(
          'select pg_last_wal_replay_lsn() >= $1::pg_lsn as done',
          [row!.position],
        );
        if (rows[0]?.done) return;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      throw new Error(`the replica did not replay up to ${row!.position} in 10 s`);
    },
    pauseReplay: async () => {
      await standby.query('select pg_wal_replay_pause()');
      for (let attempt = 0; attempt < 500; attempt += 1) {
        const { rows } = await standby.query<{ state: string }>(
          'select pg_get_wal_replay_pause_state() as state',
        );
        if (rows[0]?.state === 'paused') return;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      throw new Error('replay did not pause in 10 s');
    },
    resumeReplay: async () => {
      await standby.query('select pg_wal_replay_resume()');
    },
    stopReplica: () => {
      standby.end().catch(() => {});
      stop(replicaData);
    },
    remove,
  };
}
