import cors, { type FastifyCorsOptions, type OriginFunction } from '@fastify/cors';
import fp from 'fastify-plugin';

// What @fastify/cors reads and writes but does not declare.
declare module 'fastify' {
  interface FastifyContextConfig {
    /** Options merged over the plugin's for this route (the MCP origin rule). */
    cors?: Partial<FastifyCorsOptions>;
  }
  interface FastifyRequest {
    /** Set by @fastify/cors when a preflight passed. */
    corsPreflightEnabled?: boolean;
  }
}

/** `/api/mcp` and the deprecated gateway under it. */
const MCP_PATH = /^\/api\/mcp(?:[/?]|$)/;

/** The origin of a configured URL (no path, no trailing slash); null when it is none. */
const originOf = (url: string): string | null => {
  try {
    const { origin } = new URL(url);
    return origin === 'null' ? null : origin;
  } catch {
    return null;
  }
};

/**
 * CORS for browsers (only browsers send Origin; other clients get no CORS headers at all).
 * Everywhere the allow-list is CORS_ORIGINS. On /api/mcp it is also every origin the MCP
 * Origin rule admits (PUBLIC_URL, FRONTEND_URL, MCP_ALLOWED_ORIGINS), so a browser MCP
 * client the server accepts can also read its answers and pass the preflight.
 */
export default fp(
  async (app) => {
    const { config } = app;
    const general = new Set(config.corsOrigins);
    const mcpRule = [config.publicUrl, config.frontendUrl, ...config.mcpAllowedOrigins].map(originOf);
    const mcp = new Set([...general, ...mcpRule.filter((origin): origin is string => origin !== null)]);
    const common: FastifyCorsOptions = {
      credentials: true,
      methods: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'],
      allowedHeaders: [
        'authorization',
        'content-type',
        'x-api-key',
        'x-csrf-token',
        'x-request-id',
        // MCP clients (streamable HTTP, both protocol eras) and the agent credential forms.
        'x-agent-key',
        'x-agent-token',
        'mcp-session-id',
        'mcp-protocol-version',
        'mcp-method',
        'mcp-name',
        'last-event-id',
      ],
      exposedHeaders: [
        'x-request-id',
        'retry-after',
        'mcp-session-id',
        'www-authenticate',
        // The deprecated MCP gateway's pointers to /api/mcp.
        'deprecation',
        'link',
      ],
    };
    const allowing =
      (allowed: ReadonlySet<string>): OriginFunction =>
      (origin, callback) =>
        callback(null, origin !== undefined && allowed.has(origin));
    // Options normalised once: a per-request delegator rebuilt them on every request.
    // MCP routes carry their wider rule in their route config, which the plugin merges.
    const mcpCors = { origin: allowing(mcp) };
    app.addHook('onRoute', (route) => {
      if (MCP_PATH.test(route.url)) route.config = { ...route.config, cors: mcpCors };
    });
    await app.register(cors, { ...common, origin: allowing(general) });
    // Preflights otherwise land on the plugin's catch-all OPTIONS route, which knows
    // only the general rule; these carry the MCP rule (the plugin answers in its hook).
    for (const url of ['/api/mcp', '/api/mcp/*']) {
      app.options(url, { schema: { hide: true } }, (request, reply) => {
        if (!request.corsPreflightEnabled) return reply.callNotFound();
        return reply.send();
      });
    }
  },
  { name: 'cors' },
);
