import rateLimit from '@fastify/rate-limit';
import fp from 'fastify-plugin';
import { DomainError } from '../lib/errors.js';

export default fp(
  async (app) => {
    await app.register(rateLimit, {
      global: true,
      max: app.config.rateLimitMax,
      timeWindow: '1 minute',
      // Shared across instances when Redis is configured; in memory otherwise.
      ...(app.store.redis ? { redis: app.store.redis, nameSpace: 'rate-limit:' } : {}),
      // Routes with `config: {rateLimit: false}` (the orchestrator probes) get no hook.
      errorResponseBuilder: (_request, context) =>
        new DomainError('RATE_LIMITED', `Too many requests; retry after ${context.after}`),
    });
  },
  { name: 'rate-limit', dependencies: [] },
);
