import type { FastifyInstance } from 'fastify';

/**
 * `Content-Type: application/json` with an empty body (many HTTP clients send it on
 * bodiless POSTs such as /cancel) means "no body", not malformed JSON. A route that
 * needs a body still answers 400 from its schema.
 */
export function acceptEmptyJsonBodies(app: FastifyInstance) {
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    if (body === '') done(null, undefined);
    else parseJson(request, body.toString(), done);
  });
}
