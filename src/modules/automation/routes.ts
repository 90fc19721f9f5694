import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { actorOf } from '../../http/auth.js';
import { errorEnvelope, errorResponses } from '../../http/errors.js';
import { idParam, page, security } from '../../http/schemas.js';
import {
  auditEntry,
  createRuleBody,
  eventTag,
  listAuditQuery,
  rule,
  triggerRuleBody,
  updateRuleBody,
} from './schemas.js';

const tags = ['automation'];
const errors = errorResponses(400, 401, 404);

/** `/api/automation`: rules, manual runs, the audit log and the tags rules put on events. */
export const automationRoutes: FastifyPluginAsyncZod = async (app) => {
  const { automation } = app.services;
  app.addHook('onRequest', app.requireUser);

  app.get(
    '/rules',
    {
      schema: {
        tags,
        summary: 'Your automation rules, by name',
        security: security.user,
        response: { 200: z.array(rule), ...errors },
      },
    },
    async (request) => automation.listRules(actorOf(request)),
  );

  app.post(
    '/rules',
    {
      schema: {
        tags,
        summary: 'Create a rule: a trigger, optional conditions, and actions',
        security: security.user,
        body: createRuleBody,
        response: { 201: rule, ...errors },
      },
    },
    async (request, reply) =>
      reply.code(201).send(await automation.createRule(actorOf(request), request.body)),
  );

  app.get(
    '/rules/:id',
    {
      schema: {
        tags,
        summary: 'A rule of yours',
        security: security.user,
        params: idParam,
        response: { 200: rule, ...errors },
      },
    },
    async (request) => automation.getRule(actorOf(request), request.params.id),
  );

  app.patch(
    '/rules/:id',
    {
      schema: {
        tags,
        summary: 'Change a rule (conditions and actions are replaced as a whole)',
        security: security.user,
        params: idParam,
        body: updateRuleBody,
        response: { 200: rule, ...errors },
      },
    },
    async (request) => automation.updateRule(actorOf(request), request.params.id, request.body),
  );

  app.delete(
    '/rules/:id',
    {
      schema: {
        tags,
        summary: 'Delete a rule; its audit entries stay',
        security: security.user,
        params: idParam,
        response: { 204: z.null().describe('Deleted'), ...errors },
      },
    },
    async (request, reply) => {
      await automation.deleteRule(actorOf(request), request.params.id);
      return reply.code(204).send(null);
    },
  );

  app.post(
    '/rules/:id/trigger',
    {
      schema: {
        tags,
        summary: 'Run a rule now on an event, a task or nothing; answers its audit entry (disabled: 409)',
        security: security.user,
        params: idParam,
        body: triggerRuleBody.nullish(),
        response: { 200: auditEntry, 409: errorEnvelope, ...errors },
      },
    },
    async (request) => automation.trigger(actorOf(request), request.params.id, request.body ?? {}),
  );

  app.get(
    '/audit',
    {
      schema: {
        tags,
        summary: 'Rule runs, newest first, one page at a time',
        security: security.user,
        querystring: listAuditQuery,
        response: { 200: page(auditEntry), ...errors },
      },
      config: { serviceInput: 'query' },
    },
    async (request) => automation.listAudit(actorOf(request), request.query),
  );

  app.get(
    '/events/:id/tags',
    {
      schema: {
        tags,
        summary: 'Tags rules put on an event you can read (tag_event)',
        security: security.user,
        params: idParam,
        response: { 200: z.array(eventTag), ...errors },
      },
    },
    async (request) => automation.listEventTags(actorOf(request), request.params.id),
  );
};
