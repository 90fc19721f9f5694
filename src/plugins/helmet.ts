import type { IncomingMessage, ServerResponse } from 'node:http';
import fp from 'fastify-plugin';
import helmet from 'helmet';

/**
 * helmet's security headers, and the request id, on every reply. They depend on the options alone, so
 * helmet runs once, at start, against a response that only records what it sets;
 * each request then gets the recorded headers in one call. (@fastify/helmet, and
 * helmet as middleware, rebuild them on every request.)
 */
function securityHeaders(): Record<string, string> {
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
  const headers: Record<string, string> = {};
  const recorder = {
    setHeader: (name: string, value: string | number) => {
      headers[name.toLowerCase()] = String(value);
    },
    removeHeader: (name: string) => {
      delete headers[name.toLowerCase()];
    },
  };
  let failure: unknown;
  applyHeaders({} as IncomingMessage, recorder as unknown as ServerResponse, (error?: unknown) => {
    failure = error;
  });
  if (failure) throw failure;
  return headers;
}

export default fp(
  async (app) => {
    const headers = securityHeaders();
    // The request id goes out in the same hook: a hook costs about what its headers do.
    app.addHook('onRequest', (request, reply, done) => {
      reply.headers(headers);
      reply.header('x-request-id', request.id);
      done();
    });
  },
  { name: 'helmet' },
);
