import { buildApp } from './app.js';
import type { Config } from './config.js';

/** Something started beside the app (a development emulator) that closes with it. */
export interface Companion {
  provider: string;
  url: string;
  close(): Promise<void>;
}

/**
 * Builds the app, listens, and shuts down gracefully on SIGTERM/SIGINT: stop
 * accepting, let in-flight requests finish, close the database; give up after 10 s.
 */
export async function serve(config: Config, companions: readonly Companion[] = []) {
  const app = await buildApp(config);
  for (const companion of companions) {
    app.log.warn(
      { provider: companion.provider, url: companion.url },
      `No ${companion.provider} provider configured: running against the bundled emulator`,
    );
    app.addHook('onClose', () => companion.close());
  }
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
      const force = setTimeout(() => process.exit(1), 10_000);
      force.unref();
      app.close().then(
        () => process.exit(0),
        (error) => {
          app.log.error({ err: error }, 'shutdown failed');
          process.exit(1);
        },
      );
    });
  }
  return app;
}
