import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { actorOf } from '../../http/auth.js';
import { errorResponses } from '../../http/errors.js';
import { idParam, security } from '../../http/schemas.js';
import { createRoutineBody, routine, routineRun, runRoutineBody, updateRoutineBody } from './schemas.js';

const tags = ['routines'];
const errors = errorResponses(400, 401, 404);

/** `/api/routines`: task templates that recur. */
export const routineRoutes: FastifyPluginAsyncZod = async (app) => {
  const { routines } = app.services;
  app.addHook('onRequest', app.requireUser);

  app.get(
    '/',
    {
      schema: {
        tags,
        summary: 'Your routines, by name',
        security: security.user,
        response: { 200: z.array(routine), ...errors },
      },
    },
    async (request) => routines.list(actorOf(request)),
  );

  app.post(
    '/',
    {
      schema: {
        tags,
        summary: 'Create a routine: task templates and an RFC 5545 recurrence of dates',
        security: security.user,
        body: createRoutineBody,
        response: { 201: routine, ...errors },
      },
    },
    async (request, reply) => reply.code(201).send(await routines.create(actorOf(request), request.body)),
  );

  app.get(
    '/:id',
    {
      schema: {
        tags,
        summary: 'A routine of yours',
        security: security.user,
        params: idParam,
        response: { 200: routine, ...errors },
      },
    },
    async (request) => routines.get(actorOf(request), request.params.id),
  );

  app.patch(
    '/:id',
    {
      schema: {
        tags,
        summary: 'Change a routine (templates are replaced as a whole); tasks already made stay',
        security: security.user,
        params: idParam,
        body: updateRoutineBody,
        response: { 200: routine, ...errors },
      },
    },
    async (request) => routines.update(actorOf(request), request.params.id, request.body),
  );

  app.delete(
    '/:id',
    {
      schema: {
        tags,
        summary: 'Delete a routine; the tasks it made stay',
        security: security.user,
        params: idParam,
        response: { 204: z.null().describe('Deleted'), ...errors },
      },
    },
    async (request, reply) => {
      await routines.delete(actorOf(request), request.params.id);
      return reply.code(204).send(null);
    },
  );

  app.post(
    '/:id/run',
    {
      schema: {
        tags,
        summary:
          "Instantiate the routine's tasks for one occurrence date, once: 201 when created, 200 with the existing tasks after",
        security: security.user,
        params: idParam,
        body: runRoutineBody.nullish(),
        response: { 200: routineRun, 201: routineRun, ...errors },
      },
    },
    async (request, reply) => {
      const run = await routines.run(actorOf(request), request.params.id, request.body ?? {});
      return reply.code(run.created ? 201 : 200).send(run);
    },
  );
};
