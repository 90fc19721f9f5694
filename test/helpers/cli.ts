// The operator's CLI in tests: as a real process (its wiring: arguments, exit status, stderr), and
// in this process on a test's app (each command as the CLI runs it, without a process start's
// seconds).
import { spawnSync } from 'node:child_process';
import { mock } from 'node:test';
import { format } from 'node:util';
import type { FastifyInstance } from 'fastify';
import { runCommand } from '../../src/cli-commands.js';
import { nodeArgsFor } from './entry-points.js';

export interface CliOutcome {
  status: number;
  stdout: string;
  stderr: string;
}

/** `npm run cli -- ...args` as a process with `env` (its DATABASE_URL says which database). */
export function cliProcess(env: NodeJS.ProcessEnv, ...args: string[]): CliOutcome {
  const run = spawnSync(process.execPath, [...nodeArgsFor('src/cli.ts'), ...args], { env, encoding: 'utf8' });
  return { status: run.status ?? 1, stdout: run.stdout, stderr: run.stderr };
}

/** A command run as src/cli.ts runs it, on `app`: what it printed, or status 1 and its message. */
export async function cliInProcess(
  app: FastifyInstance,
  command: string,
  ...args: string[]
): Promise<CliOutcome> {
  const printed: string[] = [];
  const log = mock.method(console, 'log', (...parts: unknown[]) => printed.push(`${format(...parts)}\n`));
  try {
    await runCommand(app, command, args);
    return { status: 0, stdout: printed.join(''), stderr: '' };
  } catch (error) {
    return {
      status: 1,
      stdout: printed.join(''),
      stderr: error instanceof Error ? error.message : String(error),
    };
  } finally {
    log.mock.restore();
  }
}
