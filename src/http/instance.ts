import { randomUUID } from 'node:crypto';
import Fastify from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { Config } from '../config.js';
import { activeTracer } from '../lib/tracing.js';
import type { Metrics } from '../metrics.js';
import { createDrain } from './draining.js';
import { registerErrorHandling } from './errors.js';
import { acceptEmptyJsonBodies } from './json-body.js';
import { lingerBeforeClosing } from './lingering-close.js';
import { AccessLog, loggerOptions } from './logging.js';
import { serializerCompiler } from './serialize.js';
import { traceRequests } from './tracing.js';
import { validatorCompiler } from './validation.js';

const REQUEST_ID = /^[A-Za-z0-9._-]{1,64}$/;

/** How the Fastify instance logs. */
export interface LogOptions {
  /** false: nothing is logged (see BuildOptions.logger). */
  logger?: boolean;
  /** Where log lines go instead of stdout. */
  logStream?: { write(line: string): void };
}

/**
 * The bare Fastify instance: its logging, limits, request ids, traces (while tracing runs),
 * validation and serialization, error answers, empty JSON bodies and lingering close. No database, service or route yet.
 */
export function createFastify(config: Config, metrics: Metrics, options: LogOptions) {
  const app = Fastify({
    logger: options.logger === false ? { level: 'silent' } : loggerOptions(config, options.logStream),
    bodyLimit: config.bodyLimitBytes,
    trustProxy: config.trustProxy,
    // Accept a caller's request id when it is sane, so traces join across services.
    genReqId: (request) => {
      const given = request.headers['x-request-id'];
      return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
    },
    routerOptions: { ignoreTrailingSlash: true },
    logController: new AccessLog(metrics.observeRequest),
    // A request that reaches a closing instance on a connection it already had is served (the
    // database closes only after the last connection); its answer closes the connection.
    return503OnClosing: false,
  }).withTypeProvider<ZodTypeProvider>();

  app.decorate('drain', createDrain());

  const tracer = activeTracer();
  if (tracer) traceRequests(app, tracer);
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  registerErrorHandling(app);
  acceptEmptyJsonBodies(app);
  app.addHook('preClose', lingerBeforeClosing(app.server));
  return app;
}
