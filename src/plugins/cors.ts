import cors from '@fastify/cors';
import fp from 'fastify-plugin';

export default fp(
  async (app) => {
    const allowed = new Set(app.config.corsOrigins);
    await app.register(cors, {
      // Only browsers send Origin; other clients get no CORS headers at all.
      origin: (origin, callback) => callback(null, origin !== undefined && allowed.has(origin)),
      credentials: true,
      methods: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'],
      allowedHeaders: [
        'authorization',
        'content-type',
        'x-api-key',
        'x-csrf-token',
        'x-request-id',
        'x-agent-key',
        'x-agent-token',
        'mcp-session-id',
        'mcp-protocol-version',
        'last-event-id',
      ],
      exposedHeaders: ['x-request-id', 'retry-after', 'mcp-session-id', 'www-authenticate'],
    });
  },
  { name: 'cors' },
);
