import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { ACTIONS, riskOf } from '../../src/catalogue.js';
import { compileTools, toolListing } from '../../src/mcp/server.js';
import { createTools } from '../../src/tools.js';
import { createTestApp, type TestApp } from '../helpers/app.js';

/**
 * The tool contract in review: every tool's name, description, schemas and
 * annotations are checked in under test/__toolsnaps__, one file per tool, as
 * github-mcp-server does. A changed contract fails here until the snapshots are
 * regenerated on purpose: `UPDATE_TOOLSNAPS=1 npm test -- test/mcp/tools.test.ts`.
 */
const SNAP_DIR = join(import.meta.dirname, '..', '__toolsnaps__');
const updating = process.env.UPDATE_TOOLSNAPS === '1';

describe('MCP tool catalogue', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp();
  });
  after(() => t.close());

  test('every catalogue action has exactly one tool, and every tool is a catalogue action', () => {
    const toolKeys = createTools(t.app.services).map((tool) => tool.actionKey);
    assert.equal(new Set(toolKeys).size, toolKeys.length, 'no action has two tools');
    assert.deepEqual([...toolKeys].sort(), ACTIONS.map((action) => action.key).sort());
  });

  test('every tool matches its checked-in snapshot', () => {
    // As the app lists them: a writing tool may answer the approval instead (agents' policies).
    const catalogue = compileTools(createTools(t.app.services), riskOf, { approvals: true });
    if (updating) mkdirSync(SNAP_DIR, { recursive: true });
    const names = [...catalogue.byName.keys()].sort();
    for (const name of names) {
      const tool = catalogue.byName.get(name)!;
      const snapshot = {
        name,
        title: tool.definition.title,
        description: tool.definition.description,
        annotations: tool.annotations,
        inputSchema: tool.inputSchema,
        outputSchema: tool.outputSchema,
        // The MCP App a host shows its result in, when it has one (src/mcp/apps.ts).
        ...(tool.definition.app ? { _meta: toolListing(tool)._meta } : {}),
      };
      const file = join(SNAP_DIR, `${name}.snap.json`);
      if (updating) {
        writeFileSync(file, `${JSON.stringify(snapshot, null, 2)}\n`);
        continue;
      }
      assert.ok(
        existsSync(file),
        `${file} is missing: run UPDATE_TOOLSNAPS=1 npm test -- test/mcp/tools.test.ts`,
      );
      assert.deepEqual(snapshot, JSON.parse(readFileSync(file, 'utf8')), `the contract of ${name} changed`);
    }
    const stale = readdirSync(SNAP_DIR).filter((file) => !names.includes(file.replace(/\.snap\.json$/, '')));
    assert.deepEqual(stale, [], 'snapshots of tools that no longer exist');
  });
});
