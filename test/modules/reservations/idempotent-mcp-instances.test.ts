import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/client';
import type { FastifyInstance } from 'fastify';
import type { Db } from '../../../src/db/database.js';
import { twoInstances } from '../../helpers/app.js';
import { at, customer, futureMonday } from '../../helpers/booking.js';
import { createResource, createType } from '../../helpers/catalogue.js';
import { as, expectStatus } from '../../helpers/http.js';
import { connectClient, type Era, MCP_TEST_ENV } from '../../helpers/mcp.js';
import { type OrgOwner, ownerWithOrganisation } from '../../helpers/organisations.js';

type ToolResult = { isError?: boolean; structuredContent?: unknown; content?: unknown };

// Two instances on one PostgreSQL database: the PostgreSQL pass of the suite runs this.
if (process.env.TEST_DATABASE_URL)
  describe('idempotent tool calls across two instances on PostgreSQL', () => {
    let first: FastifyInstance;
    let second: FastifyInstance;
    let db: Db;
    let close: () => Promise<void>;
    let owner: OrgOwner;
    let agentKey: string;
    const clients: Client[] = [];

    const urlOf = (app: FastifyInstance) =>
      new URL(`http://127.0.0.1:${(app.server.address() as { port: number }).port}/api/mcp`);
    async function connect(app: FastifyInstance, era: Era) {
      const { client } = await connectClient(urlOf(app), { 'x-agent-key': agentKey }, era);
      clients.push(client);
      return (args: Record<string, unknown>) =>
        client.callTool({ name: 'reservations_create', arguments: args }) as Promise<ToolResult>;
    }

    before(async () => {
      ({ first, second, db, close } = await twoInstances(MCP_TEST_ENV, { listen: true }));
      owner = await ownerWithOrganisation(first, { timezone: 'UTC' });
      const agent = expectStatus(
        await as(first, owner).post('/api/agents', {
          name: 'Racer',
          permissionGroupId: 'reservations_operator',
        }),
        201,
      );
      agentKey = expectStatus(
        await as(first, owner).post(`/api/agents/${agent.id}/keys`, { label: 'k' }),
        201,
      ).key;
    });
    after(async () => {
      for (const client of clients) await client.close().catch(() => {});
      await close();
    });

    for (const eras of [
      ['legacy', 'legacy'],
      ['modern', 'modern'],
      ['legacy', 'modern'],
    ] as const)
      test(`the same key raced on both instances (${eras.join(' and ')}) books once; both answer it`, async () => {
        const type = await createType(first, owner);
        const rooms = await Promise.all(
          [1, 2, 3].map((n) => createResource(first, owner, { name: `Raced ${n}`, resourceTypeId: type.id })),
        );
        const onFirst = await connect(first, eras[0]);
        const onSecond = await connect(second, eras[1]);
        for (const room of rooms) {
          const args = {
            resourceId: room.id,
            startTime: at(futureMonday(), 9),
            endTime: at(futureMonday(), 10),
            customer,
            idempotencyKey: `race-${eras.join('-')}-${room.id}`,
          };
          const [a, b] = await Promise.all([onFirst(args), onSecond(args)]);
          assert.equal(a.isError, undefined, JSON.stringify(a.structuredContent));
          assert.deepEqual([b.structuredContent, b.content], [a.structuredContent, a.content]);
          const kept = await db.kysely
            .selectFrom('reservations')
            .select('id')
            .where('resourceId', '=', room.id)
            .execute();
          assert.deepEqual(
            kept.map((r) => r.id),
            [(a.structuredContent as { id: number }).id],
          );
        }
      });
  });
