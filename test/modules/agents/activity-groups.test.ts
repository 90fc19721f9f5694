// The record of agents' tool calls (src/modules/agents/activity-repo.ts): on PostgreSQL the
// rows of calls arriving while one is on its way go together, at most 16 to a statement; on
// SQLite each call writes its own row. Either way every call is recorded once, as it was made.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createTestApp, registerUser, type TestApp } from '../../helpers/app.js';
import { newAgent } from '../../helpers/mcp.js';
import { statementsOf } from '../../helpers/statements.js';

let t: TestApp;
before(async () => {
  t = await createTestApp();
});
after(() => t.close());

test('twenty concurrent calls: each recorded once, in groups of at most 16 on PostgreSQL', async () => {
  const owner = await registerUser(t.app);
  const agentId = (await newAgent(t.app, owner, { permissionGroupId: 'all_read_only' })).id;
  const keys = Array.from({ length: 20 }, (_, i) => `calendar.read.${i}`);
  const { statements } = await statementsOf(() =>
    Promise.all(
      keys.map((actionKey, i) =>
        t.app.services.agents.recordToolCall({
          agentId,
          actionKey,
          outcome: i % 2 === 0 ? 'ok' : 'error',
          errorCode: i % 2 === 0 ? null : 'NOT_FOUND',
          durationMs: i,
        }),
      ),
    ),
  );
  const inserts = statements.filter((statement) => /^insert into "agent_activity"/.test(statement));
  /** How many rows an insert's `values` list carries. */
  const rowsOf = (statement: string) => statement.split(/\)\s*,\s*\(/).length;
  // All twenty start at once: the first goes alone, the nineteen waiting for it as 16 and 3.
  const pg = Boolean(process.env.TEST_DATABASE_URL);
  assert.deepEqual(inserts.map(rowsOf), pg ? [1, 16, 3] : Array(20).fill(1));
  const rows = await t.db.kysely
    .selectFrom('agentActivity')
    .select(['actionKey', 'outcome', 'errorCode', 'durationMs'])
    .where('agentId', '=', agentId)
    .orderBy('durationMs')
    .execute();
  assert.deepEqual(
    rows,
    keys.map((actionKey, i) => ({
      actionKey,
      outcome: i % 2 === 0 ? 'ok' : 'error',
      errorCode: i % 2 === 0 ? null : 'NOT_FOUND',
      durationMs: i,
    })),
  );
});
