import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { actorOf } from '../../http/auth.js';
import { errorEnvelope, errorResponses } from '../../http/errors.js';
import { idParam, security } from '../../http/schemas.js';
import { dashboardLink, onboardingLink, paymentStatus } from './schemas.js';

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
