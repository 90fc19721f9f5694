import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { actorOf } from '../../http/auth.js';
import { errorEnvelope, errorResponses } from '../../http/errors.js';
import { idParam, security } from '../../http/schemas.js';
import { dashboardLink, onboardingLink, paymentStatus, webhookReceipt } from './schemas.js';
import { PAYMENT_SIGNATURE_HEADER } from './webhook-signature.js';

const tags = ['organisation payments'];

/** Payment-provider connection of an organisation, under /api/organisations (OWNER and ADMIN only). */
export const paymentRoutes: FastifyPluginAsyncZod = async (app) => {
  const { payments } = app.services;
  const errors = {
    ...errorResponses(400, 401, 403, 404, 409),
    502: errorEnvelope.describe('PROVIDER_ERROR: the payment provider failed'),
    504: errorEnvelope.describe('PROVIDER_TIMEOUT: the payment provider did not answer in time'),
  };

  app.get(
    '/:id/payment/status',
    {
      onRequest: app.requireUser,
      schema: {
        tags,
        summary: 'Payment connection status; synced from the provider first when an account is connected',
        security: security.user,
        params: idParam,
        response: { 200: paymentStatus, ...errors },
      },
    },
    async (request) => payments.status(actorOf(request), request.params.id),
  );

  app.post(
    '/:id/payment/onboarding-link',
    {
      onRequest: app.requireUser,
      schema: {
        tags,
        summary: 'Create the connected account when absent and answer a fresh onboarding link',
        security: security.user,
        params: idParam,
        response: { 200: onboardingLink, ...errors },
      },
    },
    async (request) => payments.onboardingLink(actorOf(request), request.params.id),
  );

  app.post(
    '/:id/payment/dashboard-link',
    {
      onRequest: app.requireUser,
      schema: {
        tags,
        summary: "A login link to the provider's dashboard (needs a fully onboarded account)",
        security: security.user,
        params: idParam,
        response: { 200: dashboardLink, ...errors },
      },
    },
    async (request) => payments.dashboardLink(actorOf(request), request.params.id),
  );

  app.post(
    '/:id/payment/disconnect',
    {
      onRequest: app.requireUser,
      schema: {
        tags,
        summary: 'Remove the stored provider account from the organisation',
        security: security.user,
        params: idParam,
        response: { 200: paymentStatus, ...errors },
      },
    },
    async (request) => payments.disconnect(actorOf(request), request.params.id),
  );
};

/** Largest webhook body taken: one event with its object is a few kilobytes. */
const WEBHOOK_BODY_LIMIT = 256 * 1024;
/** What the payment webhook takes from one IP a minute (DECISIONS.md "Accounts"). */
const WEBHOOK_REQUESTS_PER_MINUTE = 600;

/**
 * The payment provider's webhook deliveries, under /api/payments: public, authenticated by
 * the `Payment-Signature` over the raw body, so this scope keeps JSON bodies as received.
 */
export const paymentWebhookRoutes: FastifyPluginAsyncZod = async (app) => {
  const { payments } = app.services;
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) =>
    done(null, body),
  );

  app.post(
    '/webhooks',
    {
      bodyLimit: WEBHOOK_BODY_LIMIT,
      // Per IP, of its own: a provider's bursts pass, a flood of forged deliveries does not.
      config: { rateLimit: { max: WEBHOOK_REQUESTS_PER_MINUTE, timeWindow: '1 minute' } },
      schema: {
        tags: ['payments'],
        summary: 'Receive a signed payment-provider event (checkout completed, failed or expired; refund)',
        description:
          'Signed in `Payment-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>" with PAYMENT_WEBHOOK_SECRET>`, ' +
          'at most 5 minutes away from now. A bad, missing or stale signature, a body that is no provider event, or a ' +
          'checkout no reservation waits for: 400, nothing changed. A repeated delivery: 200 with duplicate true, nothing changed.',
        security: security.public,
        response: {
          200: webhookReceipt,
          ...errorResponses(400, 415),
          502: errorEnvelope,
          504: errorEnvelope,
        },
      },
    },
    async (request) => {
      const signature = request.headers[PAYMENT_SIGNATURE_HEADER];
      return payments.receiveWebhook(
        typeof request.body === 'string' ? request.body : '',
        typeof signature === 'string' ? signature : undefined,
      );
    },
  );
};
