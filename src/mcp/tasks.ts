import { setTimeout as sleep } from 'node:timers/promises';
import {
  type CallToolResult,
  isTaskAugmentedRequestParams,
  ProtocolError,
  ProtocolErrorCode,
  RELATED_TASK_META_KEY,
  type Server,
  type ServerContext,
  type Task,
  type Tool,
} from '@modelcontextprotocol/server';
import { type CompiledTool, toolListing } from './catalogue.js';
import type { AgentRequestContext } from './server.js';
import type { CallTask, CallTaskStore } from './task-types.js';
import { errorResult, successResult } from './tool-results.js';

/** Where a task's approval is, beside `statusMessage`: `_meta` of the task's answers. */
export const APPROVAL_META_KEY = 'reservation-service/approval';
/** How often a client should poll, and how often a waiting `tasks/result` reads the database. */
export const TASK_POLL_MS = 2000;

/** The server's tasks capability (2025-11-25): `tools/call` may be task-augmented, and tasks cancelled. */
export const TASKS_CAPABILITY = { cancel: {}, requests: { tools: { call: {} } } };

/**
 * A 2025-era tool as `tools/list` shows it where tasks are served: a tool that may be sent
 * for approval (one that writes) may be called as a task (`execution.taskSupport`).
 */
export const withTaskSupport = (tool: CompiledTool): Tool =>
  tool.risk === 'read' ? toolListing(tool) : { ...toolListing(tool), execution: { taskSupport: 'optional' } };

/** A `tools/call` whose client asked for a task (`params.task`, 2025-11-25). */
export const asksForTask = (params: unknown) =>
  isTaskAugmentedRequestParams(params) && params.task !== undefined;

const isTerminal = (task: CallTask) => ['completed', 'failed', 'cancelled'].includes(task.status);

/** The task on the wire, with its approval in `_meta` (the URL also in words in `statusMessage`). */
function wireTask(task: CallTask): { task: Task; meta: Record<string, unknown> } {
  const { approval } = task;
  const statusMessage =
    task.status === 'input_required'
      ? `Waiting for your person's approval: they decide at ${approval.approveUrl} (by ${approval.expiresAt})`
      : task.outcome && !task.outcome.ok
        ? task.outcome.message
        : undefined;
  return {
    task: {
      taskId: task.taskId,
      status: task.status,
      ttl: task.ttl,
      createdAt: task.createdAt,
      lastUpdatedAt: task.lastUpdatedAt,
      pollInterval: TASK_POLL_MS,
      ...(statusMessage ? { statusMessage } : {}),
    },
    meta: { [APPROVAL_META_KEY]: approval },
  };
}

/**
 * What `tools/call` answers a task-augmented call sent for approval: the task, created
 * `working` (tasks/get shows it waiting for the person). The SDK checks a tools/call
 * answer as a CallToolResult, so it carries `content` too: the task in words.
 */
export function createdTaskResult(task: CallTask): CallToolResult {
  const { task: shown, meta } = wireTask({ ...task, status: 'working' });
  const { approveUrl } = task.approval;
  return {
    task: { ...shown, statusMessage: `Sent for your person's approval: they decide at ${approveUrl}` },
    content: [
      {
        type: 'text',
        text: `This call needs your person's approval: nothing was done yet. They decide at ${approveUrl}; follow task ${task.taskId} with tasks/get and tasks/result.`,
      },
    ],
    _meta: meta,
  };
}

/** The call's own result, as `tools/call` would have answered it when it ran. */
function callResultOf(task: CallTask): CallToolResult {
  const outcome = task.outcome;
  if (!outcome) return errorResult('INTERNAL', 'Internal error');
  if (!outcome.ok) return errorResult(outcome.code, outcome.message);
  return successResult(outcome.output);
}

type TaskMethod = 'tasks/get' | 'tasks/result' | 'tasks/cancel';
type TaskHandler = (
  request: { params: { taskId: string } },
  ctx: ServerContext,
) => Promise<Record<string, unknown>>;

/**
 * The SDK parses these with its 2025-11-25 request schemas (GetTaskRequestSchema,
 * GetTaskPayloadRequestSchema, CancelTaskRequestSchema) when they arrive; its handler
 * types leave the deprecated task methods out, so they are named here.
 */
const handleTaskMethod = (server: Server, method: TaskMethod, handler: TaskHandler) =>
  (server.setRequestHandler as unknown as (method: TaskMethod, handler: TaskHandler) => void).call(
    server,
    method,
    handler,
  );

/** Unknown, expired and another agent's tasks alike. */
const notFound = (taskId: string) =>
  new ProtocolError(ProtocolErrorCode.InvalidParams, `Task ${taskId.slice(0, 64)} not found`);

/**
 * `tasks/get`, `tasks/result` and `tasks/cancel` (2025-11-25 "utilities/tasks") over the
 * tasks the database keeps, so any instance answers for any task of the request's agent.
 */
export function serveTasks(
  server: Server,
  store: CallTaskStore,
  contextOf: (ctx: ServerContext) => AgentRequestContext,
): void {
  const read = async (ctx: ServerContext, taskId: string) => {
    const task = await store.get(contextOf(ctx).agent.id, taskId);
    if (!task) throw notFound(taskId);
    return task;
  };

  handleTaskMethod(server, 'tasks/get', async (request, ctx) => {
    const { task, meta } = wireTask(await read(ctx, request.params.taskId));
    return { ...task, _meta: meta };
  });

  // The spec's tasks/result waits for a task that has not ended: here, by reading the
  // database again (the approval may be decided on any instance) until it ends or the
  // client gives up.
  handleTaskMethod(server, 'tasks/result', async (request, ctx) => {
    const { taskId } = request.params;
    let task = await read(ctx, taskId);
    while (!isTerminal(task)) {
      await sleep(TASK_POLL_MS, undefined, { signal: ctx.mcpReq.signal });
      task = await read(ctx, taskId);
    }
    const result = callResultOf(task);
    return { ...result, _meta: { ...result._meta, [RELATED_TASK_META_KEY]: { taskId } } };
  });

  handleTaskMethod(server, 'tasks/cancel', async (request, ctx) => {
    const { taskId } = request.params;
    const cancelled = await store.cancel(contextOf(ctx).agent.id, taskId);
    if (cancelled === 'not_found') throw notFound(taskId);
    if (cancelled === 'terminal')
      throw new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        `Cannot cancel task ${taskId}: it has already ended`,
      );
    if (cancelled === 'running')
      throw new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        `Cannot cancel task ${taskId}: its approved call is running now`,
      );
    const { task, meta } = wireTask(cancelled);
    return { ...task, _meta: meta };
  });
}
