import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { actorOf } from '../../http/auth.js';
import { errorResponses } from '../../http/errors.js';
import { idParam, security } from '../../http/schemas.js';
import {
  createOrganisationBody,
  deletionPreview,
  memberOrganisation,
  setActiveOrganisationBody,
  updateBillingBody,
  updateColourBody,
  updateOrganisationBody,
} from './schemas.js';

const tags = ['organisations'];

/** The organisations themselves: created, listed, made active, changed, archived. */
export const organisationResourceRoutes: FastifyPluginAsyncZod = async (app) => {
  const { organisations } = app.services;
  const errors = errorResponses(400, 401, 403, 404, 409);

  app.post(
    '/',
    {
      onRequest: app.requireUser,
      schema: {
        tags,
        summary: 'Create an organisation owned by the caller (active when the caller has none)',
        security: security.user,
        body: createOrganisationBody,
        response: { 201: memberOrganisation, ...errors },
      },
    },
    async (request, reply) =>
      reply.code(201).send(await organisations.create(actorOf(request), request.body)),
  );

  app.get(
    '/',
    {
      onRequest: app.requireUser,
      schema: {
        tags,
        summary: 'Active organisations the caller belongs to, with role, owner and active state',
        security: security.user,
        response: { 200: z.array(memberOrganisation), ...errors },
      },
    },
    async (request) => organisations.list(actorOf(request)),
  );

  app.patch(
    '/active',
    {
      onRequest: app.requireUser,
      schema: {
        tags,
        summary: 'Make an organisation the caller belongs to their active one',
        security: security.user,
        body: setActiveOrganisationBody,
        response: { 200: memberOrganisation, ...errors },
      },
    },
    async (request) => organisations.setActive(actorOf(request), request.body.organisationId),
  );

  app.get(
    '/:id',
    {
      onRequest: app.requireUser,
      schema: {
        tags,
        summary: 'One organisation of the caller (an OWNER also sees it archived)',
        security: security.user,
        params: idParam,
        response: { 200: memberOrganisation, ...errors },
      },
    },
    async (request) => organisations.get(actorOf(request), request.params.id),
  );

  app.patch(
    '/:id',
    {
      onRequest: app.requireUser,
      schema: {
        tags,
        summary:
          'Update profile, timezone and scheduling defaults (OWNER, ADMIN); isActive archives or restores (OWNER)',
        security: security.user,
        params: idParam,
        body: updateOrganisationBody,
        response: { 200: memberOrganisation, ...errors },
      },
    },
    async (request) => organisations.update(actorOf(request), request.params.id, request.body),
  );

  app.delete(
    '/:id',
    {
      onRequest: app.requireUser,
      schema: {
        tags,
        summary: 'Archive the organisation (OWNER); never hard-deletes',
        security: security.user,
        params: idParam,
        response: { 200: memberOrganisation, ...errors },
      },
    },
    async (request) => organisations.archive(actorOf(request), request.params.id),
  );

  app.get(
    '/:id/deletion-preview',
    {
      onRequest: app.requireUser,
      schema: {
        tags,
        summary: 'What archiving the organisation would take out of service (OWNER, ADMIN)',
        security: security.user,
        params: idParam,
        response: { 200: deletionPreview, ...errors },
      },
    },
    async (request) => organisations.deletionPreview(actorOf(request), request.params.id),
  );

  app.patch(
    '/:id/billing',
    {
      onRequest: app.requireUser,
      schema: {
        tags,
        summary: 'Set the default currency (OWNER, ADMIN); stored lowercase',
        security: security.user,
        params: idParam,
        body: updateBillingBody,
        response: { 200: memberOrganisation, ...errors },
      },
    },
    async (request) => organisations.updateBilling(actorOf(request), request.params.id, request.body),
  );

  app.patch(
    '/:id/color',
    {
      onRequest: app.requireUser,
      schema: {
        tags,
        summary: 'Set the organisation colour, optionally for every resource type too (OWNER, ADMIN)',
        security: security.user,
        params: idParam,
        body: updateColourBody,
        response: { 200: memberOrganisation, ...errors },
      },
    },
    async (request) => organisations.updateColour(actorOf(request), request.params.id, request.body),
  );
};
