// PostgreSQL: each round-robin booking of a type takes the type's turn until its commit, so the
// picks that arrive while one of an instance's is on its way wait for it and then go together,
// one statement for all (round-robin-insert.ts, migration 0080's function). Shown with the turn held by another session:
// the first pick waits for the turn, the others for the first.

import assert from 'node:assert/strict';
import { after, before, describe, mock, test } from 'node:test';
import { type Kysely, sql } from 'kysely';
import type { Database } from '../../../src/db/types.js';
import { ASSIGNMENT_LOCKS } from '../../../src/modules/reservations/round-robin-counts.js';
import { createTestApp, type TestApp } from '../../helpers/app.js';
import { book, customer, halfHourAfterHalfHour } from '../../helpers/booking.js';
import { roundRobinTeam } from '../../helpers/catalogue.js';
import { expectStatus } from '../../helpers/http.js';
import { type OrgOwner, ownerWithOrganisation } from '../../helpers/organisations.js';
import { otherBackends } from '../../helpers/pg-backends.js';
import { statementsInto } from '../../helpers/statements.js';
import { eventually } from '../../helpers/wait.js';

const BOOKINGS = 6;
const isPick = (statement: string) => statement.includes('reservations_round_robin_pick(');

if (process.env.TEST_DATABASE_URL)
  describe('round-robin picks waiting for their turn', () => {
    let t: TestApp;
    let owner: OrgOwner;
    before(async () => {
      t = await createTestApp();
      owner = await ownerWithOrganisation(t.app, { timezone: 'UTC' });
    });
    after(() => t.close());

    /** A round-robin pool of three, booked once already: every booking below reads and writes alike before its pick. */
    async function team() {
      const { typeId } = await roundRobinTeam(t.app, owner, ['A', 'B', 'C']);
      const slot = halfHourAfterHalfHour();
      const bookOne = () => book(t.app, owner, { resourceTypeId: typeId, ...slot(), customer });
      expectStatus(await bookOne(), 201);
      return { typeId, bookOne };
    }

    /**
     * `BOOKINGS` bookings sent while another session holds the type's turn, each one's
     * statements in its own list; the turn is handed back once the first pick waits for it and
     * the others wait for the first (they send nothing more, and the database runs nothing else).
     */
    async function bookedWhileTurnHeld(typeId: number, bookOne: () => ReturnType<typeof book>) {
      const lists = Array.from({ length: BOOKINGS }, () => [] as string[]);
      const answers = await t.db.kysely.connection().execute(async (holder) => {
        await sql`select pg_advisory_lock(${ASSIGNMENT_LOCKS}, ${typeId})`.execute(holder);
        const calls = lists.map((list) => statementsInto(list, bookOne));
        await eventually(async () => {
          const leader = lists.find((list) => list.some(isPick));
          if (!leader) return false;
          const beforePick = leader.findIndex(isPick);
          const queued = lists.every(
            (list) => list === leader || (!list.some(isPick) && list.length === beforePick),
          );
          return queued && (await otherBackends(holder)).filter((backend) => backend.active).length === 1;
        });
        await sql`select pg_advisory_unlock(${ASSIGNMENT_LOCKS}, ${typeId})`.execute(holder);
        return Promise.all(calls);
      });
      return { lists, lanes: answers.map((answer) => expectStatus(answer, 201).resourceId as number) };
    }

    test('the picks waiting for one on its way go together: one transaction, spread as round robin spreads them', async () => {
      const { typeId, bookOne } = await team();
      const { lists, lanes } = await bookedWhileTurnHeld(typeId, bookOne);

      const leader = lists.find((list) => list.some(isPick))!;
      assert.deepEqual(
        leader.slice(leader.findIndex(isPick)).filter(isPick).length,
        2,
        'the first pick alone, then one statement for the five that waited for it',
      );
      assert.equal(lists.flat().filter(isPick).length, 2, 'no pick of its own for a booking that waited');
      // With the booking before: 7 over 3 lanes, each having 2 or 3.
      const perLane = [...lanes.reduce((n, lane) => n.set(lane, (n.get(lane) ?? 0) + 1), new Map()).values()];
      assert.equal(perLane.length, 3);
      assert.ok(Math.max(...perLane) - Math.min(...perLane) <= 1, `spread evenly: ${perLane}`);
    });

    test('a group the database refuses books each of its bookings alone', async () => {
      const { typeId, bookOne } = await team();
      // The group's statement is refused, as a deadlock would refuse it.
      const kysely = t.db.kysely as Kysely<Database>;
      const executeQuery = kysely.executeQuery.bind(kysely);
      let refused = 0;
      mock.method(kysely, 'executeQuery', (query: { sql: string; parameters: readonly unknown[] }) => {
        const group = isPick(query.sql) && JSON.parse(String(query.parameters[1])).length > 1;
        if (group && ++refused)
          return Promise.reject(Object.assign(new Error('deadlock detected'), { code: '40P01' }));
        return executeQuery(query as never);
      });
      try {
        const { lists, lanes } = await bookedWhileTurnHeld(typeId, bookOne);
        const leader = lists.find((list) => list.some(isPick))!;
        assert.equal(refused, 1, 'the five that waited went as one group, refused');
        assert.equal(
          leader.filter(isPick).length,
          // Refused before it reached the database: the first alone, then each of the five alone.
          1 + (BOOKINGS - 1),
          'each of the refused group alone',
        );
        assert.equal(new Set(lanes).size, 3, 'all booked, over every lane');
        const { rows } = await sql<{ n: number }>`select count(*)::int as n from reservations
          where resource_type_id = ${typeId}`.execute(t.db.kysely);
        assert.equal(rows[0]!.n, BOOKINGS + 1, 'no booking twice, none lost');
      } finally {
        mock.restoreAll();
      }
    });
  });
