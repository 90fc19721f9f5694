import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { errorResponses } from '../../http/errors.js';
import { idempotencyHeaders } from '../../http/idempotency.js';
import { security } from '../../http/schemas.js';
import { type PublicRouteOptions, tags } from './route-options.js';
import {
  managedReservation,
  managedSeries,
  managedWaitlistEntry,
  manageRescheduleBody,
  manageTokenParam,
} from './schemas.js';

/** A manage link past its life answers 410 LINK_EXPIRED. */
const manageErrors = errorResponses(400, 404, 409, 410, 429);

/** A customer's manage link: their reservation, its series, their waitlist entry, and what they may do with each. */
export const manageLinkRoutes: FastifyPluginAsyncZod<PublicRouteOptions> = async (app, options) => {
  const { publicBooking } = app.services;
  const { config, idempotent } = options;

  // A customer's manage link: the token is the only credential, so an unknown or malformed
  // one is the same 404, and the token never reaches a log line (src/http/logging.ts).
  const manageSchema = { tags, security: security.public, params: manageTokenParam };

  app.get(
    '/reservations/:token',
    {
      config,
      schema: {
        ...manageSchema,
        summary: "A customer's reservation by the manage token its booking answered",
        response: { 200: managedReservation, ...errorResponses(404, 410, 429) },
      },
    },
    async (request) => publicBooking.managedReservation(request.params.token),
  );

  app.post(
    '/reservations/:token/confirm',
    {
      config,
      schema: {
        ...manageSchema,
        summary: 'Confirm the held reservation of a manage token (a paid type goes to payment)',
        response: { 200: managedReservation, ...manageErrors },
      },
    },
    async (request) => publicBooking.confirmManaged(request.params.token),
  );

  app.post(
    '/reservations/:token/cancel',
    {
      config,
      schema: {
        ...manageSchema,
        summary:
          "Cancel the reservation of a manage token within its type's cancel notice (a hold is released)",
        response: { 200: managedReservation, ...manageErrors },
      },
    },
    async (request) => publicBooking.cancelManaged(request.params.token),
  );

  app.post(
    '/reservations/:token/reschedule',
    {
      config,
      ...idempotent,
      schema: {
        ...manageSchema,
        summary:
          "Move the reservation of a manage token to another time within its type's rules (409 SLOT_UNAVAILABLE leaves it as it was)",
        headers: idempotencyHeaders,
        body: manageRescheduleBody,
        response: { 200: managedReservation, ...manageErrors },
      },
    },
    async (request) => publicBooking.rescheduleManaged(request.params.token, request.body),
  );

  app.get(
    '/reservations/:token/series',
    {
      config,
      schema: {
        ...manageSchema,
        summary:
          'The series the reservation of a manage token belongs to: every occurrence (404 for a reservation of no series)',
        response: { 200: managedSeries, ...errorResponses(404, 410, 429) },
      },
    },
    async (request) => publicBooking.managedSeries(request.params.token),
  );

  app.post(
    '/reservations/:token/series/cancel',
    {
      config,
      schema: {
        ...manageSchema,
        summary:
          "Cancel every occurrence not yet started of the manage token's series, each within its type's cancel notice",
        response: { 200: managedSeries, ...manageErrors },
      },
    },
    async (request) => publicBooking.cancelManagedSeries(request.params.token),
  );

  app.get(
    '/waitlist/:token',
    {
      config,
      schema: {
        ...manageSchema,
        summary:
          "A customer's waitlist entry by the manage token its joining answered: its status, position and offer",
        response: { 200: managedWaitlistEntry, ...errorResponses(404, 410, 429) },
      },
    },
    async (request) => publicBooking.managedWaitlistEntry(request.params.token),
  );

  app.delete(
    '/waitlist/:token',
    {
      config,
      schema: {
        ...manageSchema,
        summary:
          'Leave the waitlist by the manage token (an offer not yet confirmed is let go; 409 INVALID_TRANSITION once accepted, expired or left)',
        response: { 200: managedWaitlistEntry, ...manageErrors },
      },
    },
    async (request) => publicBooking.leaveManagedWaitlist(request.params.token),
  );
};
