// GET /api/reservations: several statuses (repeated or comma-separated), a range, and `q`
// over the customer's name and email and the reference, the same answer on both databases.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestApp, type TestApp } from '../../helpers/app.js';
import { at, futureMonday } from '../../helpers/booking.js';
import { createResource, createType } from '../../helpers/catalogue.js';
import { type OrgOwner, ownerWithOrganisation } from '../../helpers/organisations.js';

interface Listed {
  id: number;
  reference: string;
  status: string;
}

describe('listing reservations: status, range and search', () => {
  let t: TestApp;
  let owner: OrgOwner;
  let room: { id: number };
  const mon = futureMonday();
  const booked: Record<string, Listed> = {};
  before(async () => {
    t = await createTestApp();
    owner = await ownerWithOrganisation(t.app, { name: 'Listing', timezone: 'UTC' });
    const type = await createType(t.app, owner, { minBookingDuration: 30 });
    room = await createResource(t.app, owner, { name: 'Room', resourceTypeId: type.id });
    const people = {
      grace: { name: 'Grace Hopper', email: 'grace@navy.example' },
      ada: { name: 'Ada Lovelace', email: 'ada@engine.example' },
      emile: { name: 'Émile 100%_Zola', email: 'emile@paris.example' },
      held: { name: 'Hal Held', email: 'hal@hold.example' },
    };
    let hour = 9;
    for (const [key, customer] of Object.entries(people)) {
      const url = key === 'held' ? '/api/reservations/holds' : '/api/reservations';
      const r = await t.app.inject({
        method: 'POST',
        url,
        headers: owner.auth,
        payload: { resourceId: room.id, startTime: at(mon, hour), endTime: at(mon, hour + 1), customer },
      });
      assert.equal(r.statusCode, 201, r.body);
      booked[key] = r.json();
      hour += 1;
    }
    const cancelled = await t.app.inject({
      method: 'POST',
      url: `/api/reservations/${booked.ada!.id}/cancel`,
      headers: owner.auth,
      payload: {},
    });
    assert.equal(cancelled.statusCode, 200, cancelled.body);
  });
  after(() => t.close());

  const list = async (query: string) => {
    const r = await t.app.inject({ method: 'GET', url: `/api/reservations?${query}`, headers: owner.auth });
    assert.equal(r.statusCode, 200, `${query}: ${r.body}`);
    return (r.json().items as Listed[]).map((item) => item.id).sort((a, b) => a - b);
  };
  const ids = (...keys: string[]) => keys.map((key) => booked[key]!.id).sort((a, b) => a - b);

  test('several statuses, repeated or comma-separated (spaces and repeats forgiven), as callers see them', async () => {
    assert.deepEqual(await list('status=confirmed'), ids('grace', 'emile'));
    assert.deepEqual(await list('status=confirmed&status=held'), ids('grace', 'emile', 'held'));
    assert.deepEqual(await list('status=confirmed,held'), ids('grace', 'emile', 'held'));
    assert.deepEqual(await list('status=held, cancelled&status=held'), ids('held', 'ada'));
    assert.deepEqual(await list('status=expired'), []);
    assert.deepEqual(await list('status='), ids('grace', 'ada', 'emile', 'held'));
  });

  test('from and to with them: what overlaps the range', async () => {
    const range = `from=${encodeURIComponent(at(mon, 10, 30))}&to=${encodeURIComponent(at(mon, 12))}`;
    assert.deepEqual(await list(range), ids('ada', 'emile'));
    assert.deepEqual(await list(`${range}&status=confirmed`), ids('emile'));
  });

  test('q: the name, the email or the reference contains it, letters A-Z in any case', async () => {
    assert.deepEqual(await list('q=grace'), ids('grace'));
    assert.deepEqual(await list('q=HOPPER'), ids('grace'));
    assert.deepEqual(await list('q=engine.EXAMPLE'), ids('ada'));
    assert.deepEqual(await list('q=.example'), ids('grace', 'ada', 'emile', 'held'));
    const reference = booked.held!.reference;
    assert.deepEqual(await list(`q=${reference.toLowerCase()}`), ids('held'));
    assert.deepEqual(await list(`q=${reference.slice(2, 6)}&status=held`), ids('held'));
    assert.deepEqual(await list('q=%20%20grace%20%20'), ids('grace'), 'trimmed');
    // Wildcards are text: % and _ match only themselves.
    assert.deepEqual(await list(`q=${encodeURIComponent('100%_')}`), ids('emile'));
    assert.deepEqual(await list(`q=${encodeURIComponent('%')}`), ids('emile'));
    assert.deepEqual(await list('q=_'), ids('emile'));
    assert.deepEqual(await list('q=nobody'), []);
    // Beyond A-Z the letters are compared as written, on both databases alike.
    assert.deepEqual(await list(`q=${encodeURIComponent('Émile')}`), ids('emile'));
    assert.deepEqual(await list(`q=${encodeURIComponent('émile')}`), []);
    assert.deepEqual(await list(`q=${encodeURIComponent('ÉMILE')}`), ids('emile'));
  });

  test('bad input is a 400 naming the field', async () => {
    for (const [query, path] of [
      ['status=confirmed,bogus', 'querystring.status.1'],
      ['status=HELD', 'querystring.status.0'],
      [`q=${'x'.repeat(201)}`, 'querystring.q'],
      ['from=yesterday', 'querystring.from'],
      [`from=${encodeURIComponent(at(mon, 12))}&to=${encodeURIComponent(at(mon, 9))}`, 'querystring.to'],
    ] as const) {
      const r = await t.app.inject({ method: 'GET', url: `/api/reservations?${query}`, headers: owner.auth });
      assert.equal(r.statusCode, 400, query);
      assert.equal(r.json().error.code, 'VALIDATION_FAILED', query);
      assert.ok(
        r.json().error.details.some((d: { path: string }) => d.path === path),
        `${query}: ${JSON.stringify(r.json().error.details)}`,
      );
    }
  });
});
