import assert from 'node:assert/strict';
import { after, afterEach, before, describe, mock, test } from 'node:test';
import { OUTBOX_RETENTION_JOB } from '../../../src/modules/outbox/service.js';
import { createTestApp, registerUser, type SignedInUser, type TestApp } from '../../helpers/app.js';
import { createReservation, futureMonday, hourSlot } from '../../helpers/booking.js';
import { createResource, createType } from '../../helpers/catalogue.js';
import { as, expectError, expectStatus } from '../../helpers/http.js';
import { memberWithRole, type OrgOwner, ownerWithOrganisation } from '../../helpers/organisations.js';
import { type FeedEvent, feedReader } from './helpers.js';

/**
 * The feeds (DECISIONS.md "Events, webhooks and notifications"): the organisation's (OWNER,
 * ADMIN) and the caller's own, `{items, nextCursor}` in id order, replayable from any
 * cursor, filtered by type, gapless under concurrent bookings, kept 30 days.
 */
describe('event feeds', () => {
  let t: TestApp;
  let owner: OrgOwner;
  let room: { id: number };
  const mon = futureMonday();
  const events = (user: SignedInUser, query = '', organisationId = owner.organisationId) =>
    as(t.app, user).get(`/api/organisations/${organisationId}/events${query}`);

  before(async () => {
    t = await createTestApp();
    owner = await ownerWithOrganisation(t.app, { timezone: 'UTC' });
    const type = await createType(t.app, owner, { name: 'Room' });
    room = await createResource(t.app, owner, { name: 'Room 1', resourceTypeId: type.id });
  });
  after(() => t.close());
  afterEach(() => mock.timers.reset());

  test('OWNER and ADMIN read the feed; MANAGER and MEMBER 403; another organisation 404; the personal feed is the caller’s', async () => {
    const admin = await memberWithRole(t.app, owner, 'ADMIN');
    const manager = await memberWithRole(t.app, owner, 'MANAGER');
    const member = await memberWithRole(t.app, owner, 'MEMBER');
    const booked = await createReservation(t.app, member, { resourceId: room.id, ...hourSlot(mon, 9) });
    const mine = (
      await feedReader(t.app, owner, `/api/organisations/${owner.organisationId}/events`).next()
    ).find((event) => event.data.id === booked.id);
    assert.equal(mine?.type, 'reservation.created');
    const adminPage = expectStatus(await events(admin), 200);
    assert.ok(adminPage.items.some((event: FeedEvent) => event.data.id === booked.id));
    expectError(await events(manager), 403, 'FORBIDDEN');
    expectError(await events(member), 403, 'FORBIDDEN');

    const stranger = await ownerWithOrganisation(t.app, { timezone: 'UTC' });
    expectError(await events(stranger), 404, 'NOT_FOUND');
    expectError(await events(owner, '', stranger.organisationId), 404, 'NOT_FOUND');
    expectError(await events(owner, '', 999_999), 404, 'NOT_FOUND');

    // The member's own feed has their joining and their booking, nothing of anyone else's.
    const own = await feedReader(t.app, member, '/api/me/events').next();
    assert.deepEqual(
      own.map((event) => [
        event.type,
        event.type.startsWith('reservation.') ? event.data.id : event.data.userId,
      ]),
      [
        ['membership.invited', member.id],
        ['membership.accepted', member.id],
        ['reservation.created', booked.id],
      ],
    );
    assert.ok(own.every((event) => event.userId === member.id));
    const outsider = await registerUser(t.app);
    assert.deepEqual(await feedReader(t.app, outsider, '/api/me/events').next(), []);
    assert.equal((await as(t.app, outsider).get('/api/me/events')).statusCode, 200);
    const anonymous = await t.app.inject({ method: 'GET', url: '/api/me/events' });
    assert.equal(anonymous.statusCode, 401);
  });

  test('pages in id order from any cursor; types filters; an unknown type and a bad cursor are 400', async () => {
    const first = await createReservation(t.app, owner, { resourceId: room.id, ...hourSlot(mon, 10) });
    expectStatus(await as(t.app, owner).post(`/api/reservations/${first.id}/cancel`), 200);
    await createReservation(t.app, owner, { resourceId: room.id, ...hourSlot(mon, 11) });
    const all = await feedReader(t.app, owner, `/api/organisations/${owner.organisationId}/events`).next();
    const ids = all.map((event) => BigInt(event.id));
    assert.deepEqual(
      ids,
      [...ids].sort((a, b) => (a < b ? -1 : 1)),
      'ascending',
    );
    assert.equal(new Set(ids).size, ids.length);

    // One at a time from the start: the same events, each page's cursor its last id.
    const walked: string[] = [];
    let cursor = '';
    for (;;) {
      const page = expectStatus(await events(owner, `?limit=1${cursor ? `&after=${cursor}` : ''}`), 200);
      if (page.items.length === 0) {
        assert.equal(page.nextCursor, cursor, 'an empty page keeps the cursor');
        break;
      }
      walked.push(page.items[0].id);
      cursor = page.nextCursor;
    }
    assert.deepEqual(
      walked,
      all.map((event) => event.id),
    );
    // Replay from the middle.
    const middle = all[1]!.id;
    const replay = expectStatus(await events(owner, `?after=${middle}`), 200);
    assert.deepEqual(
      replay.items.map((event: FeedEvent) => event.id),
      all.slice(2).map((event) => event.id),
    );

    const cancelled = expectStatus(await events(owner, '?types=reservation.cancelled'), 200);
    assert.deepEqual(
      cancelled.items.map((event: FeedEvent) => [event.type, event.data.id]),
      [['reservation.cancelled', first.id]],
    );
    const two = expectStatus(await events(owner, '?types=reservation.cancelled,%20reservation.created'), 200);
    assert.equal(two.items.length, all.filter((event) => event.type.startsWith('reservation.')).length);

    const unknown = expectError(
      await events(owner, '?types=reservation.created,reservation.exploded'),
      400,
      'VALIDATION_FAILED',
    );
    assert.match(JSON.stringify(unknown), /reservation\.exploded/);
    assert.doesNotMatch(JSON.stringify(unknown), /reservation\.created[^,]/);
    for (const bad of ['abc', '-1', '1.5', '12345678901234567890', ''])
      expectError(await events(owner, `?after=${encodeURIComponent(bad)}`), 400, 'VALIDATION_FAILED');
    expectError(await events(owner, '?limit=0'), 400, 'VALIDATION_FAILED');
    expectError(await events(owner, '?limit=501'), 400, 'VALIDATION_FAILED');
    expectError(await as(t.app, owner).get('/api/me/events?after=x'), 400, 'VALIDATION_FAILED');
  });

  test('concurrent bookings: a reader paging meanwhile sees every event exactly once, in order', async () => {
    const lanes = await createType(t.app, owner, { name: 'Desks' });
    const desks = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        createResource(t.app, owner, { name: `Desk ${i}`, resourceTypeId: lanes.id }),
      ),
    );
    const reader = feedReader(t.app, owner, `/api/organisations/${owner.organisationId}/events`);
    await reader.next();
    const seen: FeedEvent[] = [];
    let writing = true;
    const reading = (async () => {
      while (writing) {
        seen.push(...(await reader.next()));
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      seen.push(...(await reader.next()));
    })();
    let booked: Array<{ id: number }>;
    try {
      booked = await Promise.all(
        desks.flatMap((desk) =>
          [9, 10, 11, 12, 13, 14].map((hour) =>
            createReservation(t.app, owner, { resourceId: desk.id, ...hourSlot(mon, hour) }),
          ),
        ),
      );
    } finally {
      writing = false;
      await reading;
    }
    const ids = seen.map((event) => BigInt(event.id));
    for (let i = 1; i < ids.length; i++) assert.ok(ids[i]! > ids[i - 1]!, 'strictly increasing, no repeat');
    assert.deepEqual(
      seen.map((event) => event.data.id).sort((a, b) => a - b),
      booked.map((reservation) => reservation.id).sort((a, b) => a - b),
      'every booking once',
    );
  });

  test('the retention job deletes events older than 30 days, and only those', async () => {
    // Only this test's events: those of the tests before it are older than its own clock's start.
    await t.db.kysely.deleteFrom('outboxEvents').execute();
    const start = Date.now();
    mock.timers.enable({ apis: ['Date'], now: start });
    const old = await createReservation(t.app, owner, { resourceId: room.id, ...hourSlot(mon, 15) });
    mock.timers.setTime(start + 10 * 86_400_000);
    // The login token has lapsed by now: a change of 20 days ago written as the services write it.
    await t.app.services.outbox.append(t.db.kysely, [
      {
        type: 'reservation.confirmed',
        organisationId: owner.organisationId,
        userId: owner.id,
        data: { id: 424_242 },
      },
    ]);
    const oldEvents = async () =>
      (await t.db.kysely.selectFrom('outboxEvents').select(['occurredAt']).execute()).filter(
        (row) => Date.parse(row.occurredAt) <= start,
      ).length;
    const total = async () => (await t.db.kysely.selectFrom('outboxEvents').select('id').execute()).length;
    const before = await total();
    assert.ok((await oldEvents()) > 0);
    assert.ok(old.id > 0);

    mock.timers.setTime(start + 30 * 86_400_000 - 1_000);
    await t.app.jobs.send(OUTBOX_RETENTION_JOB, {});
    await t.app.jobs.idle();
    assert.equal(await total(), before, 'nothing is 30 days old yet');

    mock.timers.setTime(start + 30 * 86_400_000 + 1);
    await t.app.jobs.send(OUTBOX_RETENTION_JOB, {});
    await t.app.jobs.idle();
    assert.equal(await oldEvents(), 0, 'the events of 30 days ago are gone');
    const kept = await t.app.services.outbox.readAfter(null, 100);
    assert.deepEqual(
      kept.map((event) => (event.data as { id: number }).id),
      [424_242],
      'the event of 20 days ago is kept',
    );
  });
});
