import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { actorOf } from '../../http/auth.js';
import { errorEnvelope, errorResponses } from '../../http/errors.js';
import { idParam, page, security } from '../../http/schemas.js';
import { MCP_PATH } from '../../mcp/types.js';
import {
  activityItem,
  activityQuery,
  agent,
  agentKey,
  agentKeyParams,
  agentPolicy,
  agentPolicyBody,
  catalogueResponse,
  createAgentBody,
  createAgentKeyBody,
  createdAgentKey,
  permissionGroupEntry,
  updateAgentBody,
  updatePermissionsBody,
} from './schemas.js';

const tags = ['agents'];
const errors = errorResponses(400, 401, 403, 404);

/** `/api/agents`: the caller's AI agents, their permissions, keys and activity. */
export const agentRoutes: FastifyPluginAsyncZod = async (app) => {
  const { agents } = app.services;
  app.addHook('onRequest', app.requireUser);

  app.get(
    '/',
    {
      schema: {
        tags,
        summary: 'Your agents, disabled ones included',
        security: security.user,
        response: { 200: z.array(agent), ...errors },
      },
    },
    async (request) => agents.list(actorOf(request)),
  );

  app.post(
    '/',
    {
      schema: {
        tags,
        summary: 'Create an agent, optionally with a permission group (full_mcp_admin: global admins only)',
        security: security.user,
        body: createAgentBody,
        response: { 201: agent, ...errors },
      },
    },
    async (request, reply) => reply.code(201).send(await agents.create(actorOf(request), request.body)),
  );

  app.get(
    '/catalog',
    {
      schema: {
        tags,
        summary: 'Every action an agent can be allowed, and what a permission scope may name',
        security: security.user,
        response: { 200: catalogueResponse, ...errors },
      },
    },
    async (request) => agents.catalog(actorOf(request)),
  );

  app.get(
    '/permission-groups',
    {
      schema: {
        tags,
        summary: 'The built-in permission groups, each with whether you may assign it',
        security: security.user,
        response: { 200: z.array(permissionGroupEntry), ...errors },
      },
    },
    async (request) => agents.permissionGroups(actorOf(request)),
  );

  app.get(
    '/:id',
    {
      schema: {
        tags,
        summary: 'One of your agents',
        security: security.user,
        params: idParam,
        response: { 200: agent, ...errors },
      },
    },
    async (request) => agents.get(actorOf(request), request.params.id),
  );

  app.put(
    '/:id',
    {
      schema: {
        tags,
        summary: 'Rename, describe, pause or resume an agent (a disabled agent: 409 CONFLICT)',
        security: security.user,
        params: idParam,
        body: updateAgentBody,
        response: { 200: agent, 409: errorEnvelope, ...errors },
      },
    },
    async (request) => agents.update(actorOf(request), request.params.id, request.body),
  );

  app.delete(
    '/:id',
    {
      schema: {
        tags,
        summary: 'Disable an agent: revokes its keys and OAuth refresh tokens; it stays listed',
        security: security.user,
        params: idParam,
        response: { 200: agent, ...errors },
      },
    },
    async (request) => agents.disable(actorOf(request), request.params.id),
  );

  app.put(
    '/:id/permissions',
    {
      schema: {
        tags,
        summary: 'Replace the permissions: a permission group, or explicit scoped actions',
        description:
          'Explicit actions are bounded by the permission groups you may assign: only a global admin ' +
          'grants actions outside them (otherwise 403 `FORBIDDEN`, nothing changes).',
        security: security.user,
        params: idParam,
        body: updatePermissionsBody,
        response: { 200: agent, 409: errorEnvelope, ...errors },
      },
    },
    async (request) => agents.setPermissions(actorOf(request), request.params.id, request.body),
  );

  app.get(
    '/:id/keys',
    {
      schema: {
        tags,
        summary: "An agent's keys (never the keys themselves)",
        security: security.user,
        params: idParam,
        response: { 200: z.array(agentKey), ...errors },
      },
    },
    async (request) => agents.listKeys(actorOf(request), request.params.id),
  );

  app.post(
    '/:id/keys',
    {
      schema: {
        tags,
        summary: 'Create an agent key (ag_sk_...; shown only in this response)',
        security: security.user,
        params: idParam,
        body: createAgentKeyBody,
        response: { 201: createdAgentKey, 409: errorEnvelope, ...errors },
      },
    },
    async (request, reply) =>
      reply.code(201).send({
        ...(await agents.createKey(actorOf(request), request.params.id, request.body.label)),
        mcpUrl: `${app.config.publicUrl}${MCP_PATH}`,
      }),
  );

  app.delete(
    '/:id/keys/:keyId',
    {
      schema: {
        tags,
        summary: 'Revoke an agent key',
        security: security.user,
        params: agentKeyParams,
        response: { 200: agentKey, ...errors },
      },
    },
    async (request) => agents.revokeKey(actorOf(request), request.params.id, request.params.keyId),
  );

  app.get(
    '/:id/policy',
    {
      schema: {
        tags,
        summary: "An agent's policy: when its calls wait for your approval, and its daily limits",
        security: security.user,
        params: idParam,
        response: { 200: agentPolicy, ...errors },
      },
    },
    async (request) => agents.getPolicy(actorOf(request), request.params.id),
  );

  app.put(
    '/:id/policy',
    {
      schema: {
        tags,
        summary:
          "Replace an agent's policy (absent fields take their defaults: never, no threshold, no limits)",
        description:
          'requireApproval: never, writes (every call that changes something) or destructive (deletes and ' +
          'cancellations). approvalOverAmount: calls that would charge more (minor units) wait for approval ' +
          'whatever the mode. limits: per rolling 24 hours; a call past one fails with AGENT_LIMIT_REACHED.',
        security: security.user,
        params: idParam,
        body: agentPolicyBody,
        response: { 200: agentPolicy, 409: errorEnvelope, ...errors },
      },
    },
    async (request) => agents.setPolicy(actorOf(request), request.params.id, request.body),
  );

  app.get(
    '/:id/activity',
    {
      schema: {
        tags,
        summary: "An agent's MCP tool calls, newest first, one page at a time",
        description:
          'Filter by actionKey, outcome and a from/to time range. Arguments are shown with contact details ' +
          `and secrets redacted; calls are kept AGENT_ACTIVITY_RETENTION_DAYS days (default 90).`,
        security: security.user,
        params: idParam,
        querystring: activityQuery,
        response: { 200: page(activityItem), ...errors },
      },
      config: { serviceInput: 'query' },
    },
    async (request) => agents.activity(actorOf(request), request.params.id, request.query),
  );
};
