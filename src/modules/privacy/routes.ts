import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { actorOf } from '../../http/auth.js';
import { errorEnvelope, errorResponses } from '../../http/errors.js';
import { page, security } from '../../http/schemas.js';
import {
  acceptPolicyBody,
  accessReport,
  consent,
  consentHistoryQuery,
  consentParams,
  createRequestBody,
  dataSubjectRequest,
  listRequestsQuery,
  policyAcceptance,
  requestList,
  requestParams,
  upsertConsentBody,
} from './schemas.js';
import type { RequestContext } from './service.js';

const tags = ['privacy'];
const errors = errorResponses(400, 401, 403);

const contextOf = (request: FastifyRequest): RequestContext => ({
  ip: request.ip ?? null,
  userAgent: request.headers['user-agent'] ?? null,
});

/** `/api/compliance/me/privacy`: the caller's own data-protection rights; never anyone else's. */
export const privacyRoutes: FastifyPluginAsyncZod = async (app) => {
  const { privacy } = app.services;
  app.addHook('onRequest', app.requireUser);

  app.get(
    '/access',
    {
      schema: {
        tags,
        summary: 'What the service holds about you, by category, with your consents and who can act for you',
        security: security.user,
        response: { 200: accessReport, ...errors },
      },
    },
    async (request) => privacy.accessReport(actorOf(request)),
  );

  app.get(
    '/export',
    {
      schema: {
        tags,
        summary: 'Every personal record of yours, as a JSON file (streamed)',
        description:
          '`{format, version, generatedAt, userId, sections, data}`: `data` maps each section to its records; ' +
          '`sections` says which module, table and category each comes from. Secrets (password, key and token ' +
          'hashes, provider tokens) are never included.',
        security: security.user,
        response: { 200: z.unknown().describe('The export (application/json attachment)'), ...errors },
      },
    },
    async (request, reply) => {
      const { filename, stream } = await privacy.export(actorOf(request));
      return reply
        .header('content-type', 'application/json; charset=utf-8')
        .header('content-disposition', `attachment; filename="${filename}"`)
        .header('cache-control', 'no-store')
        .send(stream);
    },
  );

  app.post(
    '/requests',
    {
      schema: {
        tags,
        summary: 'Ask for access to, an export of, or the erasure of your data',
        security: security.user,
        body: createRequestBody,
        response: { 201: dataSubjectRequest, ...errors },
      },
    },
    async (request, reply) =>
      reply.code(201).send(await privacy.createRequest(actorOf(request), request.body)),
  );

  app.get(
    '/requests',
    {
      schema: {
        tags,
        summary: 'Your requests, newest first',
        security: security.user,
        querystring: listRequestsQuery,
        response: { 200: requestList, ...errors },
      },
    },
    async (request) => privacy.listRequests(actorOf(request), request.query),
  );

  app.get(
    '/requests/:id',
    {
      schema: {
        tags,
        summary: 'One of your requests',
        security: security.user,
        params: requestParams,
        response: { 200: dataSubjectRequest, 404: errorEnvelope, ...errors },
      },
    },
    async (request) => privacy.getRequest(actorOf(request), request.params.id),
  );

  app.post(
    '/requests/:id/cancel',
    {
      schema: {
        tags,
        summary: 'Withdraw a pending request of yours (409 once an operator has started on it)',
        security: security.user,
        params: requestParams,
        response: { 200: dataSubjectRequest, 404: errorEnvelope, 409: errorEnvelope, ...errors },
      },
    },
    async (request) => privacy.cancelRequest(actorOf(request), request.params.id),
  );

  app.get(
    '/consents',
    {
      schema: {
        tags,
        summary: 'Your current decision of each consent type you decided',
        security: security.user,
        response: { 200: z.array(consent), ...errors },
      },
    },
    async (request) => privacy.listConsents(actorOf(request)),
  );

  app.get(
    '/consents/history',
    {
      schema: {
        tags,
        summary: 'Every consent decision of yours, newest first, one page at a time',
        security: security.user,
        querystring: consentHistoryQuery,
        response: { 200: page(consent), ...errors },
      },
      config: { serviceInput: 'query' },
    },
    async (request) => privacy.consentHistory(actorOf(request), request.query),
  );

  app.put(
    '/consents/:consentType',
    {
      schema: {
        tags,
        summary: 'Decide one consent type (appended to the history with your IP address and user agent)',
        security: security.user,
        params: consentParams,
        body: upsertConsentBody,
        response: { 200: consent, ...errors },
      },
    },
    async (request) =>
      privacy.decideConsent(actorOf(request), request.params.consentType, request.body, contextOf(request)),
  );

  app.post(
    '/policy-acceptance',
    {
      schema: {
        tags,
        summary: 'Accept a version of the privacy policy (also your current privacy_policy consent)',
        security: security.user,
        body: acceptPolicyBody,
        response: { 201: policyAcceptance, ...errors },
      },
    },
    async (request, reply) =>
      reply.code(201).send(await privacy.acceptPolicy(actorOf(request), request.body, contextOf(request))),
  );
};
