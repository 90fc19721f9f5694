import { type ChildProcess, type SpawnOptions, spawn, spawnSync } from 'node:child_process';

let setpriv: string | null | undefined;

/** util-linux's `setpriv` on Linux (Debian has it in every install), null elsewhere. */
function setprivPath(): string | null {
  if (setpriv === undefined) {
    setpriv =
      process.platform === 'linux'
        ? spawnSync('sh', ['-c', 'command -v setpriv'], { encoding: 'utf8' }).stdout?.trim() || null
        : null;
  }
  return setpriv;
}

/**
 * A child that ends with the cluster's process: `setpriv --pdeathsig TERM` has the kernel send it
 * SIGTERM when this process dies, so one killed with SIGKILL (which runs no handler) leaves no
 * instance or balancer serving behind it; an instance drains on SIGTERM as on a stop. setpriv
 * execs the command, so the child's pid is the command's. Without setpriv, a plain child.
 */
export function spawnTied(command: string, args: readonly string[], options: SpawnOptions): ChildProcess {
  const tie = setprivPath();
  return tie
    ? spawn(tie, ['--pdeathsig', 'TERM', '--', command, ...args], options)
    : spawn(command, args, options);
}
