import assert from 'node:assert/strict';
import { after, afterEach, before, describe, mock, test } from 'node:test';
import { RESERVATION_EXPIRY_JOB } from '../../../src/modules/reservations/service.js';
import { createTestApp, registerUser, type SignedInUser, type TestApp } from '../../helpers/app.js';
import { at, book, customer, futureMonday } from '../../helpers/booking.js';
import { createResource, createType } from '../../helpers/catalogue.js';
import { as, expectError, expectStatus } from '../../helpers/http.js';
import {
  memberWithRole,
  type OrgOwner,
  ownerWithOrganisation,
  withApiKey,
} from '../../helpers/organisations.js';

/**
 * Holds (DECISIONS.md "Reservations: statuses, holds, payment, reschedule, rules"): a held
 * time is kept until expiresAt and not a moment longer, whether or not the expiry job has
 * run, on SQLite and PostgreSQL. The clock is Date under mock.timers; nothing sleeps.
 */
describe('holds', () => {
  let t: TestApp;
  let owner: OrgOwner;
  const slug = `holds-${process.pid}`;
  before(async () => {
    t = await createTestApp({ PUBLIC_RATE_LIMIT_MAX: '1000' });
    owner = await withApiKey(t.app, await ownerWithOrganisation(t.app, { timezone: 'UTC', slug }));
  });
  after(() => t.close());
  afterEach(() => mock.timers.reset());

  /** A login JWT lives 15 minutes; a user API key carries a user across the fake clock. */

  /** A resource of its own type (one lane), and a slot on it next week. */
  async function room(typeBody: Record<string, unknown> = {}) {
    const type = await createType(t.app, owner, typeBody);
    const resource = await createResource(t.app, owner, { name: 'Room', resourceTypeId: type.id });
    const mon = futureMonday();
    return { type, resource, slot: { resourceId: resource.id, startTime: at(mon, 9), endTime: at(mon, 10) } };
  }

  const hold = (user: SignedInUser, body: Record<string, unknown>, headers: Record<string, string> = {}) =>
    t.app.inject({
      method: 'POST',
      url: '/api/reservations/holds',
      headers: { ...user.auth, ...headers },
      payload: { customer, ...body },
    });
  const confirm = (user: SignedInUser, id: number) => as(t.app, user).post(`/api/reservations/${id}/confirm`);
  const release = (user: SignedInUser, id: number) => as(t.app, user).post(`/api/reservations/${id}/release`);
  const get = async (id: number) => expectStatus(await as(t.app, owner).get(`/api/reservations/${id}`), 200);
  /** The row as stored, whatever callers are shown. */
  const stored = (id: number) =>
    t.db.kysely
      .selectFrom('reservations')
      .select(['status', 'expiresAt'])
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
  /** Free lanes of the resource over the slot, as its availability answers them. */
  async function freeLanes(slot: { resourceId: number; startTime: string; endTime: string }) {
    const answer = expectStatus(
      await as(t.app, owner).get(
        `/api/resources/${slot.resourceId}/availability?from=${encodeURIComponent(slot.startTime)}&to=${encodeURIComponent(slot.endTime)}`,
      ),
      200,
    );
    const [window] = answer.windows as Array<{ start: string; end: string; freeLanes: number }>;
    return window && window.start === slot.startTime && window.end === slot.endTime ? window.freeLanes : 0;
  }
  const countRows = async () =>
    Number(
      (
        await t.db.kysely
          .selectFrom('reservations')
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );

  test('a hold keeps its time until expiresAt exactly: at -1 s taken, at expiresAt free, before any job runs', async () => {
    const start = Date.now();
    mock.timers.enable({ apis: ['Date'], now: start });
    const { slot } = await room();
    const held = expectStatus(await hold(owner, { ...slot, holdSeconds: 120 }), 201);
    assert.equal(held.status, 'held');
    assert.equal(held.expiresAt, new Date(start + 120_000).toISOString());
    assert.equal(held.seriesId, null);
    assert.equal(held.payment, null);

    mock.timers.setTime(start + 119_000);
    assert.equal(await freeLanes(slot), 0, 'held a second before expiresAt');
    expectError(await book(t.app, owner, slot), 409, 'SLOT_UNAVAILABLE');
    assert.equal((await get(held.id)).status, 'held');

    // The availability answer above is cached under an unchanged version: it must end with the hold.
    mock.timers.setTime(start + 120_000);
    assert.equal(await freeLanes(slot), 1, 'free at expiresAt');
    const shown = await get(held.id);
    assert.equal(shown.status, 'expired');
    assert.equal(shown.expiresAt, null);
    assert.equal((await stored(held.id)).status, 'held', 'the job has not run');
    const booked = expectStatus(await book(t.app, owner, slot), 201);
    assert.equal(booked.resourceId, held.resourceId, 'the same lane');
    assert.equal(booked.expiresAt, null);
    // The booking marked the lapsed hold on its lane, so no row says it still holds the time.
    assert.deepEqual(await stored(held.id), { status: 'expired', expiresAt: null });
  });

  test('the expiry job marks lapsed holds expired once and leaves live ones held', async () => {
    const start = Date.now();
    mock.timers.enable({ apis: ['Date'], now: start });
    const { slot } = await room();
    const short = expectStatus(await hold(owner, { ...slot, holdSeconds: 60 }), 201);
    const long = expectStatus(
      await hold(owner, { ...slot, startTime: slot.endTime, endTime: at(futureMonday(), 11) }),
      201,
    );
    assert.equal(long.expiresAt, new Date(start + 600_000).toISOString(), 'ten minutes by default');

    mock.timers.setTime(start + 60_000);
    await t.app.jobs.send(RESERVATION_EXPIRY_JOB, {});
    await t.app.jobs.idle();
    assert.deepEqual(await stored(short.id), { status: 'expired', expiresAt: null });
    assert.equal((await stored(long.id)).status, 'held');
    assert.deepEqual(await t.app.services.reservations.expireDue(), [], 'a second run marks nothing');
    const listed = expectStatus(await as(t.app, owner).get('/api/reservations?status=expired'), 200);
    assert.ok(listed.items.some((r: { id: number }) => r.id === short.id));

    mock.timers.setTime(start + 600_000);
    const expired = await t.app.services.reservations.expireDue();
    assert.deepEqual(
      expired.filter((r) => r.id === short.id || r.id === long.id).map((r) => [r.id, r.status]),
      [[long.id, 'expired']],
    );
  });

  test('confirm before expiresAt keeps the time for good; at expiresAt it is 409 HOLD_EXPIRED', async () => {
    const start = Date.now();
    mock.timers.enable({ apis: ['Date'], now: start });
    const { slot } = await room();
    const kept = expectStatus(await hold(owner, { ...slot, holdSeconds: 60 }), 201);
    mock.timers.setTime(start + 59_999);
    const confirmed = expectStatus(await confirm(owner, kept.id), 200);
    assert.equal(confirmed.status, 'confirmed');
    assert.equal(confirmed.expiresAt, null);
    mock.timers.setTime(start + 3_600_000);
    assert.equal((await get(kept.id)).status, 'confirmed');
    assert.equal(await freeLanes(slot), 0);
    expectError(await book(t.app, owner, slot), 409, 'SLOT_UNAVAILABLE');
    expectError(await confirm(owner, kept.id), 409, 'INVALID_TRANSITION');

    const other = { ...slot, startTime: slot.endTime, endTime: at(futureMonday(), 11) };
    const late = expectStatus(await hold(owner, { ...other, holdSeconds: 60 }), 201);
    mock.timers.setTime(start + 3_660_000);
    expectError(await confirm(owner, late.id), 409, 'HOLD_EXPIRED');
    assert.equal((await stored(late.id)).status, 'held', 'a refused confirm changes nothing');
    assert.equal(await freeLanes(other), 1);
    // Marked by the job, it is refused the same way.
    await t.app.services.reservations.expireDue();
    expectError(await confirm(owner, late.id), 409, 'HOLD_EXPIRED');
    assert.equal((await get(late.id)).status, 'expired');
  });

  test('release cancels a hold and frees its time at once; only a live hold can be released', async () => {
    const start = Date.now();
    mock.timers.enable({ apis: ['Date'], now: start });
    const { slot } = await room();
    const held = expectStatus(await hold(owner, slot), 201);
    const released = expectStatus(await release(owner, held.id), 200);
    assert.equal(released.status, 'cancelled');
    assert.equal(released.expiresAt, null);
    assert.equal(released.cancelledAt, new Date(start).toISOString());
    assert.equal(await freeLanes(slot), 1);
    expectError(await release(owner, held.id), 409, 'INVALID_TRANSITION');
    expectError(await confirm(owner, held.id), 409, 'INVALID_TRANSITION');

    const booked = expectStatus(await book(t.app, owner, slot), 201);
    expectError(await release(owner, booked.id), 409, 'INVALID_TRANSITION');
    assert.equal((await get(booked.id)).status, 'confirmed');

    const other = { ...slot, startTime: slot.endTime, endTime: at(futureMonday(), 11) };
    const lapsed = expectStatus(await hold(owner, { ...other, holdSeconds: 60 }), 201);
    mock.timers.setTime(start + 60_000);
    expectError(await release(owner, lapsed.id), 409, 'HOLD_EXPIRED');
    expectError(
      await as(t.app, owner).post(`/api/reservations/${lapsed.id}/cancel`),
      409,
      'INVALID_TRANSITION',
    );
  });

  test("someone else's hold: 404 from another organisation, 403 for a MEMBER, a MANAGER may", async () => {
    const { slot } = await room();
    const member = await memberWithRole(t.app, owner, 'MEMBER');
    const manager = await memberWithRole(t.app, owner, 'MANAGER');
    const stranger = await ownerWithOrganisation(t.app, { timezone: 'UTC' });
    const first = expectStatus(await hold(owner, slot), 201);
    expectError(await confirm(stranger, first.id), 404, 'NOT_FOUND');
    expectError(await release(stranger, first.id), 404, 'NOT_FOUND');
    expectError(await confirm(member, first.id), 403, 'FORBIDDEN');
    expectError(await release(member, first.id), 403, 'FORBIDDEN');
    assert.equal((await stored(first.id)).status, 'held', 'refusals change nothing');
    assert.equal(expectStatus(await confirm(manager, first.id), 200).status, 'confirmed');

    const other = { ...slot, startTime: slot.endTime, endTime: at(futureMonday(), 11) };
    const own = expectStatus(await hold(member, other), 201);
    assert.equal(own.createdByUserId, member.id);
    assert.equal(expectStatus(await release(member, own.id), 200).status, 'cancelled');
  });

  test('holdSeconds is 60..1800: 1801 and 59 are 400 VALIDATION_FAILED and hold nothing; 1800 holds 30 minutes', async () => {
    const start = Date.now();
    mock.timers.enable({ apis: ['Date'], now: start });
    const { slot } = await room();
    const before = await countRows();
    for (const holdSeconds of [1801, 59, 600.5, '600']) {
      const error = expectError(await hold(owner, { ...slot, holdSeconds }), 400, 'VALIDATION_FAILED');
      assert.deepEqual(
        error.details?.map((d) => d.path),
        ['body.holdSeconds'],
      );
    }
    assert.match(
      expectError(await hold(owner, { ...slot, holdSeconds: 1801 }), 400, 'VALIDATION_FAILED').message,
      /at most 1800 seconds/,
    );
    assert.equal(await countRows(), before, 'nothing held');
    const longest = expectStatus(await hold(owner, { ...slot, holdSeconds: 1800 }), 201);
    assert.equal(longest.expiresAt, new Date(start + 1_800_000).toISOString());
    // holdSeconds belongs to holds only.
    expectError(await book(t.app, owner, { ...slot, holdSeconds: 60 }), 400, 'VALIDATION_FAILED');
  });

  test('a hold on a paid type is held; confirming it waits for payment (409 PAYMENT_NOT_READY)', async () => {
    const { slot } = await room({
      pricingEnabled: true,
      paymentRequired: true,
      priceAmount: 2500,
      priceCurrency: 'eur',
    });
    const held = expectStatus(await hold(owner, slot), 201);
    assert.equal(held.status, 'held');
    assert.equal(held.priceAmount, 2500);
    expectError(await confirm(owner, held.id), 409, 'PAYMENT_NOT_READY');
    assert.equal((await stored(held.id)).status, 'held');
  });

  test('Idempotency-Key on a hold: a retry answers the same hold and holds nothing more', async () => {
    const { slot } = await room();
    const headers = { 'idempotency-key': `hold-${process.pid}-${Date.now()}` };
    const first = await hold(owner, slot, headers);
    const again = await hold(owner, slot, headers);
    assert.equal(first.statusCode, 201);
    assert.equal(again.statusCode, 201);
    assert.equal(again.headers['idempotent-replayed'], 'true');
    assert.deepEqual(again.json(), first.json());
    const listed = expectStatus(
      await as(t.app, owner).get(`/api/reservations?resourceId=${slot.resourceId}`),
      200,
    );
    assert.equal(listed.items.length, 1);
    expectError(await hold(owner, { ...slot, holdSeconds: 61 }, headers), 409, 'IDEMPOTENCY_KEY_REUSED');
  });

  test('the list filters by status as callers see it: a lapsed hold is expired, not held', async () => {
    const start = Date.now();
    mock.timers.enable({ apis: ['Date'], now: start });
    const { slot } = await room();
    const held = expectStatus(await hold(owner, { ...slot, holdSeconds: 60 }), 201);
    const ids = async (status: string) =>
      expectStatus(
        await as(t.app, owner).get(`/api/reservations?resourceId=${slot.resourceId}&status=${status}`),
        200,
      ).items.map((r: { id: number }) => r.id);
    assert.deepEqual(await ids('held'), [held.id]);
    assert.deepEqual(await ids('expired'), []);
    mock.timers.setTime(start + 60_000);
    assert.deepEqual(await ids('held'), []);
    assert.deepEqual(await ids('expired'), [held.id]);
  });

  test('public holds by slug: same body plus holdSeconds, a held reservation that frees itself', async () => {
    const start = Date.now();
    mock.timers.enable({ apis: ['Date'], now: start });
    const { slot } = await room();
    const url = `/api/public/organisations/${slug}/holds`;
    const post = (payload: Record<string, unknown>, headers: Record<string, string> = {}) =>
      t.app.inject({ method: 'POST', url, headers, payload: { customer, ...payload } });
    expectError(await post({ ...slot, holdSeconds: 1801 }), 400, 'VALIDATION_FAILED');
    expectError(await post({ ...slot, priceAmount: 1 }), 400, 'VALIDATION_FAILED');
    const held = expectStatus(
      await post({ ...slot, holdSeconds: 300 }, { 'idempotency-key': 'public-hold' }),
      201,
    );
    assert.deepEqual(Object.keys(held).sort(), [
      'customer',
      'endTime',
      'expiresAt',
      'id',
      'manageToken',
      'manageUrl',
      'payment',
      'priceAmount',
      'priceCurrency',
      'reference',
      'resourceTypeId',
      'seriesId',
      'startTime',
      'status',
    ]);
    assert.equal(held.status, 'held');
    assert.equal(held.expiresAt, new Date(start + 300_000).toISOString());
    const replay = await post({ ...slot, holdSeconds: 300 }, { 'idempotency-key': 'public-hold' });
    assert.equal(replay.headers['idempotent-replayed'], 'true');
    const stored = expectStatus(await as(t.app, owner).get(`/api/reservations/${held.id}`), 200);
    assert.equal(stored.source, 'public_slug');
    assert.equal(stored.createdByUserId, null);
    expectError(await post(slot), 409, 'SLOT_UNAVAILABLE');
    mock.timers.setTime(start + 300_000);
    expectStatus(await post(slot), 201);
    expectError(
      await t.app.inject({
        method: 'POST',
        url: `/api/public/organisations/no-such-${process.pid}/holds`,
        payload: { customer, ...slot },
      }),
      404,
      'NOT_FOUND',
    );
  });

  test('an expired hold does not count as a future reservation when lowering capacity', async () => {
    const start = Date.now();
    mock.timers.enable({ apis: ['Date'], now: start });
    const type = await createType(t.app, owner, { bookingMode: 'POOL' });
    const parent = await createResource(t.app, owner, { name: 'Pair', resourceTypeId: type.id, capacity: 2 });
    const mon = futureMonday();
    const slot = { resourceTypeId: type.id, startTime: at(mon, 9), endTime: at(mon, 10) };
    expectStatus(await book(t.app, owner, slot), 201);
    const second = expectStatus(await hold(owner, { ...slot, holdSeconds: 60 }), 201);
    const lower = () => as(t.app, owner).patch(`/api/resources/${parent.id}`, { capacity: 1 });
    assert.equal((await lower()).statusCode, 409, 'the live hold keeps its lane');
    mock.timers.setTime(start + 60_000);
    expectStatus(await lower(), 200);
    assert.equal((await get(second.id)).status, 'expired');
  });

  test('a stranger without an organisation cannot hold', async () => {
    const { slot } = await room();
    const loner = await registerUser(t.app);
    expectError(await hold(loner, slot), 409, 'NO_ACTIVE_ORGANISATION');
  });
});
