import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/client';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../../src/app.js';
import { loadConfig } from '../../../src/config.js';
import type { Db } from '../../../src/db/database.js';
import { createTestDatabase } from '../../helpers/app.js';
import { at, customer, futureMonday } from '../../helpers/booking.js';
import { createResource, createType } from '../../helpers/catalogue.js';
import { as, expectStatus } from '../../helpers/http.js';
import { agentClient, MCP_TEST_ENV } from '../../helpers/mcp.js';
import { type OrgOwner, ownerWithOrganisation } from '../../helpers/organisations.js';

type ToolResult = { isError?: boolean; structuredContent?: unknown };

/** reservations_attendance through the SDK's client, as an agent of the operational preset. */
describe('attendance over MCP', () => {
  let app: FastifyInstance;
  let db: Db;
  let dropDb: () => Promise<void>;
  let owner: OrgOwner;
  let client: Client;
  let roomId: number;

  before(async () => {
    const created = await createTestDatabase();
    db = created.db;
    dropDb = created.drop;
    app = await buildApp(loadConfig(MCP_TEST_ENV), { db, logger: false });
    await app.listen({ port: 0, host: '127.0.0.1' });
    owner = await ownerWithOrganisation(app, { timezone: 'UTC' });
    const type = await createType(app, owner);
    roomId = (await createResource(app, owner, { name: 'Room', resourceTypeId: type.id })).id;
    client = await agentClient(app, owner, 'operational_read_write');
  });
  after(async () => {
    await client.close().catch(() => {});
    await app.close();
    await dropDb();
  });

  const call = (args: Record<string, unknown>) =>
    client.callTool({ name: 'reservations_attendance', arguments: args }) as Promise<ToolResult>;

  test('marks a started reservation; refuses one not started with INVALID_TRANSITION', async () => {
    const mon = futureMonday();
    const booked = expectStatus(
      await as(app, owner).post('/api/reservations', {
        resourceId: roomId,
        startTime: at(mon, 9),
        endTime: at(mon, 10),
        customer,
      }),
      201,
    );
    const early = await call({ reservationId: booked.id, status: 'no_show' });
    assert.equal(early.isError, true);
    assert.equal((early.structuredContent as { error: { code: string } }).error.code, 'INVALID_TRANSITION');

    // The booking as if its hour had passed (the agent's credential keeps the real clock).
    const hourAgo = new Date(Date.now() - 3_600_000).toISOString();
    await db.kysely
      .updateTable('reservations')
      .set({ startTime: hourAgo, endTime: new Date().toISOString() })
      .where('id', '=', booked.id)
      .execute();
    const marked = await call({ reservationId: booked.id, status: 'no_show' });
    assert.equal(marked.isError, undefined);
    assert.equal((marked.structuredContent as { attendance: string }).attendance, 'no_show');
  });
});
