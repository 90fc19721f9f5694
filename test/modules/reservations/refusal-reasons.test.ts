import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestApp, type TestApp } from '../../helpers/app.js';
import { at, book, bookPublicly, futureMonday } from '../../helpers/booking.js';
import { createResource, createType } from '../../helpers/catalogue.js';
import { call, expectStatus } from '../../helpers/http.js';
import { ownerWithOrganisation } from '../../helpers/organisations.js';

/**
 * Every SLOT_UNAVAILABLE carries the reasons of the explain routes in `error.details`
 * (DECISIONS.md "Teams"); the public booking routes show what takes the time only as
 * UNAVAILABLE (docs/decisions.md).
 */
describe('a refused time says why', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp({ PUBLIC_RATE_LIMIT_MAX: '1000' });
  });
  after(() => t.close());

  test('booking, dry run, reschedule, series and the public routes', async () => {
    const slug = `reasons-${process.pid}`;
    const owner = await ownerWithOrganisation(t.app, { slug, timezone: 'UTC' });
    const type = await createType(t.app, owner, {
      bufferTime: 30,
      recurringEnabled: true,
      schedulePolicy: {
        operatingHours: [1, 2, 3, 4, 5].map((dayOfWeek) => ({
          dayOfWeek,
          openTime: '09:00',
          closeTime: '17:00',
        })),
      },
    });
    const room = await createResource(t.app, owner, { name: 'Room', resourceTypeId: type.id });
    const mon = futureMonday();
    const slot = (from: number, to: number) => ({
      resourceId: room.id,
      startTime: at(mon, from),
      endTime: at(mon, to),
    });
    const booked = expectStatus(await book(t.app, owner, slot(11, 12)), 201);

    const refused = expectStatus(await book(t.app, owner, slot(10, 12)), 409, 'SLOT_UNAVAILABLE');
    assert.deepEqual(
      refused.error.details.map((d: { code: string; from: string; to: string }) => [d.code, d.from, d.to]),
      [
        ['BUFFER', at(mon, 10, 30), at(mon, 11)],
        ['BOOKED', at(mon, 11), at(mon, 12)],
      ],
    );
    assert.ok(refused.error.alternatives.length > 0);
    const early = expectStatus(await book(t.app, owner, slot(8, 9)), 409, 'SLOT_UNAVAILABLE');
    assert.deepEqual(
      early.error.details.map((d: { code: string }) => d.code),
      ['OUTSIDE_HOURS'],
    );

    const dry = expectStatus(await book(t.app, owner, slot(10, 12), { query: 'dryRun=true' }), 200);
    assert.equal(dry.wouldSucceed, false);
    assert.deepEqual(
      dry.error.details.map((d: { code: string }) => d.code),
      ['BUFFER', 'BOOKED'],
    );

    // A move ignores its own time: only the other reservation stands in the way.
    const other = expectStatus(await book(t.app, owner, slot(14, 15)), 201);
    const moved = expectStatus(
      await call(t.app, owner, 'POST', `/api/reservations/${other.id}/reschedule`, {
        startTime: at(mon, 12),
        endTime: at(mon, 13),
      }),
      409,
      'SLOT_UNAVAILABLE',
    );
    assert.deepEqual(
      moved.error.details.map((d: { code: string }) => d.code),
      ['BUFFER'],
    );
    assert.ok(booked.id);

    const series = expectStatus(
      await book(t.app, owner, { ...slot(11, 12), recurrence: ['RRULE:FREQ=WEEKLY;COUNT=2'] }),
      409,
      'SLOT_UNAVAILABLE',
    );
    assert.deepEqual(
      series.error.details.map((d: { code: string }) => d.code),
      ['BOOKED'],
    );

    const publicly = await bookPublicly(t.app, slug, slot(10, 12));
    const body = expectStatus(publicly, 409, 'SLOT_UNAVAILABLE');
    assert.deepEqual(body.error.details, [
      { code: 'UNAVAILABLE', message: 'This time is not available', from: at(mon, 10, 30), to: at(mon, 12) },
    ]);
    assert.doesNotMatch(publicly.body, /BOOKED|BUFFER|HELD|CALENDAR_BUSY/);
    const publicEarly = expectStatus(await bookPublicly(t.app, slug, slot(8, 9)), 409, 'SLOT_UNAVAILABLE');
    assert.deepEqual(
      publicEarly.error.details.map((d: { code: string }) => d.code),
      ['OUTSIDE_HOURS'],
    );
    const publicDry = expectStatus(
      await bookPublicly(t.app, slug, slot(10, 12), { query: 'dryRun=true' }),
      200,
    );
    assert.deepEqual(
      publicDry.error.details.map((d: { code: string }) => d.code),
      ['UNAVAILABLE'],
    );
  });
});
