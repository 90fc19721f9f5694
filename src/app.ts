import type { FastifyInstance } from 'fastify';
import { registerPlugins, registerRoutes } from './app-routes.js';
import { attachRuntime } from './app-runtime.js';
import type { Config } from './config.js';
import type { Db } from './db/database.js';
import { createFastify } from './http/instance.js';
import { startTracing } from './lib/tracing.js';
import type { McpRoutesOptions } from './mcp/routes.js';
import { createMetrics } from './metrics.js';

export interface BuildOptions {
  /** An open database to use instead of opening `config.databaseUrl` (tests). */
  db?: Db;
  /**
   * false: nothing is logged (tests keep quiet). A logger still exists, silent: Fastify
   * reports completed requests, and so the request metrics, only to an app with one.
   */
  logger?: boolean;
  /** Where log lines go instead of stdout (tests read them). */
  logStream?: { write(line: string): void };
  /**
   * The MCP runtime at /api/mcp: its agent directory, tools and OAuth verifier. Tests
   * inject fakes here; the app's own wiring (agents module, module tools) is the default.
   */
  mcp?: McpRoutesOptions;
  /** The built web app to serve instead of `dist/frontend` (tests). */
  frontendRoot?: string;
}

/** The whole service: the Fastify instance, its database and services, plugins and routes. */
export async function buildApp(config: Config, options: BuildOptions = {}): Promise<FastifyInstance> {
  // Before the instance, whose request hooks exist only while tracing runs.
  const tracing = config.tracing ? startTracing(config.tracing) : undefined;
  const metrics = createMetrics();
  const app = createFastify(config, metrics, options);
  // Added first, so run last of the close hooks (Fastify runs them newest first): the spans of
  // the shutdown itself (jobs finishing, the pool closing) are sent too.
  if (tracing) {
    tracing.reportTo(app.log);
    app.addHook('onClose', () => tracing.shutdown());
  }
  await attachRuntime(app, config, metrics, options.db);
  await registerPlugins(app, options.frontendRoot);
  await registerRoutes(app, options.mcp, options.frontendRoot);
  return app;
}
