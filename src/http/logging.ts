import { type FastifyReply, type FastifyRequest, type FastifyServerOptions, LogController } from 'fastify';
import { destination } from 'pino';
import type { Config } from '../config.js';

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
        url: request.url?.split('?')[0],
        remoteAddress: request.ip,
      }),
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
