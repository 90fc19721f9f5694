import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { paymentRoutes } from '../payments/routes.js';
import { invitationRoutes } from './invitation-routes.js';
import { memberRoutes } from './member-routes.js';
import { organisationResourceRoutes } from './organisation-routes.js';

/** Organisation and membership routes, under /api/organisations, one file per resource. */
export const organisationRoutes: FastifyPluginAsyncZod = async (app) => {
  await app.register(organisationResourceRoutes);
  await app.register(memberRoutes);
  await app.register(invitationRoutes);
  await app.register(paymentRoutes);
};
