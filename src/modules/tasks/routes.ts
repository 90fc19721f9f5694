import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { actorOf } from '../../http/auth.js';
import { errorEnvelope, errorResponses } from '../../http/errors.js';
import { idParam, page, security } from '../../http/schemas.js';
import {
  addChecklistItemBody,
  addDependencyBody,
  checklistItem,
  checklistItemParams,
  createLabelBody,
  createTaskBody,
  dependencyParams,
  listTasksQuery,
  task,
  taskLabel,
  updateChecklistItemBody,
  updateLabelBody,
  updateTaskBody,
} from './schemas.js';

const tags = ['tasks'];
const deleted = z.null().describe('Deleted');
const errors = errorResponses(400, 401, 404);

/** `/api/tasks`: your tasks, their checklists and dependencies. */
export const taskRoutes: FastifyPluginAsyncZod = async (app) => {
  const { tasks } = app.services;
  app.addHook('onRequest', app.requireUser);

  app.get(
    '/',
    {
      schema: {
        tags,
        summary: 'Your tasks by due date (undated last), filtered, one page at a time',
        security: security.user,
        querystring: listTasksQuery,
        response: { 200: page(task), ...errors },
      },
      config: { serviceInput: 'query' },
    },
    async (request) => tasks.list(actorOf(request), request.query),
  );

  app.post(
    '/',
    {
      schema: {
        tags,
        summary: 'Create a task',
        security: security.user,
        body: createTaskBody,
        response: { 201: task, ...errors },
      },
    },
    async (request, reply) => reply.code(201).send(await tasks.create(actorOf(request), request.body)),
  );

  app.get(
    '/:id',
    {
      schema: {
        tags,
        summary: 'A task of yours with its labels, checklist and blockers',
        security: security.user,
        params: idParam,
        response: { 200: task, ...errors },
      },
    },
    async (request) => tasks.get(actorOf(request), request.params.id),
  );

  app.patch(
    '/:id',
    {
      schema: {
        tags,
        summary: 'Change a task (done while a blocker is open: 409 TASK_BLOCKED)',
        security: security.user,
        params: idParam,
        body: updateTaskBody,
        response: { 200: task, 409: errorEnvelope, ...errors },
      },
    },
    async (request) => tasks.update(actorOf(request), request.params.id, request.body),
  );

  app.delete(
    '/:id',
    {
      schema: {
        tags,
        summary: 'Delete a task with its checklist and dependencies',
        security: security.user,
        params: idParam,
        response: { 204: deleted, ...errors },
      },
    },
    async (request, reply) => {
      await tasks.delete(actorOf(request), request.params.id);
      return reply.code(204).send(null);
    },
  );

  app.post(
    '/:id/dependencies',
    {
      schema: {
        tags,
        summary: 'Make the task wait for another task of yours (a cycle: 409 DEPENDENCY_CYCLE)',
        security: security.user,
        params: idParam,
        body: addDependencyBody,
        response: { 200: task, 409: errorEnvelope, ...errors },
      },
    },
    async (request) => tasks.addDependency(actorOf(request), request.params.id, request.body.blockedByTaskId),
  );

  app.delete(
    '/:id/dependencies/:blockedByTaskId',
    {
      schema: {
        tags,
        summary: 'Stop the task waiting for another task',
        security: security.user,
        params: dependencyParams,
        response: { 204: deleted, ...errors },
      },
    },
    async (request, reply) => {
      await tasks.removeDependency(actorOf(request), request.params.id, request.params.blockedByTaskId);
      return reply.code(204).send(null);
    },
  );

  app.post(
    '/:id/checklist',
    {
      schema: {
        tags,
        summary: 'Append a checklist item',
        security: security.user,
        params: idParam,
        body: addChecklistItemBody,
        response: { 201: checklistItem, 409: errorEnvelope, ...errors },
      },
    },
    async (request, reply) =>
      reply.code(201).send(await tasks.addChecklistItem(actorOf(request), request.params.id, request.body)),
  );

  app.patch(
    '/:id/checklist/:itemId',
    {
      schema: {
        tags,
        summary: 'Change a checklist item: text, done, or its 0-based position',
        security: security.user,
        params: checklistItemParams,
        body: updateChecklistItemBody,
        response: { 200: checklistItem, ...errors },
      },
    },
    async (request) =>
      tasks.updateChecklistItem(actorOf(request), request.params.id, request.params.itemId, request.body),
  );

  app.delete(
    '/:id/checklist/:itemId',
    {
      schema: {
        tags,
        summary: 'Remove a checklist item (later items move up)',
        security: security.user,
        params: checklistItemParams,
        response: { 204: deleted, ...errors },
      },
    },
    async (request, reply) => {
      await tasks.deleteChecklistItem(actorOf(request), request.params.id, request.params.itemId);
      return reply.code(204).send(null);
    },
  );
};

/** `/api/task-labels`: your task labels. */
export const taskLabelRoutes: FastifyPluginAsyncZod = async (app) => {
  const { tasks } = app.services;
  app.addHook('onRequest', app.requireUser);
  const labelTags = ['task labels'];

  app.get(
    '/',
    {
      schema: {
        tags: labelTags,
        summary: 'Your task labels, by name',
        security: security.user,
        response: { 200: z.array(taskLabel), ...errors },
      },
    },
    async (request) => tasks.listLabels(actorOf(request)),
  );

  app.post(
    '/',
    {
      schema: {
        tags: labelTags,
        summary: 'Create a task label (names are unique per user: 409 CONFLICT)',
        security: security.user,
        body: createLabelBody,
        response: { 201: taskLabel, 409: errorEnvelope, ...errors },
      },
    },
    async (request, reply) => reply.code(201).send(await tasks.createLabel(actorOf(request), request.body)),
  );

  app.patch(
    '/:id',
    {
      schema: {
        tags: labelTags,
        summary: 'Rename or recolour a task label',
        security: security.user,
        params: idParam,
        body: updateLabelBody,
        response: { 200: taskLabel, 409: errorEnvelope, ...errors },
      },
    },
    async (request) => tasks.updateLabel(actorOf(request), request.params.id, request.body),
  );

  app.delete(
    '/:id',
    {
      schema: {
        tags: labelTags,
        summary: 'Delete a task label; it leaves every task',
        security: security.user,
        params: idParam,
        response: { 204: deleted, ...errors },
      },
    },
    async (request, reply) => {
      await tasks.deleteLabel(actorOf(request), request.params.id);
      return reply.code(204).send(null);
    },
  );
};
