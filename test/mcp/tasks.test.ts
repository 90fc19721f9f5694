import assert from 'node:assert/strict';
import { after, before, describe, mock, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  Client,
  type ClientCapabilities,
  ProtocolError,
  StreamableHTTPClientTransport,
  specTypeSchemas,
} from '@modelcontextprotocol/client';
import type { FastifyInstance } from 'fastify';
import type { Db } from '../../src/db/database.js';
import { twoInstances } from '../helpers/app.js';
import { hourAfterHour } from '../helpers/booking.js';
import { createResource, createType } from '../helpers/catalogue.js';
import { as, expectStatus } from '../helpers/http.js';
import { MCP_TEST_ENV, newAgent } from '../helpers/mcp.js';
import { type OrgOwner, ownerWithOrganisation } from '../helpers/organisations.js';

const APPROVAL_META = 'reservation-service/approval';
const RELATED_TASK = 'io.modelcontextprotocol/related-task';
type TaskAnswer = {
  taskId: string;
  status: string;
  statusMessage?: string;
  ttl: number | null;
  _meta?: Record<string, unknown>;
};
type ToolResult = { isError?: boolean; structuredContent?: Record<string, unknown>; _meta?: unknown };

/**
 * MCP tasks (DECISIONS.md "MCP frontier"): a task-augmented call that needs approval
 * answers a task that follows the approval, on two instances sharing one database, with
 * the SDK's client over real HTTP.
 */
