import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import ICAL from 'ical.js';
import { createTestApp, registerUser, type SignedInUser, type TestApp } from '../../helpers/app.js';
import { at, customer, futureMonday } from '../../helpers/booking.js';
import { createResource, createType } from '../../helpers/catalogue.js';
import { call, expectStatus } from '../../helpers/http.js';
import { memberWithRole, ownerWithOrganisation } from '../../helpers/organisations.js';

/**
 * Subscription feeds (issue 26): a secret `.ics` URL of a calendar (owner) and of a
 * resource (staff), RFC 5545 with VTIMEZONE read back by ical.js, `ETag` and 304,
 * revocable (then 404), the token stored only as its hash and never logged.
 */
describe('subscription feeds', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp();
  });
  after(() => t.close());

  const pathOf = (url: string) => new URL(url).pathname;
  const fetchFeed = (url: string, headers: Record<string, string> = {}) =>
    t.app.inject({ method: 'GET', url: pathOf(url), headers });

  async function calendarWithEvents(user: SignedInUser) {
    const calendar = expectStatus(
      await call(t.app, user, 'POST', '/api/calendars', { name: 'Work', timezone: 'Europe/Berlin' }),
      201,
    ) as { id: number };
    const add = async (body: Record<string, unknown>) =>
      expectStatus(await call(t.app, user, 'POST', `/api/calendars/${calendar.id}/events`, body), 201) as {
        id: number;
      };
    const weekly = await add({
      title: 'Team sync',
      startTime: '2031-03-24T09:00:00+01:00',
      endTime: '2031-03-24T10:00:00+01:00',
      timezone: 'Europe/Berlin',
      recurrence: ['RRULE:FREQ=WEEKLY;BYDAY=MO;COUNT=4'],
      location: 'Room 1',
    });
    await add({
      title: 'Holiday',
      startTime: '2031-04-02T00:00:00+02:00',
      endTime: '2031-04-03T00:00:00+02:00',
      allDay: true,
      timezone: 'Europe/Berlin',
      transparency: 'transparent',
    });
    return { calendar, weekly, add };
  }

  test('a calendar feed: RFC 5545 with time zones, parsed back by ical.js; ETag and 304', async () => {
    const owner = await registerUser(t.app);
    const { calendar, weekly, add } = await calendarWithEvents(owner);
    const created = expectStatus(await call(t.app, owner, 'POST', `/api/calendars/${calendar.id}/feed`), 201);
    assert.match(created.url, /^http:\/\/[^/]+\/api\/feeds\/[A-Za-z0-9_-]{20,}\.ics$/);

    const r = await fetchFeed(created.url);
    assert.equal(r.statusCode, 200, r.body);
    assert.match(String(r.headers['content-type']), /^text\/calendar/);
    const etag = String(r.headers.etag);
    assert.match(etag, /^"[^"]+"$/);
    assert.match(String(r.headers['cache-control']), /private/);

    const vcalendar = new ICAL.Component(ICAL.parse(r.body));
    const zone = vcalendar
      .getAllSubcomponents('vtimezone')
      .find((c) => c.getFirstPropertyValue('tzid') === 'Europe/Berlin');
    assert.ok(zone, 'a VTIMEZONE for Europe/Berlin');
    const vevents = vcalendar.getAllSubcomponents('vevent').map((c) => new ICAL.Event(c));
    assert.equal(vevents.length, 2);
    const sync = vevents.find((e) => e.summary === 'Team sync')!;
    assert.equal(sync.uid, `event-${weekly.id}@${new URL(created.url).hostname}`);
    assert.equal(sync.location, 'Room 1');
    assert.equal(sync.component.getFirstProperty('dtstart')!.getParameter('tzid'), 'Europe/Berlin');
    // The rule expands in the zone: 09:00 local before and after the change to summer time.
    const starts: string[] = [];
    const iterator = sync.iterator();
    for (let next = iterator.next(); next; next = iterator.next()) starts.push(next.toJSDate().toISOString());
    assert.deepEqual(starts, [
      '2031-03-24T08:00:00.000Z',
      '2031-03-31T07:00:00.000Z',
      '2031-04-07T07:00:00.000Z',
      '2031-04-14T07:00:00.000Z',
    ]);
    const holiday = vevents.find((e) => e.summary === 'Holiday')!;
    assert.equal(holiday.startDate.isDate, true);
    assert.equal(holiday.startDate.toString(), '2031-04-02');
    assert.equal(holiday.component.getFirstPropertyValue('transp'), 'TRANSPARENT');

    // Unchanged: 304 for the tag, the same tag again.
    const unchanged = await fetchFeed(created.url, { 'if-none-match': etag });
    assert.equal(unchanged.statusCode, 304);
    assert.equal(unchanged.body, '');
    assert.equal((await fetchFeed(created.url)).headers.etag, etag);
    // Changed: a new tag, and the old one answers the whole feed.
    await add({ title: 'New one', startTime: '2031-05-01T10:00:00Z', endTime: '2031-05-01T11:00:00Z' });
    const changed = await fetchFeed(created.url, { 'if-none-match': etag });
    assert.equal(changed.statusCode, 200);
    assert.notEqual(changed.headers.etag, etag);
    assert.match(changed.body, /SUMMARY:New one/);
  });

  test('revoked or replaced answers 404; only the owner makes or revokes; the token is stored hashed', async () => {
    const owner = await registerUser(t.app);
    const other = await registerUser(t.app);
    const { calendar } = await calendarWithEvents(owner);
    expectStatus(await call(t.app, other, 'POST', `/api/calendars/${calendar.id}/feed`), 404, 'NOT_FOUND');
    expectStatus(await call(t.app, null, 'POST', `/api/calendars/${calendar.id}/feed`), 401);
    expectStatus(await call(t.app, owner, 'DELETE', `/api/calendars/${calendar.id}/feed`), 404, 'NOT_FOUND');

    const first = expectStatus(await call(t.app, owner, 'POST', `/api/calendars/${calendar.id}/feed`), 201);
    const token = pathOf(first.url).split('/').pop()!.replace('.ics', '');
    const stored = await t.db.kysely
      .selectFrom('feedTokens')
      .selectAll()
      .where('calendarId', '=', calendar.id)
      .execute();
    assert.equal(stored.length, 1);
    assert.notEqual(stored[0]!.tokenHash, token);
    assert.ok(!JSON.stringify(stored).includes(token), 'the token itself is not stored');

    const second = expectStatus(await call(t.app, owner, 'POST', `/api/calendars/${calendar.id}/feed`), 201);
    assert.notEqual(second.url, first.url);
    expectStatus(await fetchFeed(first.url), 404, 'NOT_FOUND');
    assert.equal((await fetchFeed(second.url)).statusCode, 200);

    expectStatus(await call(t.app, other, 'DELETE', `/api/calendars/${calendar.id}/feed`), 404, 'NOT_FOUND');
    expectStatus(await call(t.app, owner, 'DELETE', `/api/calendars/${calendar.id}/feed`), 204);
    expectStatus(await fetchFeed(second.url), 404, 'NOT_FOUND');
    expectStatus(await t.app.inject({ method: 'GET', url: '/api/feeds/not-a-token' }), 404, 'NOT_FOUND');
  });

  test("a resource feed (staff): its reservations as busy blocks in the organisation's zone, no customer data", async () => {
    const owner = await ownerWithOrganisation(t.app, { timezone: 'America/New_York' });
    const type = await createType(t.app, owner, { minBookingDuration: 30 });
    const res = await createResource(t.app, owner, { name: 'Chair', resourceTypeId: type.id, capacity: 2 });
    // Within the feed's year ahead.
    const mon = futureMonday();
    const booked = expectStatus(
      await call(t.app, owner, 'POST', '/api/reservations', {
        customer,
        resourceId: res.id,
        startTime: at(mon, 14),
        endTime: at(mon, 15),
      }),
      201,
    );
    const cancelled = expectStatus(
      await call(t.app, owner, 'POST', '/api/reservations', {
        customer,
        resourceId: res.id,
        startTime: at(mon, 38),
        endTime: at(mon, 39),
      }),
      201,
    );
    expectStatus(await call(t.app, owner, 'POST', `/api/reservations/${cancelled.id}/cancel`, {}), 200);

    const member = await memberWithRole(t.app, owner, 'MEMBER');
    expectStatus(await call(t.app, member, 'POST', `/api/resources/${res.id}/feed`), 403, 'FORBIDDEN');
    const created = expectStatus(await call(t.app, owner, 'POST', `/api/resources/${res.id}/feed`), 201);
    const r = await fetchFeed(created.url);
    assert.equal(r.statusCode, 200, r.body);
    assert.ok(!r.body.includes(customer.name) && !r.body.includes(customer.email), 'no customer data');
    const vcalendar = new ICAL.Component(ICAL.parse(r.body));
    assert.ok(
      vcalendar
        .getAllSubcomponents('vtimezone')
        .some((c) => c.getFirstPropertyValue('tzid') === 'America/New_York'),
    );
    const vevents = vcalendar.getAllSubcomponents('vevent').map((c) => new ICAL.Event(c));
    assert.deepEqual(
      vevents.map((e) => [
        e.uid.split('@')[0],
        e.startDate.toJSDate().toISOString(),
        e.component.getFirstProperty('dtstart')!.getParameter('tzid'),
      ]),
      [[`reservation-${booked.id}`, at(mon, 14), 'America/New_York']],
    );
    expectStatus(await call(t.app, owner, 'DELETE', `/api/resources/${res.id}/feed`), 204);
    expectStatus(await fetchFeed(created.url), 404, 'NOT_FOUND');
  });
});
