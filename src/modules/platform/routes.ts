import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { errorEnvelope, sendError } from '../../http/errors.js';
import { jsonBodyParser } from '../../http/json-body.js';
import { security } from '../../http/schemas.js';
import { DomainError } from '../../lib/errors.js';
import { PROJECT_ROOT } from '../../lib/project-root.js';
import { featureFlags, frontendErrorReport, health, readiness, root, securityReport } from './schemas.js';
import type { ClientInfo } from './service.js';

const tags = ['platform'];
const clientOf = (request: FastifyRequest): ClientInfo => ({
  ip: request.ip,
  userAgent: request.headers['user-agent']?.slice(0, 512) ?? null,
});
const startedAt = Date.now();
/** The service's own version (package.json), never the framework's. */
const SERVICE_VERSION: string = JSON.parse(readFileSync(join(PROJECT_ROOT, 'package.json'), 'utf8')).version;

const HONEYPOT_LOGIN_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Administrator sign in</title></head>
<body><main><h1>Administrator sign in</h1>
<form method="post" action="/api/security/honeypot/submit">
<label>Username <input name="username" autocomplete="username"></label>
<label>Password <input name="password" type="password" autocomplete="current-password"></label>
<button type="submit">Sign in</button></form></main></body></html>`;

/**
 * True when the browser says another site's page sent this request (a hidden auto-submitting
 * form): Sec-Fetch-Site where the browser sends it, else an Origin other than the service's.
 */
function sentByAnotherSite(request: FastifyRequest, ownOrigin: string): boolean {
  const site = request.headers['sec-fetch-site'];
  if (site !== undefined) return site === 'cross-site' || site === 'same-site';
  const origin = request.headers.origin;
  return origin !== undefined && origin !== ownOrigin;
}

// Orchestrator probes are never throttled into a restart: no rate-limit hook at all.
const probe = { rateLimit: false } as const;
const liveness = async () => ({
  status: 'ok' as const,
  uptimeSeconds: Math.round((Date.now() - startedAt) / 1000),
});

/** The service's root, and the probes an orchestrator polls. */
const serviceRoutes: FastifyPluginAsyncZod = async (app) => {
  const { platform } = app.services;
  app.get(
    '/',
    { schema: { tags, summary: 'Service root', security: security.public, response: { 200: root } } },
    async () => ({
      name: 'reservation-service',
      version: SERVICE_VERSION,
      docs: '/api/docs',
      openapi: '/api/openapi.json',
      health: '/api/health',
    }),
  );
  app.get(
    '/health',
    {
      config: probe,
      schema: { tags, summary: 'Liveness probe', security: security.public, response: { 200: health } },
    },
    liveness,
  );
  app.get(
    '/healthz',
    {
      config: probe,
      schema: {
        tags,
        summary: 'Liveness probe (legacy alias of /api/health)',
        deprecated: true,
        security: security.public,
        response: { 200: health },
      },
    },
    liveness,
  );
  app.get(
    '/ready',
    {
      config: probe,
      schema: {
        tags,
        summary: 'Readiness probe: a database round trip; 503 once the instance drains (SIGTERM)',
        security: security.public,
        response: { 200: readiness, 503: errorEnvelope },
      },
    },
    async (request, reply) => {
      // A draining instance still serves, but a load balancer must stop sending it requests.
      // Answered, not thrown: the expected answer of every check while it drains is no error to log.
      if (app.drain.started)
        return sendError(request, reply, new DomainError('NOT_READY', 'This instance is shutting down'));
      await platform.checkReady();
      return { status: 'ready' as const, database: 'ok' as const };
    },
  );
};

/** The feature flags the pages read, the metrics, and the pages' error reports. */
const monitoringRoutes: FastifyPluginAsyncZod = async (app) => {
  const { platform } = app.services;
  const { metrics } = app;
  app.get(
    '/feature-flags',
    {
      schema: {
        tags,
        summary: 'Feature-flag snapshot',
        security: security.public,
        response: { 200: featureFlags },
      },
    },
    async () => platform.featureFlags(),
  );
  app.get(
    '/monitoring/metrics',
    {
      schema: {
        tags,
        summary: 'Prometheus text metrics',
        security: security.public,
        produces: ['text/plain'],
      },
    },
    async (_request, reply) => {
      reply.type(metrics.registry.contentType);
      return metrics.registry.metrics();
    },
  );
  app.get(
    '/monitoring/metrics/json',
    { schema: { tags, summary: 'Metrics as JSON (prom-client form)', security: security.public } },
    async () => metrics.registry.getMetricsAsJSON(),
  );
  app.post(
    '/monitoring/frontend-errors',
    {
      schema: {
        tags,
        summary: 'Report a frontend error',
        security: security.public,
        body: frontendErrorReport,
        response: { 202: z.object({ status: z.literal('accepted') }), 400: errorEnvelope },
      },
    },
    async (request, reply) => {
      await platform.recordFrontendError(request.body, clientOf(request));
      return reply.code(202).send({ status: 'accepted' as const });
    },
  );
};

/** Browsers send CSP and Reporting API bodies with their own media types: read as JSON. */
function acceptReportMediaTypes(app: FastifyInstance): void {
  for (const type of [
    'application/csp-report',
    'application/reports+json',
    'application/expect-ct-report+json',
  ])
    app.addContentTypeParser(type, { parseAs: 'string' }, jsonBodyParser(app));
}

/** Where browsers send Certificate Transparency and Content Security Policy reports. */
const securityReportRoutes: FastifyPluginAsyncZod = async (app) => {
  const { platform } = app.services;
  for (const kind of ['ct', 'csp'] as const) {
    app.post(
      `/security/reports/${kind}`,
      {
        schema: {
          tags,
          summary: `Ingest ${kind === 'ct' ? 'Certificate Transparency' : 'Content Security Policy'} reports`,
          description:
            'Accepts application/json, application/csp-report and application/reports+json; a report object, ' +
            'a {"csp-report": ...} / {"report": ...} wrapper, or a Reporting API array.',
          security: security.public,
          body: securityReport,
          response: { 204: z.null(), 400: errorEnvelope },
        },
      },
      async (request, reply) => {
        await platform.recordSecurityReports(kind, request.body, clientOf(request));
        return reply.code(204).send(null);
      },
    );
  }
};

/** The abuse-detection trap: a sign-in page no person is sent to, and its form's target. */
const honeypotRoutes: FastifyPluginAsyncZod = async (trap) => {
  const { platform } = trap.services;
  const ownOrigin = new URL(trap.config.publicUrl).origin;
  // The trap accepts whatever a bot posts (forms included) and never parses it.
  trap.removeAllContentTypeParsers();
  trap.addContentTypeParser('*', (_request, payload, done) => {
    payload.resume();
    payload.on('end', () => done(null, undefined));
    payload.on('error', done);
  });

  trap.get(
    '/security/honeypot/admin-login',
    {
      schema: { tags, summary: 'Abuse-detection trap', security: security.public, produces: ['text/html'] },
    },
    async (request, reply) => {
      // A visit never blocks: an <img> on any site makes its visitors' browsers fetch this.
      await platform.recordHoneypotHit('/api/security/honeypot/admin-login', clientOf(request), {
        block: false,
      });
      return reply.type('text/html; charset=utf-8').send(HONEYPOT_LOGIN_PAGE);
    },
  );

  trap.post(
    '/security/honeypot/submit',
    {
      schema: {
        tags,
        summary: 'Abuse-detection trap',
        security: security.public,
        response: { 401: errorEnvelope },
      },
    },
    async (request, reply) => {
      // A credential typed into the trap blocks; a form another site's page posts does not.
      await platform.recordHoneypotHit('/api/security/honeypot/submit', clientOf(request), {
        block: !sentByAnotherSite(request, ownOrigin),
      });
      return sendError(request, reply, new DomainError('UNAUTHENTICATED', 'Invalid username or password'));
    },
  );
};

export const platformRoutes: FastifyPluginAsyncZod = async (app) => {
  // Here, not with the report routes: the routes registered below (but the trap, which
  // removes every parser) take these types as they always have.
  acceptReportMediaTypes(app);
  await app.register(serviceRoutes);
  await app.register(monitoringRoutes);
  await app.register(securityReportRoutes);
  await app.register(honeypotRoutes);
};
