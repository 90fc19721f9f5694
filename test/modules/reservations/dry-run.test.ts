import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, mock, test } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { createTestApp, type SignedInUser, type TestApp } from '../../helpers/app.js';
import { book, customer } from '../../helpers/booking.js';
import { createResource, createType } from '../../helpers/catalogue.js';
import { at, slot, T0 } from '../../helpers/fixed-week.js';
import { expectStatus } from '../../helpers/http.js';
import { type OrgOwner, ownerWithOrganisation } from '../../helpers/organisations.js';

/**
 * Dry runs (DECISIONS.md "Reservations: statuses, holds, payment, reschedule, rules"):
 * `?dryRun=true` on every booking write answers 200 {wouldSucceed, reservation | error}
 * and writes nothing: no reservation, no idempotency record, no expiry marking, no raised
 * longest reservation (row counts prove it). The clock is fake (Date only), fixed at T0.
 */

describe('dry runs', () => {
  let t: TestApp;
  let owner: OrgOwner;
  const slug = `dry-run-${process.pid}`;

  before(async () => {
    mock.timers.enable({ apis: ['Date'], now: T0 });
    t = await createTestApp({ PUBLIC_RATE_LIMIT_MAX: '1000' });
    owner = await ownerWithOrganisation(t.app, { timezone: 'UTC', slug });
  });
  beforeEach(() => mock.timers.setTime(T0));
  after(async () => {
    await t.close();
    mock.timers.reset();
  });

  const post = (
    user: SignedInUser | null,
    url: string,
    payload: unknown,
    headers: Record<string, string> = {},
  ) =>
    t.app.inject({
      method: 'POST',
      url,
      headers: { ...(user?.auth ?? {}), ...headers },
      payload: payload as object,
    });
  const count = async (table: 'reservations' | 'idempotencyKeys') =>
    Number(
      (
        await t.db.kysely
          .selectFrom(table)
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );
  /** Rows of reservations and idempotency keys: what a dry run must leave as they are. */
  const counts = async () => ({
    reservations: await count('reservations'),
    keys: await count('idempotencyKeys'),
  });
  /** A dry run's verdict: 200, never replayed. */
  function verdict(response: LightMyRequestResponse) {
    const body = expectStatus(response, 200);
    assert.equal(response.headers['idempotent-replayed'], undefined);
    return body as {
      wouldSucceed: boolean;
      reservation?: Record<string, unknown>;
      error?: { code: string; message: string; details?: unknown[]; alternatives: unknown[] };
    };
  }

  async function room(typeBody: Record<string, unknown> = {}) {
    const type = await createType(t.app, owner, { minBookingDuration: 30, ...typeBody });
    const resource = await createResource(t.app, owner, { name: 'Room', resourceTypeId: type.id });
    return { typeId: type.id, resourceId: resource.id };
  }

  test('a booking: the would-be record with id null; nothing written, no key claimed; the real booking then runs', async () => {
    const { typeId, resourceId } = await room();
    const before = await counts();
    const headers = { 'idempotency-key': 'dry-then-real' };
    const dry = verdict(
      await book(
        t.app,
        owner,
        { resourceId, ...slot(2, 9), notes: 'window seat' },
        { query: 'dryRun=true', headers },
      ),
    );
    assert.equal(dry.wouldSucceed, true);
    const record = dry.reservation!;
    assert.equal(record.id, null);
    assert.equal(record.status, 'confirmed');
    assert.equal(record.resourceId, resourceId);
    assert.equal(record.resourceTypeId, typeId);
    assert.equal(record.startTime, at(2, 9));
    assert.equal(record.notes, 'window seat');
    assert.deepEqual(await counts(), before);
    // A second dry run with the same key is answered afresh, never replayed.
    verdict(
      await book(
        t.app,
        owner,
        { resourceId, ...slot(2, 9), notes: 'window seat' },
        { query: 'dryRun=true', headers },
      ),
    );

    const real = await book(t.app, owner, { resourceId, ...slot(2, 9), notes: 'window seat' }, { headers });
    const created = expectStatus(real, 201);
    assert.equal(real.headers['idempotent-replayed'], undefined, 'the key was not taken by the dry run');
    // Only what writing makes differs: the id, the times, and the reference (drawn when written).
    assert.equal(record.reference, null);
    const { id, reference, createdAt, updatedAt, ...rest } = created;
    assert.deepEqual(
      { ...record, id, reference, createdAt, updatedAt },
      { id, reference, createdAt, updatedAt, ...rest },
    );
    assert.deepEqual(await counts(), { reservations: before.reservations + 1, keys: before.keys + 1 });
    // dryRun=false is an ordinary write; anything else is refused.
    expectStatus(await book(t.app, owner, { resourceId, ...slot(2, 11) }, { query: 'dryRun=false' }), 201);
    expectStatus(
      await book(t.app, owner, { resourceId, ...slot(2, 13) }, { query: 'dryRun=yes' }),
      400,
      'VALIDATION_FAILED',
    );
  });

  test('a refusal is wouldSucceed false with its code, details and alternatives; bad input stays a 400', async () => {
    const { resourceId } = await room({ bookingRules: { maxAdvanceDays: 20 } });
    expectStatus(await book(t.app, owner, { resourceId, ...slot(2, 9) }), 201);
    const before = await counts();
    const taken = verdict(await book(t.app, owner, { resourceId, ...slot(2, 9) }, { query: 'dryRun=true' }));
    assert.equal(taken.wouldSucceed, false);
    assert.equal(taken.reservation, undefined);
    const refusal = expectStatus(
      await book(t.app, owner, { resourceId, ...slot(2, 9) }),
      409,
      'SLOT_UNAVAILABLE',
    ).error;
    assert.deepEqual(taken.error, {
      code: 'SLOT_UNAVAILABLE',
      message: refusal.message,
      // Why it does not fit, as the explain routes say it (DECISIONS.md "Teams").
      details: refusal.details,
      alternatives: refusal.alternatives,
    });
    assert.deepEqual(
      refusal.details.map((d: { code: string }) => d.code),
      ['BOOKED'],
    );
    assert.equal(taken.error!.alternatives.length, 5);

    const far = verdict(await book(t.app, owner, { resourceId, ...slot(25, 9) }, { query: 'dryRun=true' }));
    assert.equal(far.error?.code, 'BOOKING_RULE_VIOLATED');
    assert.deepEqual(
      (far.error!.details as Array<{ rule: string }>).map((d) => d.rule),
      ['maxAdvanceDays'],
    );
    assert.ok(far.error!.alternatives.length > 0);

    expectStatus(
      await book(
        t.app,
        owner,
        { resourceId, startTime: at(0, 6), endTime: at(0, 7) },
        { query: 'dryRun=true' },
      ),
      400,
      'VALIDATION_FAILED',
    );
    expectStatus(
      await book(t.app, owner, { resourceId: 2_000_000, ...slot(2, 9) }, { query: 'dryRun=true' }),
      400,
      'VALIDATION_FAILED',
    );
    assert.deepEqual(await counts(), before);
  });

  test('a hold: the would-be held record with its expiresAt', async () => {
    const { resourceId } = await room();
    const before = await counts();
    const dry = verdict(
      await post(owner, '/api/reservations/holds?dryRun=true', {
        customer,
        resourceId,
        ...slot(2, 9),
        holdSeconds: 90,
      }),
    );
    assert.equal(dry.reservation?.status, 'held');
    assert.equal(dry.reservation?.expiresAt, new Date(T0 + 90_000).toISOString());
    assert.deepEqual(await counts(), before);
  });

  test('a reschedule: the moved record (id null), the reservation unchanged; another status: wouldSucceed false', async () => {
    const { resourceId } = await room();
    const r = expectStatus(await book(t.app, owner, { resourceId, ...slot(2, 9) }), 201);
    const before = await counts();
    const move = (id: number, body: Record<string, unknown>) =>
      post(owner, `/api/reservations/${id}/reschedule?dryRun=true`, body, {
        'idempotency-key': `dry-move-${id}`,
      });
    const dry = verdict(await move(r.id, slot(2, 15)));
    assert.equal(dry.wouldSucceed, true);
    assert.deepEqual(
      { id: dry.reservation?.id, startTime: dry.reservation?.startTime, status: dry.reservation?.status },
      { id: null, startTime: at(2, 15), status: 'confirmed' },
    );
    const stored = expectStatus(
      await t.app.inject({ method: 'GET', url: `/api/reservations/${r.id}`, headers: owner.auth }),
      200,
    );
    assert.deepEqual(stored, r);
    expectStatus(await book(t.app, owner, { resourceId, ...slot(2, 15) }), 201);
    const taken = verdict(await move(r.id, slot(2, 15)));
    assert.equal(taken.error?.code, 'SLOT_UNAVAILABLE');
    expectStatus(await post(owner, `/api/reservations/${r.id}/cancel`, {}), 200);
    const cancelled = verdict(await move(r.id, slot(2, 17)));
    assert.equal(cancelled.error?.code, 'INVALID_TRANSITION');
    assert.deepEqual(await counts(), { reservations: before.reservations + 1, keys: before.keys });
  });

  test('public slug bookings and holds and token bookings: a verdict without a manage link, nothing written', async () => {
    const { resourceId } = await room();
    const { token } = expectStatus(
      await t.app.inject({
        method: 'GET',
        url: `/api/resources/${resourceId}/public-token`,
        headers: owner.auth,
      }),
      200,
    );
    const before = await counts();
    const headers = { 'idempotency-key': 'public-dry' };
    const bySlug = verdict(
      await post(
        null,
        `/api/public/organisations/${slug}/reservations?dryRun=true`,
        { customer, resourceId, ...slot(2, 9) },
        headers,
      ),
    );
    const held = verdict(
      await post(
        null,
        `/api/public/organisations/${slug}/holds?dryRun=true`,
        { customer, resourceId, ...slot(2, 9) },
        headers,
      ),
    );
    const byToken = verdict(
      await post(
        null,
        `/api/public/resources/${token}/reservations?dryRun=true`,
        { customer, ...slot(2, 9) },
        headers,
      ),
    );
    for (const dry of [bySlug, held, byToken]) {
      assert.equal(dry.wouldSucceed, true);
      assert.equal(dry.reservation?.id, null);
      assert.equal('manageToken' in dry.reservation!, false);
      assert.equal('createdByUserId' in dry.reservation!, false, 'the public shape');
    }
    assert.equal(held.reservation?.status, 'held');
    assert.deepEqual(await counts(), before);
    expectStatus(await book(t.app, owner, { resourceId, ...slot(2, 9) }), 201);
    const taken = verdict(
      await post(null, `/api/public/organisations/${slug}/reservations?dryRun=true`, {
        customer,
        resourceId,
        ...slot(2, 9),
      }),
    );
    assert.equal(taken.error?.code, 'SLOT_UNAVAILABLE');
    assert.equal(taken.error?.alternatives.length, 5);
  });

  test('no lane writes: a lapsed hold stays unmarked and the longest reservation is not raised', async () => {
    const { typeId, resourceId } = await room();
    const hold = expectStatus(
      await post(owner, '/api/reservations/holds', { customer, resourceId, ...slot(2, 9), holdSeconds: 60 }),
      201,
    );
    mock.timers.setTime(T0 + 61_000);
    const longest = async () =>
      (
        await t.db.kysely
          .selectFrom('resourceTypes')
          .select('longestReservationMinutes')
          .where('id', '=', typeId)
          .executeTakeFirstOrThrow()
      ).longestReservationMinutes;
    const status = async () =>
      (
        await t.db.kysely
          .selectFrom('reservations')
          .select('status')
          .where('id', '=', hold.id)
          .executeTakeFirstOrThrow()
      ).status;
    const before = { counts: await counts(), longest: await longest() };
    assert.equal(await status(), 'held', 'lapsed, not yet marked');

    // The lapsed hold's time is free for the dry run, which marks nothing.
    const dry = verdict(
      await book(
        t.app,
        owner,
        { resourceId, startTime: at(2, 9), endTime: at(2, 17) },
        { query: 'dryRun=true' },
      ),
    );
    assert.equal(dry.wouldSucceed, true);
    assert.equal(await status(), 'held');
    assert.ok(before.longest < 8 * 60);
    assert.deepEqual({ counts: await counts(), longest: await longest() }, before);

    // The real booking does both.
    expectStatus(await book(t.app, owner, { resourceId, startTime: at(2, 9), endTime: at(2, 17) }), 201);
    assert.equal(await status(), 'expired');
    assert.equal(await longest(), 8 * 60);
  });
});
