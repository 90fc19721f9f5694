import cors, { type FastifyCorsOptions } from '@fastify/cors';
import fp from 'fastify-plugin';

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
    const allowing = (allowed: ReadonlySet<string>): FastifyCorsOptions => ({
      ...common,
      origin: (origin, callback) => callback(null, origin !== undefined && allowed.has(origin)),
    });
    const generalOptions = allowing(general);
    const mcpOptions = allowing(mcp);
    await app.register(cors, {
      delegator: (request, callback) =>
        callback(null, MCP_PATH.test(request.url) ? mcpOptions : generalOptions),
    });
  },
  { name: 'cors' },
);
