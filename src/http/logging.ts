import { type FastifyReply, type FastifyRequest, type FastifyServerOptions, LogController } from 'fastify';
import { destination, stdSerializers } from 'pino';
import type { Config } from '../config.js';

/**
 * Paths whose next segment is a bearer secret: a resource's public booking token, a
 * customer's manage token (API and page), a calendar feed token (`<token>.ics`), an
 * account's verification or reset link. The one
 * redaction rule: wherever a log line carries a URL (the access line's path, an error's
 * message or stack, a message Fastify writes with the URL in it), the segment after any of
 * these is written as `[token]`, matched route or not, so a typo after a token leaks nothing
 * either. A new path that carries a token in it is one more line here.
 */
export const TOKEN_PATH_PREFIXES = [
  '/api/public/resources/',
  '/api/public/reservations/',
  '/api/public/waitlist/',
  '/api/feeds/',
  '/manage/',
  // The account links mailed to a person (the web app's pages; DECISIONS.md "Accounts").
  '/verify-email/',
  '/reset-password/',
] as const;

/** Any of the prefixes (in any case, slashes doubled or not), then the segment up to `/`, `?` or the end. */
const TOKEN_SEGMENT = new RegExp(
  `(${TOKEN_PATH_PREFIXES.map((prefix) => prefix.replaceAll('/', '/+')).join('|')})[^/?#\\s"']+`,
  'i',
);
const TOKEN_SEGMENTS = new RegExp(TOKEN_SEGMENT.source, 'gi');

/** `text` with every token path segment replaced by `[token]` (the test first: a replace costs ten times more). */
export function redactTokenPaths(text: string): string {
  return TOKEN_SEGMENT.test(text) ? text.replace(TOKEN_SEGMENTS, '$1[token]') : text;
}

/**
 * Credential headers, wherever the service logs a header object on purpose. Exact
 * paths only: pino compiles them into plain property reads, where wildcard paths
 * cost more than the rest of a health check. Access lines need none of this: the
 * request serializer below logs no header, body or query string.
 */
export const REDACTED_PATHS = [
  'headers.authorization',
  'headers.cookie',
  'headers["set-cookie"]',
  'headers["x-api-key"]',
  'headers["x-agent-key"]',
  'headers["x-agent-token"]',
  'headers["x-csrf-token"]',
];

/** `stream`: where lines go instead of stdout (tests read them). */
export function loggerOptions(
  config: Config,
  stream?: { write(line: string): void },
): Exclude<FastifyServerOptions['logger'], boolean | undefined> {
  return {
    level: config.logLevel,
    // Lines written while a write is in flight go out together in the next one: no
    // system call per line under load. pino flushes what is left when the process exits.
    stream: stream ?? destination({ sync: false }),
    redact: { paths: REDACTED_PATHS, censor: '[Redacted]' },
    serializers: {
      // The path only: query strings can carry codes and tokens (OAuth callbacks).
      req: (request) => ({
        method: request.method,
        url: request.url === undefined ? undefined : redactTokenPaths(request.url.split('?')[0]!),
        remoteAddress: request.ip,
      }),
      // Some of Fastify's errors name the URL (a bad percent-escape, a reply sent twice).
      err: (error: Error) => {
        const serialized = stdSerializers.err(error);
        serialized.message = redactTokenPaths(serialized.message);
        if (serialized.stack) serialized.stack = redactTokenPaths(serialized.stack);
        return serialized;
      },
    },
    hooks: {
      // Messages with the URL inside ("Reply was already sent ... in <url>"), including the
      // one pino would copy unredacted from an error logged without a message of its own.
      logMethod(args, method) {
        const parts = args as unknown[];
        const [only] = parts;
        if (parts.length === 1 && typeof only === 'object' && only !== null) {
          const error = only instanceof Error ? only : (only as { err?: unknown }).err;
          if (error instanceof Error) parts.push(error.message);
        }
        for (let i = 0; i < parts.length; i++) {
          const part = parts[i];
          if (typeof part === 'string') parts[i] = redactTokenPaths(part);
        }
        return method.apply(this, args);
      },
    },
  };
}

/**
 * Every completed request, once, hooks or not: one access line with the request's
 * method and path (Fastify's default writes two lines, the first at arrival; the
 * request id is on every line of a request's logger as `reqId`), and `observe`, which
 * records the request metrics here rather than in an onResponse hook that would cost
 * every request about as much again.
 */
export class AccessLog extends LogController {
  constructor(private readonly observe: (request: FastifyRequest, reply: FastifyReply) => void) {
    super();
  }

  override incomingRequest() {}

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply) {
    this.observe(request, reply);
    if (error) {
      reply.log.error(
        { req: request, res: reply, err: error, responseTime: reply.elapsedTime },
        'request errored',
      );
    } else {
      reply.log.info({ req: request, res: reply, responseTime: reply.elapsedTime }, 'request completed');
    }
  }
}
