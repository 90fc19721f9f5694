import type { FastifyInstance, FastifyRequest } from 'fastify';
import { validationFailed } from '../lib/errors.js';

/** Deeper JSON than any body of this API needs; deeper input is refused before it is parsed. */
export const MAX_JSON_DEPTH = 64;

/** Depth of arrays and objects in JSON text, counted outside strings; stops early past `limit`. */
function nestingExceeds(text: string, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i += 1) {
    const code = text.charCodeAt(i);
    if (inString) {
      if (code === 92 /* \ */) i += 1;
      else if (code === 34 /* " */) inString = false;
    } else if (code === 34) inString = true;
    else if (code === 123 /* { */ || code === 91 /* [ */) {
      depth += 1;
      if (depth > limit) return true;
    } else if (code === 125 /* } */ || code === 93 /* ] */) depth -= 1;
  }
  return false;
}

type Done = (error: Error | null, body?: unknown) => void;

/**
 * The one JSON body parser: an empty body with `Content-Type: application/json`
 * (many clients send it on bodiless POSTs such as /cancel) means "no body", not
 * malformed JSON (a route that needs a body still answers 400 from its schema);
 * nesting past MAX_JSON_DEPTH is a 400, so no validator or serializer recurses
 * into a hostile depth.
 */
export function jsonBodyParser(app: FastifyInstance) {
  const parseJson = app.getDefaultJsonParser('error', 'error');
  return (request: FastifyRequest, body: string | Buffer, done: Done) => {
    const text = body.toString();
    if (text === '') return done(null, undefined);
    if (nestingExceeds(text, MAX_JSON_DEPTH)) {
      return done(validationFailed(`Request body nests deeper than ${MAX_JSON_DEPTH} levels`));
    }
    parseJson(request, text, done);
  };
}

export function acceptEmptyJsonBodies(app: FastifyInstance) {
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, jsonBodyParser(app));
}
