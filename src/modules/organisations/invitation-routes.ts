import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { actorOf } from '../../http/auth.js';
import { errorResponses } from '../../http/errors.js';
import { idParam, security } from '../../http/schemas.js';
import {
  addMemberBody,
  assignMemberBody,
  invitation,
  invitationParams,
  memberOrganisation,
  receivedInvitation,
} from './schemas.js';

const tags = ['organisation members'];

/** Invitations to an organisation: sent (or renewed) and withdrawn by its staff, accepted or declined by the invitee. */
export const invitationRoutes: FastifyPluginAsyncZod = async (app) => {
  const { organisations } = app.services;
  const errors = errorResponses(400, 401, 403, 404, 409);

  app.get(
    '/invitations',
    {
      onRequest: app.requireUser,
      schema: {
        tags,
        summary: 'Open invitations to the caller (by account or by their email), newest first',
        security: security.user,
        response: { 200: z.array(receivedInvitation), ...errors },
      },
    },
    async (request) => organisations.listInvitations(actorOf(request)),
  );

  const inviteAnswers = {
    201: invitation.describe('Invited'),
    200: invitation.describe('The open invitation, renewed'),
    ...errors,
    // At most 10 an hour per inviter and 100 a day per organisation.
    ...errorResponses(429),
  };

  app.post(
    '/:id/users',
    {
      onRequest: app.requireUser,
      schema: {
        tags,
        summary:
          'Invite a person by userId or email as MEMBER (OWNER, ADMIN); inviting again renews the invitation',
        security: security.user,
        params: idParam,
        body: addMemberBody,
        response: inviteAnswers,
      },
    },
    async (request, reply) => {
      const result = await organisations.addMember(actorOf(request), request.params.id, request.body);
      return reply.code(result.created ? 201 : 200).send(result.invitation);
    },
  );

  app.post(
    '/:id/users/assign',
    {
      onRequest: app.requireUser,
      schema: {
        tags,
        summary:
          'Invite a person by userId or email with a role (OWNER; ADMIN for MANAGER and MEMBER); inviting again renews the invitation with the new role',
        security: security.user,
        params: idParam,
        body: assignMemberBody,
        response: inviteAnswers,
      },
    },
    async (request, reply) => {
      const result = await organisations.assignMember(actorOf(request), request.params.id, request.body);
      return reply.code(result.created ? 201 : 200).send(result.invitation);
    },
  );

  app.delete(
    '/:id/invitations/:invitationId',
    {
      onRequest: app.requireUser,
      schema: {
        tags,
        summary: 'Withdraw an invitation, by account or by email (OWNER; ADMIN for MANAGER and MEMBER ones)',
        security: security.user,
        params: invitationParams,
        response: { 204: z.null().describe('Withdrawn'), ...errors },
      },
    },
    async (request, reply) => {
      await organisations.withdrawInvitation(
        actorOf(request),
        request.params.id,
        request.params.invitationId,
      );
      return reply.code(204).send(null);
    },
  );

  app.post(
    '/:id/invitation/accept',
    {
      onRequest: app.requireUser,
      schema: {
        tags,
        summary:
          'Accept your invitation: you become a member with its role; active when you have none (410 once expired)',
        description:
          'An invitation sent to an email address can be accepted only once that address is verified ' +
          '(403 EMAIL_NOT_VERIFIED before); until then it is not listed either.',
        security: security.user,
        params: idParam,
        response: { 200: memberOrganisation, ...errors, ...errorResponses(410) },
      },
    },
    async (request) => organisations.acceptInvitation(actorOf(request), request.params.id),
  );

  app.post(
    '/:id/invitation/decline',
    {
      onRequest: app.requireUser,
      schema: {
        tags,
        summary: 'Decline your invitation',
        security: security.user,
        params: idParam,
        response: { 204: z.null().describe('Declined'), ...errors },
      },
    },
    async (request, reply) => {
      await organisations.declineInvitation(actorOf(request), request.params.id);
      return reply.code(204).send(null);
    },
  );
};
