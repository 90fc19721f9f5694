// Counting an agent's calls against its daily limits (src/modules/agents/daily-limits.ts): SQLite
// counts in a transaction, PostgreSQL in one statement (migration 0079), so that one agent's
// concurrent calls hold its window's lock for a statement each, not for a transaction of round
// trips. Both must count alike: the moving window, every use or none, the refusal and when it frees.
import assert from 'node:assert/strict';
import { after, afterEach, before, describe, mock, test } from 'node:test';
import type { AgentService, LimitUse } from '../../../src/modules/agents/service.js';
import { createTestApp, registerUser, type SignedInUser, type TestApp } from '../../helpers/app.js';
import { newAgent } from '../../helpers/mcp.js';
import { otherBackends } from '../../helpers/pg-backends.js';
import { roundTripsOf, statementsInto } from '../../helpers/statements.js';
import { eventually } from '../../helpers/wait.js';

const DAY = 86_400_000;
const HOUR = 3_600_000;
const pg = () => Boolean(process.env.TEST_DATABASE_URL);

let t: TestApp;
let owner: SignedInUser;
let agents: AgentService;
before(async () => {
  t = await createTestApp();
  owner = await registerUser(t.app);
  agents = t.app.services.agents;
});
after(() => t.close());
afterEach(() => mock.timers.reset());

const newAgentId = async () => (await newAgent(t.app, owner, { permissionGroupId: 'all_read_only' })).id;
const bookings = (amount: number, limit: number): LimitUse => ({ kind: 'booking', amount, limit });
const spend = (amount: number, limit: number): LimitUse => ({ kind: 'spend', amount, limit });
const iso = (ms: number) => new Date(ms).toISOString();

/** The agent's window row and what its uses after the window's start add up to, by kind. */
async function windowOf(agentId: number) {
  const window = await t.db.kysely
    .selectFrom('agentUsageWindows')
    .select(['since', 'bookingUsed', 'cancellationUsed', 'spendUsed'])
    .where('agentId', '=', agentId)
    .executeTakeFirstOrThrow();
  const uses = await t.db.kysely
    .selectFrom('agentUsage')
    .select(['kind', 'amount', 'createdAt'])
    .where('agentId', '=', agentId)
    .execute();
  const summed = { booking: 0, cancellation: 0, spend: 0 };
  for (const use of uses)
    if (window.since === null || Date.parse(use.createdAt) > Date.parse(window.since))
      summed[use.kind] += use.amount;
  return {
    kept: { booking: window.bookingUsed, cancellation: window.cancellationUsed, spend: window.spendUsed },
    summed,
  };
}

describe('round trips', () => {
  test('a count, a refusal and a give-back are one statement each on PostgreSQL', async () => {
    const agentId = await newAgentId();
    const uses = [bookings(1, 2), spend(500, 1000)];
    const counted = await roundTripsOf(() => agents.reserveUsage(agentId, uses));
    assert.equal(counted.result.ok, true);
    // SQLite: the window locked, its uses summed, a use inserted each, the window saved.
    assert.equal(counted.statements.length, pg() ? 1 : 3 + uses.length, counted.statements.join('\n'));
    if (pg()) assert.match(counted.statements[0]!, /agent_usage_reserve_calls/);

    const refused = await roundTripsOf(() =>
      agents.reserveUsage(agentId, [bookings(1, 2), spend(600, 1000)]),
    );
    assert.equal(refused.result.ok, false);
    // SQLite: the window locked, its uses since the last count summed, a use inserted, the spend read.
    assert.equal(refused.statements.length, pg() ? 1 : 4, refused.statements.join('\n'));

    const ids = counted.result.ok ? counted.result.ids : [];
    const released = await roundTripsOf(() => agents.releaseUsage(agentId, ids));
    assert.equal(released.statements.length, pg() ? 1 : 3, released.statements.join('\n'));
    if (pg()) assert.match(released.statements[0]!, /agent_usage_release/);
  });
  if (pg())
    test('counts of one agent arriving while one is on its way go together, one statement for all', async () => {
      const agentId = await newAgentId();
      assert.equal((await agents.reserveUsage(agentId, [bookings(1, 4)])).ok, true);
      const lists = Array.from({ length: 5 }, () => [] as string[]);
      // The window's row held by another session: the first count waits for it, the others for the first.
      const calls = await t.db.kysely.transaction().execute(async (holder) => {
        await holder
          .selectFrom('agentUsageWindows')
          .select('agentId')
          .where('agentId', '=', agentId)
          .forUpdate()
          .execute();
        const sent = lists.map((list) =>
          statementsInto(list, () => agents.reserveUsage(agentId, [bookings(1, 4)])),
        );
        await eventually(
          async () =>
            (await otherBackends(t.db.kysely)).filter((backend) => backend.waitingForLock).length === 1,
        );
        return sent;
      });
      const answers = await Promise.all(calls);
      assert.deepEqual(
        lists.map((list) => list.length),
        [2, 0, 0, 0, 0],
        'the first alone, then one statement for the four that waited for it',
      );
      assert.deepEqual(
        answers.map((answer) => answer.ok),
        [true, true, true, false, false],
        'counted in order of arrival: 3 of 4 were left',
      );
      const { kept, summed } = await windowOf(agentId);
      assert.deepEqual(kept, { booking: 4, cancellation: 0, spend: 0 });
      assert.deepEqual(summed, kept);
    });
});

