import { randomUUID } from 'node:crypto';
import Fastify, { type FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { riskOf } from './catalogue.js';
import type { Config } from './config.js';
import { createDatabase, type Db } from './db/database.js';
import { migrateToLatest } from './db/migrate.js';
import { authGuards } from './http/auth.js';
import { registerErrorHandling } from './http/errors.js';
import { acceptEmptyJsonBodies } from './http/json-body.js';
import { lingerBeforeClosing } from './http/lingering-close.js';
import { AccessLog, loggerOptions } from './http/logging.js';
import pages from './http/pages.js';
import { serializerCompiler } from './http/serialize.js';
import { validatorCompiler } from './http/validation.js';
import { createJobQueue, type JobQueue } from './jobs/queue.js';
import { createEphemeralStore, type EphemeralStore } from './lib/ephemeral-store.js';
import { type McpRoutesOptions, mcpRoutes } from './mcp/routes.js';
import { MCP_PATH } from './mcp/types.js';
import { createMetrics, type Metrics } from './metrics.js';
import { moduleMigrations } from './module.js';
import { MODULES } from './modules/index.js';
import cookie from './plugins/cookie.js';
import cors from './plugins/cors.js';
import helmet from './plugins/helmet.js';
import rateLimit from './plugins/rate-limit.js';
import swagger from './plugins/swagger.js';
import { createServices, type Services } from './services.js';
import { createResourceProvider, createTools } from './tools.js';

declare module 'fastify' {
  interface FastifyInstance {
    config: Config;
    db: Db;
    store: EphemeralStore;
    metrics: Metrics;
    services: Services;
    jobs: JobQueue;
  }
}

const REQUEST_ID = /^[A-Za-z0-9._-]{1,64}$/;

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
}

export async function buildApp(config: Config, options: BuildOptions = {}): Promise<FastifyInstance> {
  const metrics = createMetrics();
  const app = Fastify({
    logger: options.logger === false ? { level: 'silent' } : loggerOptions(config, options.logStream),
    bodyLimit: config.bodyLimitBytes,
    trustProxy: config.trustProxy,
    // Accept a caller's request id when it is sane, so traces join across services.
    genReqId: (request) => {
      const given = request.headers['x-request-id'];
      return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
    },
    routerOptions: { ignoreTrailingSlash: true },
    logController: new AccessLog(metrics.observeRequest),
  }).withTypeProvider<ZodTypeProvider>();

  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  registerErrorHandling(app);
  acceptEmptyJsonBodies(app);
  app.addHook('preClose', lingerBeforeClosing(app.server));

  const db =
    options.db ??
    createDatabase(config.databaseUrl, {
      connectTimeoutMs: config.databaseConnectTimeoutMs,
      statementTimeoutMs: config.databaseStatementTimeoutMs,
    });
  await migrateToLatest(db, moduleMigrations(MODULES));
  const store = createEphemeralStore(config.redisUrl);
  app.decorate('config', config);
  app.decorate('db', db);
  app.decorate('store', store);
  app.decorate('metrics', metrics);
  const jobs = createJobQueue(db, config.jobQueue, app.log);
  app.decorate('jobs', jobs);
  app.decorate('services', createServices({ db, config, store, metrics, jobs, log: app.log }));
  // Handlers are registered by the services above; workers start once the app is ready.
  app.addHook('onReady', () => jobs.start());
  app.addHook('onClose', async () => {
    await jobs.stop();
    // A service holding resources of its own (the mail sender's thread and its SMTP
    // connection) lets them go once no job can use them.
    for (const service of Object.values(app.services) as Array<{ close?: () => Promise<void> }>) {
      await service.close?.();
    }
    await store.close();
    if (!options.db) await db.close();
  });

  await app.register(helmet);
  await app.register(cors);
  await app.register(cookie);
  await app.register(rateLimit);
  await app.register(swagger);
  await app.register(pages, { origin: config.frontendUrl });
  await app.register(authGuards, { credentials: app.services.auth });

  // Every module's routes, in MODULES order (src/modules/index.ts).
  for (const module of MODULES)
    for (const { prefix, plugin } of module.routes ?? [])
      await app.register(plugin, prefix === undefined ? {} : { prefix });
  // The MCP runtime knows no module: the agents directory, the modules' tools, the catalogue's
  // risks and the OAuth token check are wired in here.
  await app.register(mcpRoutes, {
    prefix: MCP_PATH,
    ...(options.mcp ?? {
      agents: app.services.agents,
      tools: createTools(app.services),
      riskOf,
      resources: createResourceProvider(app.services),
      verifyAccessToken: app.services.oauth.verifyAccessToken,
      gate: app.services.approvals.gate,
    }),
  });

  return app;
}
