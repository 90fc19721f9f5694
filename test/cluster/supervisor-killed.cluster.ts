// A cluster's process killed with SIGKILL runs no handler: its instances and its balancer must
// still end (tools/cluster/tied.ts), not keep serving from an old configuration, holding the
// ports and the database's connections.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import { test } from 'node:test';
import { PROJECT_ROOT } from '../../src/lib/project-root.js';
import { clusterDatabase, INSTANCE_ENTRY } from '../helpers/cluster.js';
import { eventually } from '../helpers/wait.js';

/**
 * The instances and the balancer `pid` started, from each of its threads' /proc children list
 * (not tsx's esbuild service, a child too).
 */
function servingChildrenOf(pid: number): number[] {
  return readdirSync(`/proc/${pid}/task`)
    .flatMap((tid) => readFileSync(`/proc/${pid}/task/${tid}/children`, 'utf8').split(' ').filter(Boolean))
    .map(Number)
    .filter((child) => /haproxy|src\/main\.ts/.test(readFileSync(`/proc/${child}/cmdline`, 'utf8')));
}

/** The first line the cluster's process prints that is an address: its balancer's. */
async function urlPrinted(stdout: Readable): Promise<string> {
  for await (const line of createInterface({ input: stdout }))
    if (/^http:\/\//.test(line)) return line.trim();
  throw new Error('the cluster ended without printing its address');
}

/** Still running: it exists and is no zombie waiting to be reaped. */
function running(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

test('a cluster killed with SIGKILL leaves neither its instances nor its balancer running', async () => {
  const { env, drop } = await clusterDatabase();
  // The cluster as `npm run cluster` starts it, in a process of its own, on the test's entry.
  const script = `
    import { startCluster } from './tools/cluster/cluster.ts';
    const cluster = await startCluster({ instances: 2, env: JSON.parse(process.env.CLUSTER_ENV), entry: ${JSON.stringify(INSTANCE_ENTRY)} });
    console.log(cluster.url);`;
  const supervisor = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    cwd: PROJECT_ROOT,
    env: { ...process.env, CLUSTER_ENV: JSON.stringify(env) },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let children: number[] = [];
  try {
    const url = await urlPrinted(supervisor.stdout!);
    assert.equal((await fetch(`${url}/api/ready`)).status, 200, 'the balancer answers');
    children = servingChildrenOf(supervisor.pid!);
    assert.equal(children.length, 3, `two instances and HAProxy, not ${children.length} processes`);
    supervisor.kill('SIGKILL');
    await eventually(
      () => children.every((pid) => !running(pid)),
      30_000,
      'every instance and the balancer ending with the cluster',
    );
  } finally {
    supervisor.kill('SIGKILL');
    for (const pid of children.filter(running)) process.kill(pid, 'SIGKILL');
    await drop();
  }
});
