import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { actorOf } from '../../http/auth.js';
import { errorEnvelope, errorResponses } from '../../http/errors.js';
import { idParam, security } from '../../http/schemas.js';
import {
  acceptInviteBody,
  calendarIdsBody,
  createGroupBody,
  createInviteBody,
  groupDetails,
  groupSummary,
  invite,
  memberParams,
  updateGroupBody,
} from './schemas.js';

const tags = ['people groups'];
const noContent = z.null().describe('Done');

export const userGroupRoutes: FastifyPluginAsyncZod = async (app) => {
  const { userGroups } = app.services;
  const errors = errorResponses(400, 401, 404);
  const ownerErrors = { 403: errorEnvelope, ...errors };

  app.get(
    '/',
    {
      onRequest: app.requireUser,
      schema: {
        tags,
        summary: 'Groups you belong to',
        security: security.user,
        response: { 200: z.array(groupSummary), ...errors },
      },
    },
    async (request) => userGroups.list(actorOf(request)),
  );

  app.post(
    '/',
    {
      onRequest: app.requireUser,
      schema: {
        tags,
        summary: 'Create a group; you are its owner',
        security: security.user,
        body: createGroupBody,
        response: { 201: groupDetails, ...ownerErrors },
      },
    },
    async (request, reply) => reply.code(201).send(await userGroups.create(actorOf(request), request.body)),
  );

  app.post(
    '/invites/accept',
    {
      onRequest: app.requireUser,
      schema: {
        tags,
        summary: 'Join a group with an invite token (409 INVITE_ALREADY_USED, 410 INVITE_EXPIRED)',
        security: security.user,
        body: acceptInviteBody,
        response: { 200: groupDetails, 409: errorEnvelope, 410: errorEnvelope, ...errors },
      },
    },
    async (request) => userGroups.acceptInvite(actorOf(request), request.body.token),
  );

  app.get(
    '/:id',
    {
      onRequest: app.requireUser,
      schema: {
        tags,
        summary: 'A group you belong to: members (names and roles) and shared calendars',
        security: security.user,
        params: idParam,
        response: { 200: groupDetails, ...errors },
      },
    },
    async (request) => userGroups.details(actorOf(request), request.params.id),
  );

  app.patch(
    '/:id',
    {
      onRequest: app.requireUser,
      schema: {
        tags,
        summary: 'Rename the group or hand it to another member (owner only)',
        security: security.user,
        params: idParam,
        body: updateGroupBody,
        response: { 200: groupDetails, ...ownerErrors },
      },
    },
    async (request) => userGroups.update(actorOf(request), request.params.id, request.body),
  );

  app.delete(
    '/:id',
    {
      onRequest: app.requireUser,
      schema: {
        tags,
        summary: 'Delete the group (owner only); shared calendars stay with their owners',
        security: security.user,
        params: idParam,
        response: { 204: noContent, ...ownerErrors },
      },
    },
    async (request, reply) => {
      await userGroups.delete(actorOf(request), request.params.id);
      return reply.code(204).send(null);
    },
  );

  app.delete(
    '/:id/members/:userId',
    {
      onRequest: app.requireUser,
      schema: {
        tags,
        summary: "Remove a member (owner only; yourself: leave); the member's calendars leave the group",
        security: security.user,
        params: memberParams,
        response: { 204: noContent, 409: errorEnvelope, ...ownerErrors },
      },
    },
    async (request, reply) => {
      const { id, userId } = request.params;
      await userGroups.removeMember(actorOf(request), id, userId);
      return reply.code(204).send(null);
    },
  );

  app.post(
    '/:id/leave',
    {
      onRequest: app.requireUser,
      schema: {
        tags,
        summary: 'Leave the group; your calendars leave it too (the owner cannot leave: 409)',
        security: security.user,
        params: idParam,
        response: { 204: noContent, 409: errorEnvelope, ...errors },
      },
    },
    async (request, reply) => {
      await userGroups.leave(actorOf(request), request.params.id);
      return reply.code(204).send(null);
    },
  );

  app.post(
    '/:id/invites',
    {
      onRequest: app.requireUser,
      schema: {
        tags,
        summary: 'Create a single-use invite token (owner only); the answer names no member',
        security: security.user,
        params: idParam,
        body: createInviteBody.optional(),
        response: { 201: invite, ...ownerErrors },
      },
    },
    async (request, reply) =>
      reply
        .code(201)
        .send(await userGroups.createInvite(actorOf(request), request.params.id, request.body ?? {})),
  );

  app.post(
    '/:id/calendars/attach',
    {
      onRequest: app.requireUser,
      schema: {
        tags,
        summary: 'Share calendars you own with the group: members may read their events',
        security: security.user,
        params: idParam,
        body: calendarIdsBody,
        response: { 200: groupDetails, ...errors },
      },
    },
    async (request) =>
      userGroups.attachCalendars(actorOf(request), request.params.id, request.body.calendarIds),
  );

  app.post(
    '/:id/calendars/detach',
    {
      onRequest: app.requireUser,
      schema: {
        tags,
        summary: 'Stop sharing calendars you own with the group',
        security: security.user,
        params: idParam,
        body: calendarIdsBody,
        response: { 200: groupDetails, ...errors },
      },
    },
    async (request) =>
      userGroups.detachCalendars(actorOf(request), request.params.id, request.body.calendarIds),
  );
};
