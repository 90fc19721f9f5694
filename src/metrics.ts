import type { FastifyReply, FastifyRequest } from 'fastify';
import { Counter, collectDefaultMetrics, Histogram, Registry } from 'prom-client';

/** One registry per app instance, so tests and several apps in one process never share counts. */
export function createMetrics() {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const httpRequests = new Counter({
    name: 'http_requests_total',
    help: 'HTTP requests by route template, method and status',
    labelNames: ['route', 'method', 'status_code'] as const,
    registers: [registry],
  });
  const httpDuration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP request duration by route template, method and status',
    labelNames: ['route', 'method', 'status_code'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [registry],
  });
  // One label object per route, method and status, built on its first request.
  const children = new Map<string, { count: { inc(): void }; duration: { observe(value: number): void } }>();
  return {
    registry,
    /** Counts a completed request and its duration by route template (never the raw URL: ids would explode the label set). */
    observeRequest(request: FastifyRequest, reply: FastifyReply): void {
      const route = request.routeOptions.url ?? 'unmatched';
      const key = `${route}\u0000${request.method}\u0000${reply.statusCode}`;
      let child = children.get(key);
      if (!child) {
        const labels = { route, method: request.method, status_code: String(reply.statusCode) };
        child = { count: httpRequests.labels(labels), duration: httpDuration.labels(labels) };
        children.set(key, child);
      }
      child.count.inc();
      child.duration.observe(reply.elapsedTime / 1000);
    },
    frontendErrors: new Counter({
      name: 'frontend_errors_total',
      help: 'Frontend error reports received, by severity',
      labelNames: ['severity'] as const,
      registers: [registry],
    }),
    securityReports: new Counter({
      name: 'security_reports_total',
      help: 'Security reports received, by kind (ct, csp)',
      labelNames: ['kind'] as const,
      registers: [registry],
    }),
    honeypotHits: new Counter({
      name: 'honeypot_hits_total',
      help: 'Requests to honeypot trap routes',
      labelNames: ['path'] as const,
      registers: [registry],
    }),
  };
}

export type Metrics = ReturnType<typeof createMetrics>;
