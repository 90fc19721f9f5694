import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { idempotencyHooks } from '../../http/idempotency.js';
import { notFound } from '../../lib/errors.js';
import { manageLinkRoutes } from './manage-link-routes.js';
import { organisationPageRoutes } from './organisation-page-routes.js';
import type { PublicRouteOptions } from './route-options.js';
import { tokenPageRoutes } from './token-page-routes.js';

/** The public booking routes, one file per resource, behind the publicBooking feature flag. */
export const publicBookingRoutes: FastifyPluginAsyncZod = async (app) => {
  const enabled = app.services.platform.featureFlags().flags.publicBooking !== false;
  // Anyone can reach these; each route has its own, tighter rate limit.
  const config = { rateLimit: { max: app.config.publicRateLimitMax, timeWindow: '1 minute' } };
  app.addHook('onRequest', async () => {
    if (!enabled) throw notFound('Public booking');
  });
  // No account here: a key belongs to the client's IP address (and the fingerprint holds the
  // route, slug or token), so a guessed key from elsewhere never replays someone's booking.
  // A booking's manage token is shown once: a replay answers it null.
  const idempotent = idempotencyHooks(
    app.services.idempotency,
    (request) => ({ scope: `ip:${request.ip}`, userId: null }),
    { secretFields: ['manageToken', 'manageUrl'] },
  );
  const options: PublicRouteOptions = { config, idempotent };
  await app.register(organisationPageRoutes, options);
  await app.register(tokenPageRoutes, options);
  await app.register(manageLinkRoutes, options);
};
