import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestApp, registerUser, type TestApp } from '../helpers/app.js';
import { at, book, customer, futureMonday } from '../helpers/booking.js';
import { createResource, createType } from '../helpers/catalogue.js';
import type { Caller } from '../helpers/http.js';
import { type OrgOwner, ownerWithOrganisation } from '../helpers/organisations.js';

describe('Idempotency-Key on booking routes', () => {
  let t: TestApp;
  let owner: OrgOwner;
  let room: { id: number };
  const slug = `idem-${process.pid}`;
  const mon = futureMonday();
  let keyCounter = 0;
  const newKey = () => `key-${process.pid}-${++keyCounter}-${Math.random().toString(36).slice(2)}`;

  before(async () => {
    t = await createTestApp({ PUBLIC_RATE_LIMIT_MAX: '1000' });
    owner = await ownerWithOrganisation(t.app, { name: 'Idem Rooms', slug, timezone: 'UTC' });
    const type = await createType(t.app, owner, { name: 'Hall' });
    // Capacity 20: without the key, a second identical request would book a second lane.
    room = await createResource(t.app, owner, { name: 'Hall 1', resourceTypeId: type.id, capacity: 20 });
  });
  after(() => t.close());

  // One hour of the test's Monday in its room, sent with an Idempotency-Key when there is one.
  const bookHour = (user: Caller, hour: number, key?: string, extra: object = {}) =>
    book(
      t.app,
      user,
      { resourceId: room.id, startTime: at(mon, hour), endTime: at(mon, hour + 1), ...extra },
      key === undefined ? {} : { headers: { 'idempotency-key': key } },
    );

  const countAt = async (hour: number) => {
    const r = await t.app.inject({
      method: 'GET',
      url: `/api/reservations?resourceId=${room.id}&from=${encodeURIComponent(at(mon, hour))}&to=${encodeURIComponent(at(mon, hour + 1))}`,
      headers: owner.auth,
    });
    assert.equal(r.statusCode, 200, r.body);
    return (r.json().items as unknown[]).length;
  };

  test('the same key and body answers the first result again, marked as replayed', async () => {
    const key = newKey();
    const first = await bookHour(owner, 1, key);
    assert.equal(first.statusCode, 201, first.body);
    assert.equal(first.headers['idempotent-replayed'], undefined);
    const again = await bookHour(owner, 1, key);
    assert.equal(again.statusCode, 201);
    assert.equal(again.headers['idempotent-replayed'], 'true');
    assert.match(String(again.headers['content-type']), /application\/json/);
    assert.equal(again.body, first.body);
    assert.equal(await countAt(1), 1);
  });

  test('the same key with another body is 409 IDEMPOTENCY_KEY_REUSED', async () => {
    const key = newKey();
    assert.equal((await bookHour(owner, 2, key)).statusCode, 201);
    const other = await bookHour(owner, 2, key, { notes: 'different' });
    assert.equal(other.statusCode, 409);
    assert.equal(other.json().error.code, 'IDEMPOTENCY_KEY_REUSED');
    assert.equal(await countAt(2), 1);
  });

  test('without the header nothing changes: two requests book twice', async () => {
    assert.equal((await bookHour(owner, 3)).statusCode, 201);
    assert.equal((await bookHour(owner, 3)).statusCode, 201);
    assert.equal(await countAt(3), 2);
  });

  test('an invalid key is 400 VALIDATION_FAILED', async () => {
    for (const key of ['x'.repeat(256), 'tab\there']) {
      const r = await bookHour(owner, 4, key);
      assert.equal(r.statusCode, 400, `${JSON.stringify(key)}: ${r.body}`);
      assert.equal(r.json().error.code, 'VALIDATION_FAILED');
    }
    assert.equal((await bookHour(owner, 4, 'x'.repeat(255))).statusCode, 201);
  });

  test('two concurrent requests with one key book once, and both answer the booking', async () => {
    const key = newKey();
    const answers = await Promise.all([
      bookHour(owner, 5, key),
      bookHour(owner, 5, key),
      bookHour(owner, 5, key),
    ]);
    for (const r of answers) assert.equal(r.statusCode, 201, r.body);
    assert.equal(new Set(answers.map((r) => r.json().id)).size, 1);
    assert.equal(answers.filter((r) => r.headers['idempotent-replayed'] === 'true').length, 2);
    assert.equal(await countAt(5), 1);
  });

  test("another user's key never replays someone else's result", async () => {
    const key = newKey();
    const mine = await bookHour(owner, 6, key);
    assert.equal(mine.statusCode, 201);
    const stranger = await registerUser(t.app, 'Stranger');
    const theirs = await bookHour(stranger, 6, key);
    assert.equal(theirs.headers['idempotent-replayed'], undefined);
    assert.notEqual(theirs.statusCode, 201); // no organisation of their own: their own error
    assert.ok(!theirs.body.includes(customer.email));
  });

  test('a domain error is replayed as well (same status and body)', async () => {
    const key = newKey();
    const bad = { startTime: at(mon, 8), endTime: at(mon, 7) };
    const first = await bookHour(owner, 7, key, bad);
    assert.equal(first.statusCode, 400, first.body);
    const again = await bookHour(owner, 7, key, bad);
    assert.equal(again.statusCode, 400);
    assert.equal(again.headers['idempotent-replayed'], 'true');
    assert.equal(again.body, first.body);
  });

  test('a key older than 24 hours is forgotten', async () => {
    const key = newKey();
    assert.equal((await bookHour(owner, 9, key)).statusCode, 201);
    await t.db.kysely
      .updateTable('idempotencyKeys')
      .set({ createdAt: new Date(Date.now() - 25 * 3_600_000).toISOString() })
      .where('key', '=', key)
      .execute();
    const later = await bookHour(owner, 9, key, { notes: 'a new booking' });
    assert.equal(later.statusCode, 201, later.body);
    assert.equal(later.headers['idempotent-replayed'], undefined);
    assert.equal(await countAt(9), 2);
  });

  test('the public slug route replays too', async () => {
    const key = newKey();
    const post = () =>
      t.app.inject({
        method: 'POST',
        url: `/api/public/organisations/${slug}/reservations`,
        headers: { 'idempotency-key': key },
        payload: { customer, resourceId: room.id, startTime: at(mon, 10), endTime: at(mon, 11) },
      });
    const first = await post();
    assert.equal(first.statusCode, 201, first.body);
    const again = await post();
    assert.equal(again.statusCode, 201);
    assert.equal(again.headers['idempotent-replayed'], 'true');
    // The same booking; its manage link is shown only once, so the replay answers it null.
    assert.match(first.json().manageToken, /^[A-Za-z0-9_-]{43}$/);
    assert.deepEqual(again.json(), { ...first.json(), manageToken: null, manageUrl: null });
    const other = await t.app.inject({
      method: 'POST',
      url: `/api/public/organisations/${slug}/reservations`,
      headers: { 'idempotency-key': key },
      payload: { customer, resourceId: room.id, startTime: at(mon, 11), endTime: at(mon, 12) },
    });
    assert.equal(other.statusCode, 409);
    assert.equal(other.json().error.code, 'IDEMPOTENCY_KEY_REUSED');
    assert.equal(await countAt(10), 1);
  });

  test('the header is documented on the booking routes', async () => {
    const spec = (await t.app.inject({ method: 'GET', url: '/api/openapi.json' })).json();
    for (const [path, op] of [
      ['/api/reservations/', 'post'],
      ['/api/public/organisations/{slug}/reservations', 'post'],
      ['/api/public/resources/{token}/reservations', 'post'],
    ] as const) {
      const entry = spec.paths[path] ?? spec.paths[path.replace(/\/$/, '')];
      assert.ok(entry, `${path} in the spec`);
      const params = entry[op].parameters as { in: string; name: string }[];
      assert.ok(
        params.some((p) => p.in === 'header' && p.name === 'idempotency-key'),
        `${path} documents Idempotency-Key`,
      );
    }
  });
});
