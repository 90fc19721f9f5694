import fp from 'fastify-plugin';
import helmet from 'helmet';

/**
 * Security headers from helmet, applied to every reply. The middleware is built
 * once here; @fastify/helmet rebuilds it (and re-parses the policy) on every
 * request, which cost more than the rest of a simple route.
 */
export default fp(
  async (app) => {
    const applyHeaders = helmet({
      crossOriginResourcePolicy: { policy: 'same-site' },
      // An API answers JSON: the strict policy OWASP recommends for APIs. The only
      // pages are the API docs (swagger-ui sets its own policy) and the honeypot form.
      contentSecurityPolicy: {
        useDefaults: false,
        directives: {
          defaultSrc: ["'none'"],
          frameAncestors: ["'none'"],
          baseUri: ["'none'"],
          formAction: ["'self'"],
        },
      },
    });
    app.addHook('onRequest', (request, reply, done) => {
      applyHeaders(request.raw, reply.raw, (error?: unknown) => done(error as Error | undefined));
    });
  },
  { name: 'helmet' },
);
