import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { z } from 'zod';
import type { ToolDefinition } from '../../src/mcp/types.js';
import { createTestDatabase } from '../helpers/app.js';
import {
  connectClient,
  fakeTools,
  KEYS,
  type McpTestServer,
  newDirectory,
  startMcpServer,
} from '../helpers/mcp.js';
import {
  type CheckedClient,
  checkToolResult,
  ERROR_RESULT_SCHEMA,
  strictAjv,
  unzonedTimes,
} from '../helpers/tool-result-check.js';

const SNAP_DIR = join(import.meta.dirname, '..', '__toolsnaps__');

/** Typed results (DECISIONS.md "MCP frontier"): what the published schemas promise, held. */
describe('MCP typed results', () => {
  test('every published outputSchema (and the error shape) compiles with strict ajv', () => {
    const ajv = strictAjv();
    const files = readdirSync(SNAP_DIR).filter((file) => file.endsWith('.snap.json'));
    assert.ok(files.length > 80, 'the snapshots are there');
    for (const file of files) {
      const { outputSchema } = JSON.parse(readFileSync(join(SNAP_DIR, file), 'utf8'));
      assert.equal(outputSchema.type, 'object', `${file}: MCP wants an object root`);
      assert.doesNotThrow(() => ajv.compile(outputSchema), file);
    }
    assert.doesNotThrow(() => ajv.compile(ERROR_RESULT_SCHEMA));
  });

  test('the check refuses a result that breaks its schema, a malformed error and a stray INTERNAL', () => {
    const schema = {
      type: 'object',
      properties: { startsAt: { type: 'string', format: 'date-time' } },
      required: ['startsAt'],
      additionalProperties: false,
    };
    const result = (structuredContent: unknown, isError = false) => ({
      isError,
      structuredContent,
      content: [{ type: 'text', text: JSON.stringify(structuredContent) }],
    });
    checkToolResult('t', result({ startsAt: '2026-03-03T09:00:00Z' }), schema);
    // A wall time without its zone is no date-time.
    assert.throws(
      () => checkToolResult('t', result({ startsAt: '2026-03-03T10:00:00' }), schema),
      /t: times without their zone/,
    );
    assert.throws(() => checkToolResult('t', result({ startsAt: 'x', extra: 1 }), schema), /breaks/);
    assert.throws(() => checkToolResult('t', result({ startsAt: 'soon' }), schema), /t: the result breaks/);
    assert.throws(() =>
      checkToolResult('t', result({ error: { code: 'NOPE', message: 'm' } }, true), schema),
    );
    const internal = result({ error: { code: 'INTERNAL', message: 'Internal error' } }, true);
    assert.throws(() => checkToolResult('t', internal, schema), /t answered INTERNAL/);
    checkToolResult('t', internal, schema, true);
    // The text content for older clients carries the same JSON.
    const drifted = {
      ...result({ startsAt: '2026-03-03T09:00:00Z' }),
      content: [{ type: 'text', text: '{}' }],
    };
    assert.throws(() => checkToolResult('t', drifted, schema), /text content/);
  });

  test('times carry their zone: an instant has Z or an offset, a local time or date a zone named beside it', () => {
    assert.deepEqual(
      unzonedTimes({ at: '2026-03-03T09:00:00.000Z', local: '2026-03-03T10:00:00+01:00' }),
      [],
    );
    assert.deepEqual(unzonedTimes({ at: '2026-03-03T10:00:00' }), ['.at: 2026-03-03T10:00:00 has no zone']);
    const hours = { operatingHours: [{ dayOfWeek: 1, openTime: '09:00', closeTime: '17:00' }] };
    assert.equal(unzonedTimes(hours).length, 2);
    assert.deepEqual(unzonedTimes({ timezone: 'Europe/Berlin', schedule: hours }), []);
    assert.deepEqual(unzonedTimes({ occurrenceDate: '2025-06-09', timeZone: 'UTC' }), []);
    assert.deepEqual(
      unzonedTimes({ note: 'the later is 2026-10-25T02:30:00+01:00' }),
      [],
      'only whole values',
    );
  });

  describe('a tool whose output breaks its schema', () => {
    let server: McpTestServer;
    let dropDb: () => Promise<void>;
    let client: CheckedClient;
    const lines: string[] = [];
    const offContract: ToolDefinition = {
      actionKey: 'test.echo',
      title: 'Echo',
      description: 'Answers a number where its schema promises text.',
      input: z.object({}),
      output: z.object({ echo: z.string() }),
      run: async () => ({ echo: 42 }),
    };
    // Checked against its published schema first (src/mcp/output-check.ts): the undeclared key
    // fails that check, and the Zod schema then decides what is sent.
    const undeclaredKey: ToolDefinition = {
      actionKey: 'test.undeclared',
      title: 'Undeclared',
      description: 'Answers a key its schema does not declare.',
      alwaysAllowed: true,
      input: z.object({}),
      output: z.object({ echo: z.string() }),
      run: async () => ({ echo: 'shown', internalNote: 'never sent' }),
    };

    before(async () => {
      const { db, drop } = await createTestDatabase();
      dropDb = drop;
      const tools = [
        ...fakeTools().filter((tool) => tool.actionKey !== 'test.echo'),
        offContract,
        undeclaredKey,
      ];
      server = await startMcpServer(db, newDirectory(), { tools }, { write: (line) => lines.push(line) });
      client = (await connectClient(server.url, { 'x-agent-key': KEYS.a })).client;
    });
    after(async () => {
      await client.close();
      await server.close();
      await dropDb();
    });

    test('answers a server error (INTERNAL), never the result, and the log names the tool', async () => {
      const result = await client.expectingInternal(() =>
        client.callTool({ name: 'test_echo', arguments: {} }),
      );
      assert.equal(result.isError, true);
      assert.deepEqual(result.structuredContent, { error: { code: 'INTERNAL', message: 'Internal error' } });
      assert.doesNotMatch(JSON.stringify(result), /42/);
      const logged = lines.map((line) => JSON.parse(line)).find((entry) => entry.tool === 'test_echo');
      assert.ok(logged, lines.join('\n'));
      assert.equal(logged.msg, 'MCP tool output does not match its schema');
      assert.match(logged.issues, /echo/);
    });

    test('sends what the schema declares of an output, never a key it does not', async () => {
      const result = await client.callTool({ name: 'test_undeclared', arguments: {} });
      assert.deepEqual(result.structuredContent, { echo: 'shown' });
      assert.doesNotMatch(JSON.stringify(result), /internalNote|never sent/);
    });

    test('the shared test client fails the test that did not expect it', async () => {
      await assert.rejects(
        client.callTool({ name: 'test_echo', arguments: {} }),
        /test_echo answered INTERNAL/,
      );
    });
  });
});
