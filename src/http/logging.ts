import type { FastifyServerOptions } from 'fastify';
import type { Config } from '../config.js';

/** Header and body paths that carry credentials; pino replaces them with [Redacted]. */
export const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-api-key"]',
  'req.headers["x-agent-key"]',
  'req.headers["x-agent-token"]',
  'req.headers["x-csrf-token"]',
  'res.headers["set-cookie"]',
  // The same headers wherever else a header object is logged.
  '*.authorization',
  '*.cookie',
  '*["set-cookie"]',
  '*["x-api-key"]',
  '*["x-agent-key"]',
  '*["x-agent-token"]',
  '*.password',
  '*.passwordHash',
  '*.token',
  '*.accessToken',
  '*.refreshToken',
  '*.access_token',
  '*.refresh_token',
  '*.key',
  '*.secret',
  '*.clientSecret',
  '*.client_secret',
  '*.code',
  '*.code_verifier',
];

export function loggerOptions(config: Config): Exclude<FastifyServerOptions['logger'], boolean | undefined> {
  return {
    level: config.logLevel,
    redact: { paths: REDACTED_PATHS, censor: '[Redacted]' },
    serializers: {
      // The path only: query strings can carry codes and tokens (OAuth callbacks).
      req: (request) => ({
        method: request.method,
        url: request.url?.split('?')[0],
        remoteAddress: request.ip,
        requestId: request.id,
      }),
    },
  };
}