describe('MCP tasks of calls sent for approval, on two instances', () => {
  let first: FastifyInstance;
  let second: FastifyInstance;
  let db: Db;
  let close: () => Promise<void>;
  let owner: OrgOwner;
  let room: { id: number };
  const clients: Client[] = [];

  const urlOf = (app: FastifyInstance) =>
    new URL(`http://127.0.0.1:${(app.server.address() as { port: number }).port}/api/mcp`);

  async function connect(
    app: FastifyInstance,
    key: string,
    capabilities: ClientCapabilities,
    era: 'legacy' | 'modern' = 'legacy',
    onElicit?: (request: unknown) => void,
  ) {
    const client = new Client(
      { name: 'tasks-test-client', version: '1.0.0' },
      { capabilities, ...(era === 'modern' ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {}) },
    );
    if (onElicit)
      client.setRequestHandler('elicitation/create', async (request) => {
        onElicit(request);
        return { action: 'decline' };
      });
    await client.connect(
      new StreamableHTTPClientTransport(urlOf(app), { requestInit: { headers: { 'x-agent-key': key } } }),
    );
    clients.push(client);
    return client;
  }

  const approvingAgent = async (name: string) =>
    (
      await newAgent(first, owner, {
        name,
        permissionGroupId: 'reservations_operator',
        policy: { requireApproval: 'writes' },
      })
    ).key;

  const booking = hourAfterHour(() => room.id, 6);
  const callAsTask = (client: Client, args: Record<string, unknown>) =>
    client.request(
      {
        method: 'tools/call',
        params: { name: 'reservations_create', arguments: args, task: { ttl: 60_000 } },
      },
      specTypeSchemas.CreateTaskResult,
    ) as Promise<{ task: TaskAnswer; _meta?: Record<string, unknown> }>;
  const getTask = (client: Client, taskId: string) =>
    client.request(
      { method: 'tasks/get', params: { taskId } },
      specTypeSchemas.GetTaskResult,
    ) as Promise<TaskAnswer>;
  const taskResult = (client: Client, taskId: string) =>
    client.request(
      { method: 'tasks/result', params: { taskId } },
      specTypeSchemas.CallToolResult,
    ) as Promise<ToolResult>;
  const cancelTask = (client: Client, taskId: string) =>
    client.request(
      { method: 'tasks/cancel', params: { taskId } },
      specTypeSchemas.CancelTaskResult,
    ) as Promise<TaskAnswer>;
  const approvalOf = (task: { _meta?: Record<string, unknown> }) =>
    task._meta?.[APPROVAL_META] as { id: number; approveUrl: string; expiresAt: string };
  const reservationsAt = async (startTime: string) =>
    (
      await db.kysely
        .selectFrom('reservations')
        .select('id')
        .where('resourceId', '=', room.id)
        .where('startTime', '=', startTime)
        .execute()
    ).length;

  let agentKey: string;
  let onFirst: Client;
  let onSecond: Client;

  before(async () => {
    ({ first, second, db, close } = await twoInstances(MCP_TEST_ENV, { listen: true }));
    owner = await ownerWithOrganisation(first, { timezone: 'UTC' });
    const type = await createType(first, owner);
    room = await createResource(first, owner, { name: 'Room', resourceTypeId: type.id });
    agentKey = await approvingAgent('Booker');
    onFirst = await connect(first, agentKey, { tasks: {} });
    onSecond = await connect(second, agentKey, { tasks: {} });
  });
  after(async () => {
    for (const client of clients) await client.close().catch(() => {});
    await close();
  });

  const taskSupportOf = async (client: Client) =>
    Object.fromEntries(
      (await client.listTools()).tools.map((tool) => [tool.name, tool.execution?.taskSupport ?? 'forbidden']),
    );

  test('the server declares tasks for tools/call and cancellation; tools that write may be called as tasks', async () => {
    assert.deepEqual(onFirst.getServerCapabilities()?.tasks, {
      cancel: {},
      requests: { tools: { call: {} } },
    });
    const support = await taskSupportOf(onSecond);
    assert.equal(support.reservations_create, 'optional');
    assert.equal(support.agent_profile, 'forbidden');
  });

  test('a call sent for approval answers a task; approved on the other instance, it completes with the result', async () => {
    const args = booking();
    const created = await callAsTask(onFirst, args);
    assert.equal(created.task.status, 'working');
    assert.equal(created.task.ttl, 48 * 60 * 60 * 1000);
    const approval = approvalOf(created);
    assert.match(approval.approveUrl, new RegExp(`/approvals/${approval.id}$`));

    const waiting = await getTask(onSecond, created.task.taskId);
    assert.equal(waiting.status, 'input_required');
    assert.ok(waiting.statusMessage?.includes(approval.approveUrl), waiting.statusMessage);
    assert.equal(approvalOf(waiting).approveUrl, approval.approveUrl);
    assert.equal(await reservationsAt(args.startTime), 0);

    expectStatus(
      await second.inject({
        method: 'POST',
        url: `/api/approvals/${approval.id}/approve`,
        headers: owner.auth,
      }),
      200,
    );
    assert.equal((await getTask(onFirst, created.task.taskId)).status, 'completed');
    const result = await taskResult(onSecond, created.task.taskId);
    assert.equal(result.isError, undefined, JSON.stringify(result));
    assert.equal(result.structuredContent?.startTime, args.startTime);
    assert.deepEqual((result._meta as Record<string, unknown>)[RELATED_TASK], {
      taskId: created.task.taskId,
    });
    // Read twice, run once.
    assert.deepEqual(await taskResult(onFirst, created.task.taskId), result);
    assert.equal(await reservationsAt(args.startTime), 1);
  });

  test('tasks/result waits for a task that has not ended, and answers once it does', async () => {
    const created = await callAsTask(onFirst, booking());
    let answered = false;
    const waiting = taskResult(onSecond, created.task.taskId).finally(() => {
      answered = true;
    });
    // Long enough for the request to reach the instance and find the task still waiting.
    await sleep(300);
    assert.equal(answered, false);
    expectStatus(
      await first.inject({
        method: 'POST',
        url: `/api/approvals/${approvalOf(created).id}/deny`,
        headers: owner.auth,
      }),
      200,
    );
    const result = await waiting;
    assert.equal(result.isError, true);
    assert.deepEqual(result.structuredContent, {
      error: { code: 'FORBIDDEN', message: 'The owner denied the approval: nothing ran' },
    });
  });

  test('a denied approval fails the task, with nothing run', async () => {
    const args = booking();
    const created = await callAsTask(onSecond, args);
    expectStatus(
      await first.inject({
        method: 'POST',
        url: `/api/approvals/${approvalOf(created).id}/deny`,
        headers: owner.auth,
      }),
      200,
    );
    const failed = await getTask(onFirst, created.task.taskId);
    assert.equal(failed.status, 'failed');
    assert.match(failed.statusMessage ?? '', /denied/);
    const result = await taskResult(onFirst, created.task.taskId);
    assert.equal(result.isError, true);
    assert.equal(await reservationsAt(args.startTime), 0);
  });

  test('an approved call that fails when it runs fails the task, with its error', async () => {
    const args = booking();
    const created = await callAsTask(onFirst, args);
    // The owner books the time first: what the approval showed cannot happen any more.
    expectStatus(await as(first, owner).post('/api/reservations', args), 201);
    expectStatus(
      await second.inject({
        method: 'POST',
        url: `/api/approvals/${approvalOf(created).id}/approve`,
        headers: owner.auth,
      }),
      200,
    );
    const failed = await getTask(onSecond, created.task.taskId);
    assert.equal(failed.status, 'failed');
    assert.match(failed.statusMessage ?? '', /does not fit the availability/);
    const result = await taskResult(onFirst, created.task.taskId);
    assert.equal(
      (result.structuredContent?.error as { code?: string } | undefined)?.code,
      'SLOT_UNAVAILABLE',
    );
    assert.equal(await reservationsAt(args.startTime), 1);
  });

  test('tasks/cancel denies the approval and cancels the task; a finished task cannot be cancelled', async () => {
    const args = booking();
    const created = await callAsTask(onFirst, args);
    const cancelled = await cancelTask(onSecond, created.task.taskId);
    assert.equal(cancelled.status, 'cancelled');
    assert.equal((await getTask(onFirst, created.task.taskId)).status, 'cancelled');
    const approval = expectStatus(
      await first.inject({
        method: 'GET',
        url: `/api/approvals/${approvalOf(created).id}`,
        headers: owner.auth,
      }),
      200,
    );
    assert.equal(approval.status, 'denied');
    await assert.rejects(cancelTask(onFirst, created.task.taskId), (error: unknown) => {
      assert.ok(error instanceof ProtocolError, String(error));
      assert.equal(error.code, -32602);
      assert.match(error.message, /already ended/);
      return true;
    });
    // Nor can the owner approve it now.
    expectStatus(
      await first.inject({
        method: 'POST',
        url: `/api/approvals/${approval.id}/approve`,
        headers: owner.auth,
      }),
      409,
    );
    assert.equal(await reservationsAt(args.startTime), 0);
  });

  test("another agent's task, and an unknown one, are not found", async () => {
    const created = await callAsTask(onFirst, booking());
    const other = await connect(second, await approvingAgent('Other'), { tasks: {} });
    for (const taskId of [created.task.taskId, 'no-such-task']) {
      for (const ask of [getTask, taskResult, cancelTask])
        await assert.rejects(ask(other, taskId), (error: unknown) => {
          assert.ok(error instanceof ProtocolError, String(error));
          assert.equal(error.code, -32602);
          assert.match(error.message, /not found/);
          return true;
        });
    }
    assert.equal((await getTask(onFirst, created.task.taskId)).status, 'input_required');
  });

  test('a client that also takes URL elicitation is not asked as well: the task carries the URL', async () => {
    const asked: unknown[] = [];
    const client = await connect(
      first,
      agentKey,
      { tasks: {}, elicitation: { url: {} } },
      'legacy',
      (request) => {
        asked.push(request);
      },
    );
    const created = await callAsTask(client, booking());
    assert.equal(created.task.status, 'working');
    assert.equal((await getTask(onSecond, created.task.taskId)).status, 'input_required');
    assert.deepEqual(asked, []);
  });

  test('the 2026-07-28 era carries no tasks: its calls answer as they always did', async () => {
    const modern = await connect(first, agentKey, { tasks: {} }, 'modern');
    assert.equal(modern.getServerCapabilities()?.tasks, undefined);
    assert.equal((await taskSupportOf(modern)).reservations_create, 'forbidden');
    // Even with a task asked for in the call.
    const asked = (await modern.request(
      {
        method: 'tools/call',
        params: { name: 'reservations_create', arguments: booking(), task: { ttl: 60_000 } },
      },
      specTypeSchemas.CallToolResult,
    )) as ToolResult & { task?: unknown };
    assert.equal(asked.task, undefined);
    assert.equal(asked.structuredContent?.approvalRequired, true, JSON.stringify(asked));
  });

  test('a call without a task, or from a client without tasks, answers as it always did', async () => {
    const plain = await connect(first, agentKey, {});
    for (const client of [plain, onFirst]) {
      const result = (await client.callTool({
        name: 'reservations_create',
        arguments: booking(),
      })) as ToolResult;
      assert.equal(result.isError, undefined);
      assert.equal(result.structuredContent?.approvalRequired, true, JSON.stringify(result));
    }
  });
  // Last: it moves the clock past the sessions' idle limit.
  test('an approval past its time fails the task; a task past its time is gone', async () => {
    const start = Date.now();
    mock.timers.enable({ apis: ['Date'], now: start });
    try {
      const created = await callAsTask(onFirst, booking());
      const { taskId } = created.task;
      mock.timers.setTime(start + 24 * 60 * 60 * 1000 + 1000);
      const later = await connect(second, agentKey, { tasks: {} });
      const expired = await getTask(later, taskId);
      assert.equal(expired.status, 'failed');
      assert.match(expired.statusMessage ?? '', /expired/);
      const result = await taskResult(later, taskId);
      assert.equal((result.structuredContent?.error as { code?: string } | undefined)?.code, 'CONFLICT');
      mock.timers.setTime(start + 48 * 60 * 60 * 1000 + 1000);
      const latest = await connect(first, agentKey, { tasks: {} });
      await assert.rejects(getTask(latest, taskId), /not found/);
    } finally {
      mock.timers.reset();
    }
  });
});
