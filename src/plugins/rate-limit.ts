import rateLimit from '@fastify/rate-limit';
import fp from 'fastify-plugin';
import { DomainError } from '../lib/errors.js';

const PROBES = new Set(['/api/health', '/api/healthz', '/api/ready']);

export default fp(
  async (app) => {
    await app.register(rateLimit, {
      global: true,
      max: app.config.rateLimitMax,
      timeWindow: '1 minute',
      // Shared across instances when Redis is configured; in memory otherwise.
      ...(app.store.redis ? { redis: app.store.redis, nameSpace: 'rate-limit:' } : {}),
      // Orchestrator probes must never be throttled into a restart.
      allowList: (request) => PROBES.has(request.routeOptions.url ?? ''),
      errorResponseBuilder: (_request, context) =>
        new DomainError('RATE_LIMITED', `Too many requests; retry after ${context.after}`),
    });
  },
  { name: 'rate-limit', dependencies: [] },
);
