import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import fp from 'fastify-plugin';
import { jsonSchemaTransform } from 'fastify-type-provider-zod';

export default fp(
  async (app) => {
    await app.register(swagger, {
      openapi: {
        openapi: '3.1.0',
        info: {
          title: 'Reservation Service API',
          description:
            'Multi-tenant calendar and reservation service. Errors use the envelope ' +
            '`{success: false, error: {code, message, details?, requestId}}`.',
          version: '0.1.0',
        },
        servers: [{ url: app.config.publicUrl }],
        components: {
          securitySchemes: {
            bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'Login JWT' },
            apiKeyHeader: { type: 'apiKey', in: 'header', name: 'x-api-key', description: 'User API key' },
            apiKeyAuthorization: {
              type: 'apiKey',
              in: 'header',
              name: 'Authorization',
              description: 'User API key as `Authorization: ApiKey <key>`',
            },
            agentKey: {
              type: 'apiKey',
              in: 'header',
              name: 'x-agent-key',
              description: 'Agent key (ag_sk_...)',
            },
            oauthBearer: {
              type: 'http',
              scheme: 'bearer',
              description: 'OAuth 2.1 access token for /api/mcp',
            },
          },
        },
      },
      transform: jsonSchemaTransform,
    });
    await app.register(swaggerUi, { routePrefix: '/api/docs', staticCSP: true });
    app.get('/api/openapi.json', { schema: { hide: true } }, async () => app.swagger());
  },
  { name: 'swagger' },
);
