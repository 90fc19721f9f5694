import assert from 'node:assert/strict';
import { after, afterEach, before, describe, mock, test } from 'node:test';
import { createTestApp, type TestApp } from '../../helpers/app.js';
import { at, customer, futureMonday } from '../../helpers/booking.js';
import { createResource, createType } from '../../helpers/catalogue.js';
import { as, expectStatus } from '../../helpers/http.js';
import { type OrgOwner, ownerWithOrganisation } from '../../helpers/organisations.js';

/**
 * The no-double-booking guarantee across every status: 50 clients racing for one slot on
 * 3 lanes with holds, hold-then-confirm pairs, plain bookings and confirms of holds that
 * just lapsed end with exactly 3 reservations keeping the time, one per lane. The lapsed
 * holds still say `held` in their rows when the race starts, so on PostgreSQL every
 * winner first meets the exclusion constraint refusing them.
 */
describe('holds in the booking race', () => {
  let t: TestApp;
  let owner: OrgOwner;
  before(async () => {
    t = await createTestApp();
    owner = await ownerWithOrganisation(t.app, { timezone: 'UTC' });
    const { key } = expectStatus(await as(t.app, owner).post('/api/auth/api-keys', { label: 'race' }), 201);
    owner = { ...owner, auth: { authorization: `ApiKey ${key}` } };
  });
  after(() => t.close());
  afterEach(() => mock.timers.reset());

  test('50 clients mixing holds, confirms and creates on 3 lanes leave exactly 3 live reservations', async () => {
    const start = Date.now();
    mock.timers.enable({ apis: ['Date'], now: start });
    const type = await createType(t.app, owner, { bookingMode: 'POOL', bufferTime: 10 });
    const parent = await createResource(t.app, owner, { name: 'Trio', resourceTypeId: type.id, capacity: 3 });
    const mon = futureMonday();
    const slot = { resourceTypeId: type.id, startTime: at(mon, 13), endTime: at(mon, 14) };
    const post = (url: string, payload?: Record<string, unknown>) => as(t.app, owner).post(url, payload);

    // Every lane held, then the holds lapse: the race starts at their expiresAt.
    const lapsed: Array<{ id: number; resourceId: number }> = [];
    for (let lane = 0; lane < 3; lane++)
      lapsed.push(
        expectStatus(await post('/api/reservations/holds', { customer, ...slot, holdSeconds: 60 }), 201),
      );
    assert.equal(new Set(lapsed.map((h) => h.resourceId)).size, 3);
    mock.timers.setTime(start + 60_000);

    const outcomes = await Promise.all(
      Array.from({ length: 50 }, async (_, i) => {
        switch (i % 5) {
          case 0: {
            const late = await post(`/api/reservations/${lapsed[i % 3]!.id}/confirm`);
            return { kind: 'late confirm', codes: [late.statusCode], error: late.json().error?.code };
          }
          case 1:
          case 2: {
            const held = await post('/api/reservations/holds', { customer, ...slot });
            if (held.statusCode !== 201 || i % 5 === 2)
              return { kind: 'hold', codes: [held.statusCode], error: held.json().error?.code };
            const confirmed = await post(`/api/reservations/${held.json().id}/confirm`);
            return { kind: 'hold+confirm', codes: [201, confirmed.statusCode], error: undefined };
          }
          default: {
            const booked = await post('/api/reservations', { customer, ...slot });
            return { kind: 'create', codes: [booked.statusCode], error: booked.json().error?.code };
          }
        }
      }),
    );

    for (const outcome of outcomes) {
      if (outcome.kind === 'late confirm')
        assert.deepEqual([outcome.codes, outcome.error], [[409], 'HOLD_EXPIRED']);
      else if (outcome.kind === 'hold+confirm')
        assert.deepEqual(outcome.codes, [201, 200], 'a won hold confirms');
      else if (outcome.codes[0] !== 201)
        assert.deepEqual([outcome.codes, outcome.error], [[409], 'SLOT_UNAVAILABLE']);
    }
    const won = outcomes.filter((o) => o.kind !== 'late confirm' && o.codes[0] === 201);
    assert.equal(won.length, 3, JSON.stringify(outcomes));

    const rows = await t.db.kysely
      .selectFrom('reservations')
      .innerJoin('resources', 'resources.id', 'reservations.resourceId')
      .select(['reservations.id', 'reservations.resourceId', 'reservations.status', 'reservations.expiresAt'])
      .where('resources.parentResourceId', '=', parent.id)
      .execute();
    const live = rows.filter(
      (r) =>
        r.status === 'confirmed' ||
        ((r.status === 'held' || r.status === 'pending_payment') && Date.parse(r.expiresAt!) > Date.now()),
    );
    assert.equal(live.length, 3, JSON.stringify(rows));
    assert.equal(new Set(live.map((r) => r.resourceId)).size, 3, 'one per lane');
    // Each winner marked the lapsed hold of its lane; none of them was confirmed.
    for (const old of lapsed) {
      const row = rows.find((r) => r.id === old.id)!;
      assert.deepEqual([row.status, row.expiresAt], ['expired', null]);
    }
    const answer = expectStatus(
      await as(t.app, owner).get(
        `/api/resource-types/${type.id}/availability?from=${encodeURIComponent(slot.startTime)}&to=${encodeURIComponent(slot.endTime)}`,
      ),
      200,
    );
    assert.deepEqual(answer.pool.windows, [], 'the slot is full');
  });
});
