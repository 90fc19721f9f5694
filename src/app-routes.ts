import type { FastifyInstance } from 'fastify';
import { riskOf } from './catalogue.js';
import { authGuards } from './http/auth.js';
import pages, { DEFAULT_FRONTEND_ROOT } from './http/pages.js';
import { replicaReads } from './http/replica-reads.js';
import { loadMcpApps } from './mcp/apps.js';
import { type McpRoutesOptions, mcpRoutes } from './mcp/routes.js';
import { MCP_PATH } from './mcp/types.js';
import { MODULES } from './modules/index.js';
import { bookingPageEmbedOrigins } from './modules/organisations/ports.js';
import cookie from './plugins/cookie.js';
import cors from './plugins/cors.js';
import helmet from './plugins/helmet.js';
import rateLimit from './plugins/rate-limit.js';
import swagger from './plugins/swagger.js';
import { createResourceProvider, createTools } from './tools.js';

/** The plugins every route runs behind: the read replica's routing, security headers, CORS, cookies, rate limits, docs, pages, auth. */
export async function registerPlugins(app: FastifyInstance, frontendRoot?: string): Promise<void> {
  // First: it wraps the handler of every route registered after it.
  await app.register(replicaReads);
  await app.register(helmet);
  await app.register(cors);
  await app.register(cookie);
  await app.register(rateLimit);
  await app.register(swagger);
  await app.register(pages, {
    origin: app.config.frontendUrl,
    ...(frontendRoot === undefined ? {} : { frontendRoot }),
    bookingPageFrameAncestors: (slug) => bookingPageEmbedOrigins(app.db.kysely, slug),
  });
  await app.register(authGuards, { credentials: app.services.auth });
}

/** Every module's routes, in MODULES order (src/modules/index.ts), then the MCP runtime. */
export async function registerRoutes(
  app: FastifyInstance,
  mcp: McpRoutesOptions | undefined,
  frontendRoot = DEFAULT_FRONTEND_ROOT,
): Promise<void> {
  for (const module of MODULES)
    for (const { prefix, plugin } of module.routes ?? [])
      await app.register(plugin, prefix === undefined ? {} : { prefix });
  // The MCP runtime knows no module: the agents directory, the modules' tools, the catalogue's
  // risks and the OAuth token check are wired in here.
  await app.register(mcpRoutes, {
    prefix: MCP_PATH,
    ...(mcp ?? {
      agents: app.services.agents,
      tools: createTools(app.services),
      riskOf,
      resources: createResourceProvider(
        app.services,
        loadMcpApps(frontendRoot, (message) => app.log.warn(message)),
      ),
      verifyAccessToken: app.services.oauth.verifyAccessToken,
      gate: app.services.approvals.gate,
      tasks: app.services.approvals.tasks,
      // Tool calls' idempotencyKeys live with the REST Idempotency-Keys: one store, one mechanism.
      idempotency: app.services.idempotency,
    }),
  });
}
