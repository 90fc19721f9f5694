import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { actorOf } from '../../http/auth.js';
import { errorEnvelope, errorResponses } from '../../http/errors.js';
import { idParam, page, security } from '../../http/schemas.js';
import { approval, listApprovalsQuery } from './schemas.js';

const tags = ['approvals'];
const errors = errorResponses(400, 401, 403, 404);

/** `/api/approvals`: calls the person's agents asked them to approve; decided with the login session. */
export const approvalRoutes: FastifyPluginAsyncZod = async (app) => {
  const { approvals } = app.services;
  app.addHook('onRequest', app.requireLoginSession);

  app.get(
    '/',
    {
      schema: {
        tags,
        summary: "Your agents' approvals, newest first, optionally by status",
        security: security.loginSession,
        querystring: listApprovalsQuery,
        response: { 200: page(approval), ...errors },
      },
      config: { serviceInput: 'query' },
    },
    async (request) => approvals.list(actorOf(request), request.query),
  );

  app.get(
    '/:id',
    {
      schema: {
        tags,
        summary: 'One approval: the stored call, its summary, status and result',
        security: security.loginSession,
        params: idParam,
        response: { 200: approval, ...errors },
      },
    },
    async (request) => approvals.get(actorOf(request), request.params.id),
  );

  app.post(
    '/:id/approve',
    {
      schema: {
        tags,
        summary: 'Approve: the stored call runs once, as the agent is now; answers the outcome',
        description:
          'Dry-runs the stored call first, as the agent now and in the organisation it was asked in (never ' +
          'your active one): when its organisation, resources, times or price differ from the summary, or ' +
          'the policy’s threshold or daily limits now refuse it, nothing runs, the approval is failed and the ' +
          'answer is 409 APPROVAL_STALE saying why. Otherwise it runs with the agent’s permissions at this ' +
          'moment: executed (result is its answer) or failed (result.error, e.g. the agent was disabled ' +
          'meanwhile). Approving again answers the same approval and runs nothing; a denied or expired ' +
          'approval is 409 CONFLICT.',
        security: security.loginSession,
        params: idParam,
        response: { 200: approval, 409: errorEnvelope, ...errors },
      },
    },
    async (request) => approvals.approve(actorOf(request), request.params.id),
  );

  app.post(
    '/:id/deny',
    {
      schema: {
        tags,
        summary: 'Deny: the call never runs',
        description: 'Denying again answers the same approval; an approved or expired one is 409 CONFLICT.',
        security: security.loginSession,
        params: idParam,
        response: { 200: approval, 409: errorEnvelope, ...errors },
      },
    },
    async (request) => approvals.deny(actorOf(request), request.params.id),
  );
};
