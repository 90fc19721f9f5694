import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/client';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { createTestDatabase } from '../helpers/app.js';
import { at, customer, futureMonday } from '../helpers/booking.js';
import { createResource, createType } from '../helpers/catalogue.js';
import { as, expectStatus } from '../helpers/http.js';
import { connectClient, MCP_TEST_ENV } from '../helpers/mcp.js';
import { ownerWithOrganisation } from '../helpers/organisations.js';

/**
 * Services name the fields they refuse (`endTime`, `cursor`); each transport places them:
 * REST under the request part the route hands its service (`body.endTime`, `query.cursor`),
 * MCP as the tool's own argument names (`endTime`, `cursor`).
 */

type ToolError = { error: { code: string; message: string } };

describe('validation paths: REST request parts, MCP tool arguments', () => {
  let app: FastifyInstance;
  let dropDb: () => Promise<void>;
  let client: Client;
  let owner: Awaited<ReturnType<typeof ownerWithOrganisation>>;
  let booking: Record<string, unknown>;

  before(async () => {
    const { db, drop } = await createTestDatabase();
    dropDb = drop;
    app = await buildApp(loadConfig(MCP_TEST_ENV), { db, logger: false });
    await app.listen({ port: 0, host: '127.0.0.1' });
    const address = app.server.address();
    if (!address || typeof address === 'string') throw new Error('no port');

    owner = await ownerWithOrganisation(app, { name: 'Paths', timezone: 'UTC' });
    const type = await createType(app, owner, { name: 'Room' });
    const room = await createResource(app, owner, { name: 'Room 1', resourceTypeId: type.id });
    const monday = futureMonday();
    booking = { resourceId: room.id, startTime: at(monday, 10), endTime: at(monday, 9), customer };

    const agent = expectStatus(await as(app, owner).post('/api/agents', { name: 'Paths' }), 201);
    const permissions = ['reservations.create', 'reservations.list', 'tasks.list'].map((actionKey) => ({
      actionKey,
    }));
    expectStatus(
      await app.inject({
        method: 'PUT',
        url: `/api/agents/${agent.id}/permissions`,
        headers: owner.auth,
        payload: { permissions },
      }),
      200,
    );
    const { key } = expectStatus(
      await as(app, owner).post(`/api/agents/${agent.id}/keys`, { label: 'k' }),
      201,
    );
    ({ client } = await connectClient(new URL(`http://127.0.0.1:${address.port}/api/mcp`), {
      'x-agent-key': key,
    }));
  });
  after(async () => {
    await client.close().catch(() => {});
    await app.close();
    await dropDb();
  });

  const refusal = async (name: string, args: Record<string, unknown>) => {
    const result = await client.callTool({ name, arguments: args });
    assert.equal(result.isError, true);
    return (result.structuredContent as ToolError).error;
  };

  test('a refused body field: body.endTime over REST, endTime through the tool', async () => {
    const rest = await as(app, owner).post('/api/reservations', booking);
    assert.equal(rest.statusCode, 400);
    const { error } = rest.json();
    assert.equal(error.code, 'VALIDATION_FAILED');
    assert.equal(error.message, 'body.endTime: must be after startTime');
    assert.deepEqual(error.details, [{ path: 'body.endTime', message: 'must be after startTime' }]);

    assert.deepEqual(await refusal('reservations_create', booking), {
      code: 'VALIDATION_FAILED',
      message: 'endTime: must be after startTime',
    });
  });

  test('a refused query field: query.cursor over REST, cursor through the tool', async () => {
    const reservations = await as(app, owner).get('/api/reservations?cursor=not-a-cursor');
    assert.equal(reservations.statusCode, 400);
    assert.deepEqual(reservations.json().error.details, [
      { path: 'query.cursor', message: 'is not a cursor this list gave out' },
    ]);
    assert.equal(reservations.json().error.message, 'query.cursor: is not a cursor this list gave out');
    assert.deepEqual(await refusal('reservations_list', { cursor: 'not-a-cursor' }), {
      code: 'VALIDATION_FAILED',
      message: 'cursor: is not a cursor this list gave out',
    });

    const tasks = await as(app, owner).get('/api/tasks?cursor=not-a-cursor');
    assert.equal(tasks.statusCode, 400);
    assert.equal(
      tasks.json().error.message,
      'Invalid query: query.cursor: is not a cursor this list gave out',
    );
    assert.deepEqual(tasks.json().error.details, [
      { path: 'query.cursor', message: 'is not a cursor this list gave out' },
    ]);
    assert.deepEqual(await refusal('tasks_list', { cursor: 'not-a-cursor' }), {
      code: 'VALIDATION_FAILED',
      message: 'Invalid arguments for tool tasks_list: cursor: is not a cursor this list gave out',
    });
  });

  test('every refused booking field: body.<field> over REST, <field> through the tool', async () => {
    const past = { startTime: '2000-01-03T09:00:00.000Z', endTime: '2000-01-03T10:00:00.000Z' };
    for (const [changes, field, message] of [
      [past, 'startTime', 'must be in the future'],
      [
        { endTime: at(futureMonday(), 11), customer: { ...customer, seat: '4' } },
        'customer',
        'unknown field(s): seat',
      ],
    ] as const) {
      const args = { ...booking, ...changes };
      const rest = (await as(app, owner).post('/api/reservations', args)).json().error;
      assert.deepEqual(rest.details, [{ path: `body.${field}`, message }]);
      assert.equal(rest.message, `body.${field}: ${message}`);
      assert.deepEqual(await refusal('reservations_create', args), {
        code: 'VALIDATION_FAILED',
        message: `${field}: ${message}`,
      });
    }
  });
});