describe('counting', () => {
  test('concurrent calls of one agent: exactly the limit passes, the rest are refused with when it frees', async () => {
    const agentId = await newAgentId();
    const limit = 7;
    const answers = await Promise.all(
      Array.from({ length: 20 }, () => agents.reserveUsage(agentId, [bookings(1, limit), spend(10, 1000)])),
    );
    const passed = answers.filter((answer) => answer.ok);
    assert.equal(passed.length, limit);
    const ids = passed.flatMap((answer) => (answer.ok ? answer.ids : []));
    assert.equal(new Set(ids).size, 2 * limit, 'a booking and a spend row for each call that passed');
    const firstUse = (
      await t.db.kysely
        .selectFrom('agentUsage')
        .select('createdAt')
        .where('agentId', '=', agentId)
        .where('kind', '=', 'booking')
        .orderBy('createdAt')
        .orderBy('id')
        .executeTakeFirstOrThrow()
    ).createdAt;
    for (const answer of answers.filter((a) => !a.ok))
      assert.deepEqual(answer, {
        ok: false,
        kind: 'booking',
        limit,
        freesAt: iso(Date.parse(firstUse) + DAY),
      });
    const { kept, summed } = await windowOf(agentId);
    assert.deepEqual(kept, { booking: limit, cancellation: 0, spend: 10 * limit });
    assert.deepEqual(summed, kept);
  });

  test('every use or none; a refusal tells when enough of the window frees, the oldest uses leaving first', async () => {
    const start = Date.parse('2030-03-01T09:00:00.000Z');
    const agentId = await newAgentId();
    mock.timers.enable({ apis: ['Date'], now: start });
    assert.equal((await agents.reserveUsage(agentId, [bookings(2, 3), spend(500, 1000)])).ok, true);
    mock.timers.setTime(start + HOUR);
    // The spend does not fit: the booking counted before it goes too.
    assert.deepEqual(await agents.reserveUsage(agentId, [bookings(1, 3), spend(600, 1000)]), {
      ok: false,
      kind: 'spend',
      limit: 1000,
      freesAt: iso(start + DAY),
    });
    assert.deepEqual((await windowOf(agentId)).summed, { booking: 2, cancellation: 0, spend: 500 });
    const third = await agents.reserveUsage(agentId, [bookings(1, 3)]);
    assert.equal(third.ok, true);
    // Full at 3: one more frees when the first use (2) leaves, three more when the second does too, four never.
    const refusal = async (amount: number) => {
      const answer = await agents.reserveUsage(agentId, [bookings(amount, 3)]);
      assert.equal(answer.ok, false);
      return answer.ok ? undefined : answer.freesAt;
    };
    assert.equal(await refusal(1), iso(start + DAY));
    assert.equal(await refusal(3), iso(start + HOUR + DAY));
    assert.equal(await refusal(4), null);
    // A use given back counts no more.
    await agents.releaseUsage(agentId, third.ok ? third.ids : []);
    const { kept, summed } = await windowOf(agentId);
    assert.deepEqual(kept, { booking: 2, cancellation: 0, spend: 500 });
    assert.deepEqual(summed, kept);
    assert.equal((await agents.reserveUsage(agentId, [bookings(1, 3)])).ok, true);
  });

  test('the window moves with the clock, and is summed whole when over a day old or ahead of the clock', async () => {
    const start = Date.parse('2030-03-01T09:00:00.000Z');
    const agentId = await newAgentId();
    mock.timers.enable({ apis: ['Date'], now: start });
    const book = (amount: number) => agents.reserveUsage(agentId, [bookings(amount, 3)]);
    assert.equal((await book(2)).ok, true);
    mock.timers.setTime(start + HOUR);
    assert.equal((await book(1)).ok, true);
    assert.equal((await book(1)).ok, false);
    // A day after the first use it has left the window (moved forward, not summed again).
    mock.timers.setTime(start + DAY + 1);
    assert.equal((await book(3)).ok, false);
    assert.equal((await book(2)).ok, true);
    assert.deepEqual((await windowOf(agentId)).kept, { booking: 3, cancellation: 0, spend: 0 });
    // A clock behind the last count (another instance's) sums the whole window: the first use counts
    // again (5 of 3), so one more fits once the first two uses have left.
    mock.timers.setTime(start + HOUR / 2);
    assert.deepEqual(await book(1), {
      ok: false,
      kind: 'booking',
      limit: 3,
      freesAt: iso(start + HOUR + DAY),
    });
    mock.timers.setTime(start + DAY + 2);
    const { kept, summed } = await windowOf(agentId);
    assert.deepEqual(kept, summed);
    assert.equal((await book(1)).ok, false);
    // Three days on, every use has left: a window over a day old is summed whole, to nothing.
    mock.timers.setTime(start + 3 * DAY);
    assert.equal((await book(3)).ok, true);
    assert.deepEqual((await windowOf(agentId)).kept, { booking: 3, cancellation: 0, spend: 0 });
  });
});
