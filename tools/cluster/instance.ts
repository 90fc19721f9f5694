import type { ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { PROJECT_ROOT } from '../../src/lib/project-root.js';
import { spawnTied } from './tied.js';

/** How an instance is started: node and its arguments, from the project's root (the built entry, or src/main.ts under tsx in tests). */
export interface InstanceCommand {
  args: readonly string[];
  env: Readonly<Record<string, string | undefined>>;
  /** true: the instance's log lines go to this process's stdout; false: dropped. */
  logs: boolean;
}

const START_LIMIT_MS = 120_000;

/** A port nobody listens on right now. */
export async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const address = probe.address();
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  if (!address || typeof address === 'string') throw new Error('no free port');
  return address.port;
}

/** One service process on its own port; restarted on the same port, so the balancer's config stays. */
export class Instance {
  private child: ChildProcess | undefined;
  private stderr = '';

  constructor(
    readonly name: string,
    readonly port: number,
    private readonly command: InstanceCommand,
  ) {}

  get pid(): number {
    return this.child?.pid ?? 0;
  }

  /** Starts the process and resolves once its `/api/ready` answers 200. */
  async start(): Promise<void> {
    this.stderr = '';
    const child = spawnTied(process.execPath, this.command.args, {
      cwd: PROJECT_ROOT,
      env: { ...this.command.env, PORT: String(this.port), HOST: '127.0.0.1' },
      stdio: ['ignore', this.command.logs ? 'inherit' : 'ignore', 'pipe'],
    });
    this.child = child;
    child.stderr!.on('data', (chunk: Buffer) => {
      if (this.command.logs) process.stderr.write(chunk);
      this.stderr = (this.stderr + chunk.toString()).slice(-4000);
    });
    const started = Date.now();
    for (;;) {
      if (child.exitCode !== null || child.signalCode !== null)
        throw new Error(
          `instance ${this.name} exited (${child.exitCode ?? child.signalCode}) at start: ${this.stderr}`,
        );
      if (await this.ready()) return;
      if (Date.now() - started > START_LIMIT_MS) throw new Error(`instance ${this.name} not ready in time`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  /** SIGTERM (the instance drains), then its exit code once it is gone. */
  async stop(): Promise<number | null> {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return child?.exitCode ?? null;
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    child.kill('SIGTERM');
    return exited;
  }

  /** Ends the process at once (a crash, or an instance that would not stop). */
  kill(): void {
    this.child?.kill('SIGKILL');
  }

  private async ready(): Promise<boolean> {
    try {
      const response = await fetch(`http://127.0.0.1:${this.port}/api/ready`);
      await response.body?.cancel();
      return response.status === 200;
    } catch {
      return false;
    }
  }
}
