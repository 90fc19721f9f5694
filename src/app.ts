import { randomUUID } from 'node:crypto';
import Fastify, { type FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
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
import { createMetrics, type Metrics } from './metrics.js';
import { riskOf } from './modules/agents/catalogue.js';
import { agentRoutes } from './modules/agents/routes.js';
import { authRoutes } from './modules/auth/routes.js';
import { automationRoutes } from './modules/automation/routes.js';
import { availabilityRoutes } from './modules/availability/routes.js';
import { calendarSyncRoutes } from './modules/calendar-sync/routes.js';
import { calendarRoutes } from './modules/calendars/routes.js';
import { eventRoutes } from './modules/events/routes.js';
import { householdRoutes } from './modules/household/routes.js';
import { oauthRoutes } from './modules/oauth/routes.js';
import { organisationRoutes } from './modules/organisations/routes.js';
import { platformRoutes } from './modules/platform/routes.js';
import { privacyRoutes } from './modules/privacy/routes.js';
import { publicBookingRoutes } from './modules/public-booking/routes.js';
import { reservationRoutes } from './modules/reservations/routes.js';
import { resourceTypeRoutes } from './modules/resource-types/routes.js';
import { resourceRoutes } from './modules/resources/routes.js';
import { routineRoutes } from './modules/routines/routes.js';
import { taskLabelRoutes, taskRoutes } from './modules/tasks/routes.js';
import { userGroupRoutes } from './modules/user-groups/routes.js';
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
  await migrateToLatest(db);
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
    await store.close();
    if (!options.db) await db.close();
  });

  await app.register(helmet);
  await app.register(cors);
  await app.register(cookie);
  await app.register(rateLimit);
  await app.register(swagger);
  await app.register(pages);
  await app.register(authGuards, { credentials: app.services.auth });

  await app.register(platformRoutes, { prefix: '/api' });
  await app.register(authRoutes, { prefix: '/api/auth' });
  await app.register(organisationRoutes, { prefix: '/api/organisations' });
  await app.register(resourceTypeRoutes, { prefix: '/api/resource-types' });
  await app.register(resourceRoutes, { prefix: '/api/resources' });
  await app.register(availabilityRoutes, { prefix: '/api' });
  await app.register(reservationRoutes, { prefix: '/api/reservations' });
  await app.register(publicBookingRoutes, { prefix: '/api/public' });
  await app.register(calendarRoutes, { prefix: '/api/calendars' });
  await app.register(eventRoutes, { prefix: '/api/events' });
  await app.register(userGroupRoutes, { prefix: '/api/user-groups' });
  await app.register(taskRoutes, { prefix: '/api/tasks' });
  await app.register(taskLabelRoutes, { prefix: '/api/task-labels' });
  await app.register(routineRoutes, { prefix: '/api/routines' });
  await app.register(householdRoutes, { prefix: '/api/household' });
  await app.register(automationRoutes, { prefix: '/api/automation' });
  await app.register(calendarSyncRoutes, { prefix: '/api/calendar-sync' });
  await app.register(mcpRoutes, {
    prefix: '/api/mcp',
    ...(options.mcp ?? {
      agents: app.services.agents,
      tools: createTools(app.services),
      riskOf: riskOf,
      resources: createResourceProvider(app.services),
      verifyAccessToken: app.services.oauth.verifyAccessToken,
    }),
  });
  await app.register(agentRoutes, { prefix: '/api/agents' });
  await app.register(privacyRoutes, { prefix: '/api/compliance/me/privacy' });
  // Discovery at /.well-known/*, the OAuth 2.1 server at /api/oauth/*.
  await app.register(oauthRoutes);

  return app;
}
