import assert from 'node:assert/strict';
import { after, afterEach, before, describe, mock, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/client';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../../src/app.js';
import { loadConfig } from '../../../src/config.js';
import { RESERVATION_EXPIRY_JOB } from '../../../src/modules/reservations/service.js';
import { createTestDatabase } from '../../helpers/app.js';
import { at, book, bookPublicly, customer, futureMonday } from '../../helpers/booking.js';
import { createResource, createType } from '../../helpers/catalogue.js';
import { as, expectError, expectStatus } from '../../helpers/http.js';
import { agentClient, MCP_TEST_ENV } from '../../helpers/mcp.js';
import { type OrgOwner, ownerWithOrganisation } from '../../helpers/organisations.js';

type ToolResult = { isError?: boolean; structuredContent?: unknown };

/**
 * Collective bookings on the routes beyond a member's REST booking: the organisation's
 * booking page (reasons kept private), MCP, and a hold's expiry taking every part with it.
 */
describe('collective bookings on every channel', () => {
  let app: FastifyInstance;
  let dropDb: () => Promise<void>;
  let owner: OrgOwner;
  let client: Client;
  let ids: number[];
  const slug = `collective-${process.pid}`;
  const hour = (h: number) => ({ startTime: at(futureMonday(), h), endTime: at(futureMonday(), h + 1) });

  before(async () => {
    const { db, drop } = await createTestDatabase();
    dropDb = drop;
    app = await buildApp(loadConfig(MCP_TEST_ENV), { db, logger: false });
    await app.listen({ port: 0, host: '127.0.0.1' });
    owner = await ownerWithOrganisation(app, { timezone: 'UTC', slug });
    const room = await createType(app, owner, { name: 'Room', bookingMode: 'SINGLE_RESOURCE' });
    const person = await createType(app, owner, { name: 'Advisor', bookingMode: 'BOTH' });
    ids = [
      (await createResource(app, owner, { name: 'Blue', resourceTypeId: room.id })).id,
      (await createResource(app, owner, { name: 'Ada', resourceTypeId: person.id })).id,
    ];
    client = await agentClient(app, owner, 'reservations_operator');
  });
  after(async () => {
    await client.close().catch(() => {});
    await app.close();
    await dropDb();
  });
  afterEach(() => mock.timers.reset());

  test('the booking page books collectively; its refusal says UNAVAILABLE per resource, never what takes the time', async () => {
    const booked = expectStatus(await bookPublicly(app, slug, { resourceIds: ids, ...hour(9) }), 201);
    assert.equal(booked.status, 'confirmed');
    const refused = expectError(
      await bookPublicly(app, slug, { resourceIds: ids, ...hour(9) }),
      409,
      'HOST_UNAVAILABLE',
    );
    const details = refused.details as unknown as { code: string; resourceId: number }[];
    assert.deepEqual(
      details.map((d) => [d.resourceId, d.code]),
      ids.map((id) => [id, 'UNAVAILABLE']),
    );
    // Staff see the reason itself.
    const staff = expectError(
      await book(app, owner, { resourceIds: ids, ...hour(9) }),
      409,
      'HOST_UNAVAILABLE',
    );
    assert.ok((staff.details as unknown as { code: string }[]).every((d) => d.code === 'BOOKED'));
  });

  test('an agent books collectively through reservations_create; a refusal is a tool error naming HOST_UNAVAILABLE', async () => {
    const args = { resourceIds: ids, ...hour(11), customer };
    const created = (await client.callTool({ name: 'reservations_create', arguments: args })) as ToolResult;
    assert.equal(created.isError, undefined, JSON.stringify(created.structuredContent));
    assert.deepEqual((created.structuredContent as { resourceIds: number[] }).resourceIds, ids);
    const again = (await client.callTool({ name: 'reservations_create', arguments: args })) as ToolResult;
    assert.equal(again.isError, true);
    assert.equal((again.structuredContent as { error: { code: string } }).error.code, 'HOST_UNAVAILABLE');
  });

  test('a collective hold lapses on every resource at once; the expiry job marks it and its parts', async () => {
    const start = Date.now();
    mock.timers.enable({ apis: ['Date'], now: start });
    const held = expectStatus(
      await as(app, owner).post('/api/reservations/holds', {
        resourceIds: ids,
        ...hour(13),
        customer,
        holdSeconds: 60,
      }),
      201,
    );
    expectError(await book(app, owner, { resourceId: ids[1]!, ...hour(13) }), 409, 'SLOT_UNAVAILABLE');
    mock.timers.setTime(start + 60_000);
    await app.jobs.send(RESERVATION_EXPIRY_JOB, {});
    await app.jobs.idle();
    const read = expectStatus(await as(app, owner).get(`/api/reservations/${held.id}`), 200);
    assert.equal(read.status, 'expired');
    for (const id of ids) expectStatus(await book(app, owner, { resourceId: id, ...hour(13) }), 201);
  });
});
