import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';

/**
 * Starts the service in a child process on `url` (and `schema`, PostgreSQL) with `env` over
 * the test settings, for crash tests; answers it and its URL once it serves.
 */
export async function startChild(url: string, schema: string | undefined, env: Record<string, string> = {}) {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', join(import.meta.dirname, 'instance.fixture.ts')],
    {
      env: {
        ...process.env,
        CHILD_DATABASE_URL: url,
        CHILD_ENV: JSON.stringify(env),
        ...(schema ? { CHILD_DATABASE_SCHEMA: schema } : {}),
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  const served = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString('utf8');
      const line = out.split('\n').find((l) => l.startsWith('{'));
      if (line) resolve((JSON.parse(line) as { url: string }).url);
    });
    child.on('exit', (code) => reject(new Error(`the instance exited (${code}) before serving`)));
  });
  return { child, url: served };
}

/** Kills the child with SIGKILL (no shutdown of any kind) and waits for it to be gone. */
export const killed = (child: ChildProcess) =>
  new Promise<void>((resolve) => {
    child.on('exit', () => resolve());
    child.kill('SIGKILL');
  });
