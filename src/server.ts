import { setTimeout as sleep } from 'node:timers/promises';
import type { FastifyInstance } from 'fastify';
import { buildApp } from './app.js';
import type { Config } from './config.js';

/** Something started beside the app (a development emulator) that closes with it. */
export interface Companion {
  provider: string;
  url: string;
  close(): Promise<void>;
}

/** How long closing may take once it begins before the process exits anyway. */
const CLOSE_LIMIT_MS = 10_000;

/** What the operator hears at start: emulators standing in for providers, settings that do less than they seem. */
export function startupWarnings(
  config: Pick<Config, 'databaseReadUrl' | 'redisUrl'>,
  companions: readonly Companion[],
): { details: object; message: string }[] {
  const warnings: { details: object; message: string }[] = companions.map((companion) => ({
    details: { provider: companion.provider, url: companion.url },
    message: `No ${companion.provider} provider configured: running against the bundled emulator`,
  }));
  if (config.databaseReadUrl && !config.redisUrl)
    warnings.push({
      details: {},
      message:
        "DATABASE_READ_URL without REDIS_URL: each instance keeps its callers' write positions alone, so with " +
        'several instances a caller may read from the replica, behind its own write, on another one',
    });
  return warnings;
}

/**
 * Builds the app, listens, and on SIGTERM/SIGINT drains (see `drainAndExit`).
 */
export async function serve(config: Config, companions: readonly Companion[] = []) {
  const app = await buildApp(config);
  for (const { details, message } of startupWarnings(config, companions)) app.log.warn(details, message);
  for (const companion of companions) app.addHook('onClose', () => companion.close());
  await app.listen({ port: config.port, host: config.host });
  // The address to open: every link and redirect uses it, and a page asked for by another
  // loopback name (127.0.0.1, [::1]) moves there, so a session never splits across two names.
  app.log.info({ url: config.frontendUrl }, `Open ${config.frontendUrl}/app in a browser`);

  let closing = false;
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.on(signal, () => {
      if (closing) return;
      closing = true;
      app.log.info({ signal }, 'shutting down');
      void drainAndExit(app, config.shutdownDrainMs);
    });
  }
  return app;
}

/**
 * A graceful shutdown: readiness answers 503 for `drainMs` while everything is still served
 * (a load balancer takes the instance out meanwhile), then the app closes: it stops accepting,
 * answers the requests and MCP streams in flight (closing idle keep-alive connections), lets
 * running jobs finish or hands them back to the queue, closes the pool and exits. Forced
 * after CLOSE_LIMIT_MS of closing.
 */
async function drainAndExit(app: FastifyInstance, drainMs: number): Promise<void> {
  app.drain.start();
  if (drainMs > 0) await sleep(drainMs);
  const force = setTimeout(() => process.exit(1), CLOSE_LIMIT_MS);
  force.unref();
  try {
    await app.close();
    process.exit(0);
  } catch (error) {
    app.log.error({ err: error }, 'shutdown failed');
    process.exit(1);
  }
}
