import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { actorOf } from '../../http/auth.js';
import { errorResponses } from '../../http/errors.js';
import { idParam, security } from '../../http/schemas.js';
import { member, memberListEntry, memberParams, updateMemberRoleBody } from './schemas.js';

const tags = ['organisation members'];

/** DELETE removes a member at either path. */
const REMOVAL_PATHS = [
  [
    '/:id/users/:userId',
    'Remove a member or withdraw the invitation of that userId (OWNER; ADMIN for MANAGER and MEMBER; anyone may remove themselves); never the last OWNER',
  ],
  ['/:id/users/:userId/remove', 'Remove a member (alternate path of DELETE /:id/users/:userId)'],
] as const;

/** A member removed, or an invitation withdrawn, at each of REMOVAL_PATHS. */
const memberRemovalRoutes: FastifyPluginAsyncZod = async (app) => {
  const { organisations } = app.services;
  const errors = errorResponses(400, 401, 403, 404, 409);
  for (const [path, summary] of REMOVAL_PATHS) {
    app.delete(
      path,
      {
        onRequest: app.requireUser,
        schema: {
          tags,
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
};

/** An organisation's members: listed (with its open invitations), their roles changed, removed. */
export const memberRoutes: FastifyPluginAsyncZod = async (app) => {
  const { organisations } = app.services;
  const errors = errorResponses(400, 401, 403, 404, 409);

  app.get(
    '/:id/users/list',
    {
      onRequest: app.requireUser,
      schema: {
        tags,
        summary: 'Active members, then invitations, which show nothing about the invited person (any member)',
        security: security.user,
        params: idParam,
        response: { 200: z.array(memberListEntry), ...errors },
      },
    },
    async (request) => organisations.listMembers(actorOf(request), request.params.id),
  );

  app.patch(
    '/:id/users/:userId/role',
    {
      onRequest: app.requireUser,
      schema: {
        tags,
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
  await app.register(memberRemovalRoutes);
};
