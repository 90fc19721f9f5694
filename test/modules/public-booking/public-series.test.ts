import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestApp, type TestApp } from '../../helpers/app.js';
import { at, bookPublicly, futureMonday } from '../../helpers/booking.js';
import { createResource, createType } from '../../helpers/catalogue.js';
import { as, expectError, expectStatus } from '../../helpers/http.js';
import { type OrgOwner, ownerWithOrganisation } from '../../helpers/organisations.js';

type Occurrence = {
  id: number | null;
  status: string;
  startTime: string;
  seriesId: number | null;
  manageToken?: string | null;
  manageUrl?: string | null;
};

/**
 * A series through the organisation page (DECISIONS.md "Recurring reservations and the
 * waitlist"; docs/decisions.md): every occurrence or none, each occurrence with its own
 * manage link; any link shows and cancels the whole series, and one occurrence can be
 * cancelled alone.
 */
describe('public series by slug', () => {
  let t: TestApp;
  let owner: OrgOwner;
  let room: { id: number };
  let plainRoom: { id: number };
  const slug = `series-${process.pid}`;
  const base = new Date(futureMonday().getTime() + 7 * 86_400_000);
  const week = 24 * 7;
  before(async () => {
    t = await createTestApp({ PUBLIC_RATE_LIMIT_MAX: '1000' });
    owner = await ownerWithOrganisation(t.app, { name: 'Weekly Ltd', slug, timezone: 'UTC' });
    const type = await createType(t.app, owner, { name: 'Lesson', recurringEnabled: true });
    room = await createResource(t.app, owner, { name: 'Studio', resourceTypeId: type.id });
    const plain = await createType(t.app, owner, { name: 'Plain' });
    plainRoom = await createResource(t.app, owner, { name: 'Plain 1', resourceTypeId: plain.id });
  });
  after(() => t.close());

  const weekly = (hour: number, count: number, resourceId = room.id) => ({
    resourceId,
    startTime: at(base, hour),
    endTime: at(base, hour + 1),
    customer: { name: 'Pat Public', email: 'pat@example.test' },
    recurrence: [`RRULE:FREQ=WEEKLY;COUNT=${count}`],
  });
  const manage = (method: 'GET' | 'POST', token: string, path = '') =>
    t.app.inject({ method, url: `/api/public/reservations/${token}${path}` });
  const countAll = async () => (await t.db.kysely.selectFrom('reservations').select('id').execute()).length;

  test('books every occurrence, each with its own manage link; any link shows and cancels the series', async () => {
    const created = expectStatus(await bookPublicly(t.app, slug, weekly(8, 4)), 201);
    const occurrences = created.reservations as Occurrence[];
    assert.equal(typeof created.seriesId, 'number');
    assert.deepEqual(
      occurrences.map((r) => r.startTime),
      [0, 1, 2, 3].map((w) => at(base, 8 + w * week)),
    );
    const tokens = occurrences.map((r) => r.manageToken!);
    assert.equal(new Set(tokens).size, 4, 'each occurrence has a link of its own');
    for (const [n, r] of occurrences.entries()) {
      assert.equal(r.seriesId, created.seriesId);
      assert.equal(r.status, 'confirmed');
      assert.match(tokens[n]!, /^[A-Za-z0-9_-]{43}$/);
      assert.equal(r.manageUrl, `http://frontend.test/manage/${tokens[n]}`);
      // The public shape: nothing of the staff's record.
      assert.equal('createdByUserId' in r, false);
    }

    // One occurrence alone: its link names it, and cancelling it leaves the others.
    const second = expectStatus(await manage('GET', tokens[1]!), 200);
    assert.equal(second.id, occurrences[1]!.id);
    assert.equal(second.seriesId, created.seriesId);
    assert.equal(expectStatus(await manage('POST', tokens[1]!, '/cancel'), 200).status, 'cancelled');
    const series = expectStatus(await manage('GET', tokens[3]!, '/series'), 200);
    assert.equal(series.id, created.seriesId);
    assert.equal(series.organisation.slug, slug);
    assert.deepEqual(
      series.reservations.map((r: Occurrence) => r.status),
      ['confirmed', 'cancelled', 'confirmed', 'confirmed'],
    );

    // The whole series from any occurrence's link; again answers the same.
    const cancelled = expectStatus(await manage('POST', tokens[0]!, '/series/cancel'), 200);
    assert.deepEqual(
      cancelled.reservations.map((r: Occurrence) => r.status),
      ['cancelled', 'cancelled', 'cancelled', 'cancelled'],
    );
    expectStatus(await manage('POST', tokens[2]!, '/series/cancel'), 200);
    const staff = expectStatus(
      await as(t.app, owner).get(`/api/reservations/series/${created.seriesId}`),
      200,
    );
    assert.deepEqual(
      staff.reservations.map((r: Occurrence) => r.status),
      ['cancelled', 'cancelled', 'cancelled', 'cancelled'],
    );
  });

  test('a reservation of no series has no series view; an unknown token is 404', async () => {
    const { recurrence: _none, ...single } = weekly(20, 1);
    const booked = expectStatus(await bookPublicly(t.app, slug, single), 201);
    assert.equal(booked.seriesId, null);
    expectError(await manage('GET', booked.manageToken, '/series'), 404, 'NOT_FOUND');
    expectError(await manage('POST', booked.manageToken, '/series/cancel'), 404, 'NOT_FOUND');
    expectError(await manage('GET', 'x'.repeat(43), '/series'), 404, 'NOT_FOUND');
  });

  test('a misfit books nothing and names the occurrence; a type without the flag and an endless rule are refused', async () => {
    const rows = await countAll();
    const blocker = expectStatus(
      await as(t.app, owner).post('/api/reservations', {
        resourceId: room.id,
        startTime: at(base, 10 + 2 * week),
        endTime: at(base, 11 + 2 * week),
        customer: { name: 'Staff', email: 'staff@example.test' },
      }),
      201,
    );
    const refused = expectError(
      await bookPublicly(t.app, slug, weekly(10, 3)),
      409,
      'SLOT_UNAVAILABLE',
    ) as unknown as {
      conflicts: { startTime: string }[];
    };
    assert.deepEqual(
      refused.conflicts.map((c: { startTime: string }) => c.startTime),
      [at(base, 10 + 2 * week)],
    );
    expectError(await bookPublicly(t.app, slug, weekly(12, 3, plainRoom.id)), 409, 'RECURRENCE_NOT_ENABLED');
    const endless = expectError(
      await bookPublicly(t.app, slug, { ...weekly(12, 3), recurrence: ['RRULE:FREQ=WEEKLY'] }),
      400,
      'VALIDATION_FAILED',
    );
    assert.equal(endless.details?.[0]?.path, 'body.recurrence.0');
    assert.equal(await countAll(), rows + 1, 'only the blocker was written');
    expectStatus(await as(t.app, owner).post(`/api/reservations/${blocker.id}/cancel`), 200);
  });

  test('a dry run answers the would-be occurrences without ids or links, writing nothing', async () => {
    const rows = await countAll();
    const answer = expectStatus(
      await bookPublicly(t.app, slug, weekly(14, 3), { query: 'dryRun=true' }),
      200,
    );
    assert.equal(answer.wouldSucceed, true);
    assert.equal(answer.seriesId, null);
    assert.deepEqual(
      answer.reservations.map((r: Occurrence) => [r.id, r.startTime, 'manageToken' in r]),
      [0, 1, 2].map((w) => [null, at(base, 14 + w * week), false]),
    );
    assert.equal(await countAll(), rows);
  });

  test('a replay of an Idempotency-Key answers the same series with every link null', async () => {
    const key = { 'idempotency-key': `series-${process.pid}` };
    const first = expectStatus(await bookPublicly(t.app, slug, weekly(16, 2), { headers: key }), 201);
    const replay = await bookPublicly(t.app, slug, weekly(16, 2), { headers: key });
    assert.equal(replay.statusCode, 201);
    assert.equal(replay.headers['idempotent-replayed'], 'true');
    const again = replay.json();
    assert.equal(again.seriesId, first.seriesId);
    assert.deepEqual(
      again.reservations.map((r: Occurrence) => [r.id, r.manageToken, r.manageUrl]),
      first.reservations.map((r: Occurrence) => [r.id, null, null]),
    );
    // The first answer's links still work.
    expectStatus(await manage('GET', first.reservations[1].manageToken), 200);
  });
});
