import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { actorOf } from '../../http/auth.js';
import { errorResponses } from '../../http/errors.js';
import { idParam, security } from '../../http/schemas.js';
import { paymentRoutes } from '../payments/routes.js';
import {
  addMemberBody,
  assignMemberBody,
  createOrganisationBody,
  deletionPreview,
  invitation,
  invitationParams,
  member,
  memberListEntry,
  memberOrganisation,
  memberParams,
  receivedInvitation,
  setActiveOrganisationBody,
  updateBillingBody,
  updateColourBody,
  updateMemberRoleBody,
  updateOrganisationBody,
} from './schemas.js';

const tags = ['organisations'];
const memberTags = ['organisation members'];

/** Organisation and membership routes, under /api/organisations. */
export const organisationRoutes: FastifyPluginAsyncZod = async (app) => {
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
    '/invitations',
    {
      onRequest: app.requireUser,
      schema: {
        tags: memberTags,
        summary: 'Open invitations to the caller (by account or by their email), newest first',
        security: security.user,
        response: { 200: z.array(receivedInvitation), ...errors },
      },
    },
    async (request) => organisations.listInvitations(actorOf(request)),
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

  app.get(
    '/:id/users/list',
    {
      onRequest: app.requireUser,
      schema: {
        tags: memberTags,
        summary: 'Active members, then invitations, which show nothing about the invited person (any member)',
        security: security.user,
        params: idParam,
        response: { 200: z.array(memberListEntry), ...errors },
      },
    },
    async (request) => organisations.listMembers(actorOf(request), request.params.id),
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
        tags: memberTags,
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
        tags: memberTags,
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
        tags: memberTags,
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
        tags: memberTags,
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
        tags: memberTags,
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

  app.patch(
    '/:id/users/:userId/role',
    {
      onRequest: app.requireUser,
      schema: {
        tags: memberTags,
        summary: "Change a member's role (OWNER; ADMIN for MANAGER and MEMBER); never the last OWNER",
        security: security.user,
        params: memberParams,
        body: updateMemberRoleBody,
        response: { 200: member, ...errors },
      },
    },
    async (request) =>
      organisations.changeMemberRole(
        actorOf(request),
        request.params.id,
        request.params.userId,
        request.body.role,
      ),
  );

  const removals = [
    [
      '/:id/users/:userId',
      'Remove a member or withdraw the invitation of that userId (OWNER; ADMIN for MANAGER and MEMBER; anyone may remove themselves); never the last OWNER',
    ],
    ['/:id/users/:userId/remove', 'Remove a member (alternate path of DELETE /:id/users/:userId)'],
  ] as const;
  for (const [path, summary] of removals) {
    app.delete(
      path,
      {
        onRequest: app.requireUser,
        schema: {
          tags: memberTags,
          summary,
          security: security.user,
          params: memberParams,
          response: { 204: z.null().describe('Removed'), ...errors },
        },
      },
      async (request, reply) => {
        await organisations.removeMember(actorOf(request), request.params.id, request.params.userId);
        return reply.code(204).send(null);
      },
    );
  }

  await app.register(paymentRoutes);
};
