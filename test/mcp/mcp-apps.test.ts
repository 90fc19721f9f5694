import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/client';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { createTestDatabase, type SignedInUser } from '../helpers/app.js';
import { as, expectStatus } from '../helpers/http.js';
import { connectClient, MCP_TEST_ENV } from '../helpers/mcp.js';
import { ownerWithOrganisation } from '../helpers/organisations.js';

/**
 * MCP Apps (src/mcp/apps.ts): the slot picker is a `ui://` resource of the MCP App mime type,
 * read from the web app's build at start, linked from the availability tools' `_meta`, and
 * listed and readable for an agent that may call one of them, on both protocol eras.
 */

const PICKER = 'ui://booking/slot-picker';
const APP_MIME = 'text/html;profile=mcp-app';
const LINKED = ['availability_explain', 'availability_resourceType_read', 'availability_resource_read'];
/** Stands in for the built picker: what is read is what was built. */
const BUILT_HTML = '<!doctype html><html lang="en"><title>Slot picker</title><p>built picker</p></html>';

describe('MCP Apps: the slot picker resource', () => {
  let app: FastifyInstance;
  let url: URL;
  let owner: SignedInUser;
  let frontendRoot: string;
  let dropDb: () => Promise<void>;
  const clients: Client[] = [];

  before(async () => {
    frontendRoot = mkdtempSync(join(tmpdir(), 'mcp-apps-'));
    mkdirSync(join(frontendRoot, 'mcp-apps'));
    writeFileSync(join(frontendRoot, 'mcp-apps', 'slot-picker.html'), BUILT_HTML);
    const { db, drop } = await createTestDatabase();
    dropDb = drop;
    app = await buildApp(loadConfig(MCP_TEST_ENV), { db, logger: false, frontendRoot });
    await app.listen({ port: 0, host: '127.0.0.1' });
    const address = app.server.address();
    if (!address || typeof address === 'string') throw new Error('no port');
    url = new URL(`http://127.0.0.1:${address.port}/api/mcp`);
    owner = await ownerWithOrganisation(app, { name: 'Apps', timezone: 'UTC' });
  });
  after(async () => {
    await Promise.all(clients.map((client) => client.close().catch(() => {})));
    await app.close();
    await dropDb();
    rmSync(frontendRoot, { recursive: true, force: true });
  });

  /** A new agent of the owner holding exactly `actionKeys`, connected on `era`. */
  async function agentHolding(actionKeys: string[], era: 'legacy' | 'modern'): Promise<Client> {
    const agent = expectStatus(await as(app, owner).post('/api/agents', { name: 'Picker' }), 201);
    const permissions = actionKeys.map((actionKey) => ({ actionKey }));
    const put = await app.inject({
      method: 'PUT',
      url: `/api/agents/${agent.id}/permissions`,
      headers: owner.auth,
      payload: { permissions },
    });
    expectStatus(put, 200);
    const { key } = expectStatus(
      await as(app, owner).post(`/api/agents/${agent.id}/keys`, { label: 'k' }),
      201,
    );
    const { client } = await connectClient(url, { 'x-agent-key': key }, era);
    clients.push(client);
    return client;
  }

  for (const era of ['legacy', 'modern'] as const) {
    test(`${era}: listed, read as the MCP App mime type, linked from the availability tools`, async () => {
      const client = await agentHolding(
        [
          'availability.resource.read',
          'availability.resourceType.read',
          'availability.explain',
          'reservations.create',
        ],
        era,
      );
      const { resources } = await client.listResources();
      const picker = resources.find((resource) => resource.uri === PICKER);
      assert.equal(picker?.mimeType, APP_MIME);
      assert.equal(picker?.name, 'Slot picker');

      const { contents } = await client.readResource({ uri: PICKER });
      assert.deepEqual(contents, [{ uri: PICKER, mimeType: APP_MIME, text: BUILT_HTML }]);

      const { tools } = await client.listTools();
      const linked = tools.filter((tool) => tool._meta?.ui !== undefined);
      assert.deepEqual(linked.map((tool) => tool.name).sort(), LINKED);
      for (const tool of linked)
        assert.deepEqual(tool._meta, { ui: { resourceUri: PICKER }, 'ui/resourceUri': PICKER }, tool.name);
      const booking = tools.find((tool) => tool.name === 'reservations_create');
      assert.equal(booking?._meta, undefined, 'the booking tool shows no app');
    });

    test(`${era}: an agent that may call none of the linked tools neither lists nor reads it`, async () => {
      const client = await agentHolding(['reservations.list'], era);
      const { resources } = await client.listResources();
      assert.ok(!resources.some((resource) => resource.uri === PICKER));
      await assert.rejects(client.readResource({ uri: PICKER }), /not found/i);
    });
  }
});
