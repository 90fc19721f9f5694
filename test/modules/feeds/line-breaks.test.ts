import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { createTestApp, registerUser, type TestApp } from '../../helpers/app.js';
import { at, book, customer, futureMonday, hourSlot } from '../../helpers/booking.js';
import { createCalendar } from '../../helpers/calendars.js';
import { createResource, createType } from '../../helpers/catalogue.js';
import { as, expectStatus } from '../../helpers/http.js';
import { ownerWithOrganisation } from '../../helpers/organisations.js';

/**
 * Nothing a client writes becomes a line of iCalendar of its own (DECISIONS.md "What the
 * review found, decided"): recurrence lines and the one-line texts a feed or invitation
 * carries (names, titles, locations) refuse CR and LF with a 400 naming the field;
 * recurrence parameters the service does not know are refused, not ignored; a rule stored
 * before this never reaches a feed as raw lines.
 */
describe('line breaks and unknown parameters never reach iCalendar', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp();
  });
  after(() => t.close());

  function expectRefusal(response: LightMyRequestResponse, field: string, message: RegExp) {
    assert.equal(response.statusCode, 400, response.body);
    const { error } = response.json();
    assert.equal(error.code, 'VALIDATION_FAILED');
    const detail = error.details.find((d: { path: string }) => d.path.replace(/^body\./, '') === field);
    assert.ok(detail, `a detail for ${field}: ${response.body}`);
    assert.match(detail.message, message);
  }

  const injected = 'EXDATE;X-EVIL="a\r\nATTENDEE:mailto:victim@example.test\r\nX-B=c":20310331T090000Z';
  const event = {
    title: 'Team sync',
    startTime: '2031-03-24T09:00:00+01:00',
    endTime: '2031-03-24T10:00:00+01:00',
    timezone: 'Europe/Berlin',
  };

  test('an event recurrence with a line break or an unknown parameter is refused', async () => {
    const user = await registerUser(t.app);
    const calendar = await createCalendar(t.app, user, { timezone: 'Europe/Berlin' });
    const create = (recurrence: string[]) =>
      as(t.app, user).post(`/api/calendars/${calendar.id}/events`, { ...event, recurrence });
    const weekly = 'RRULE:FREQ=WEEKLY;COUNT=4';
    expectRefusal(await create([weekly, injected]), 'recurrence.1', /line break|carriage return|line feed/);
    expectRefusal(await create([weekly, 'EXDATE;X-FOO=bar:20310331T090000Z']), 'recurrence.1', /X-FOO/);
    expectRefusal(await create([weekly, 'RDATE;LANGUAGE=en:20310401T090000Z']), 'recurrence.1', /LANGUAGE/);
    expectRefusal(await create(['RRULE:FREQ=WEEKLY;COUNT=4\nX-A:b']), 'recurrence.0', /line feed/);
    // What the service knows stays accepted.
    expectStatus(await create([weekly, 'EXDATE;TZID=Europe/Berlin:20310331T090000']), 201);
    expectStatus(await create([weekly, 'EXDATE;VALUE=DATE:20310407']), 201);
  });

  test('a reservation series refuses the same lines', async () => {
    const owner = await ownerWithOrganisation(t.app, { timezone: 'UTC' });
    const type = await createType(t.app, owner, { recurringEnabled: true });
    const resource = await createResource(t.app, owner, { name: 'Room', resourceTypeId: type.id });
    const mon = futureMonday();
    // One time, with the recurrence under test.
    const bookSeries = (recurrence: string[]) =>
      book(t.app, owner, { resourceId: resource.id, ...hourSlot(mon, 9), recurrence });
    const exdate = (params: string) =>
      `EXDATE${params}:${at(mon, 24 * 7 + 9)
        .replace(/[-:]/g, '')
        .replace('.000', '')}`;
    expectRefusal(
      await bookSeries(['RRULE:FREQ=WEEKLY;COUNT=3', exdate(';X-EVIL="a\r\nB:c"')]),
      'recurrence.1',
      /carriage return|line feed/,
    );
    expectRefusal(
      await bookSeries(['RRULE:FREQ=WEEKLY;COUNT=3', exdate(';X-FOO=1')]),
      'recurrence.1',
      /X-FOO/,
    );
    expectStatus(await bookSeries(['RRULE:FREQ=WEEKLY;COUNT=3', exdate('')]), 201);
  });

  test('names, titles and locations that reach a feed or an invitation are one line', async () => {
    const owner = await ownerWithOrganisation(t.app, { timezone: 'UTC' });
    const api = as(t.app, owner);
    const type = await createType(t.app, owner);
    const resource = await createResource(t.app, owner, { name: 'Room', resourceTypeId: type.id });
    const calendar = await createCalendar(t.app, owner);
    const mon = futureMonday();
    const broken = 'Line one\r\nDTSTART:19700101T000000Z';
    const cases: Array<[string, () => Promise<LightMyRequestResponse>]> = [
      ['name', () => api.post('/api/organisations', { name: broken })],
      ['name', () => api.patch(`/api/organisations/${owner.organisationId}`, { name: 'A\nB' })],
      ['name', () => api.post('/api/calendars', { name: broken })],
      ['name', () => api.patch(`/api/calendars/${calendar.id}`, { name: 'A\rB' })],
      ['name', () => api.post('/api/resources', { name: broken, resourceTypeId: type.id })],
      ['name', () => api.patch(`/api/resources/${resource.id}`, { name: 'A\nB' })],
      ['name', () => api.post('/api/resource-types', { name: broken })],
      ['name', () => api.patch(`/api/resource-types/${type.id}`, { name: 'A\nB' })],
      ['title', () => api.post(`/api/calendars/${calendar.id}/events`, { ...event, title: broken })],
      ['location', () => api.post(`/api/calendars/${calendar.id}/events`, { ...event, location: broken })],
      [
        'customer.name',
        () =>
          api.post('/api/reservations', {
            resourceId: resource.id,
            startTime: at(mon, 9),
            endTime: at(mon, 10),
            customer: { ...customer, name: broken },
          }),
      ],
    ];
    for (const [field, send] of cases) expectRefusal(await send(), field, /one line/);
    // A description is many lines by nature: it reaches iCalendar escaped (\n), never raw.
    const described = expectStatus(
      await api.post(`/api/calendars/${calendar.id}/events`, { ...event, description: 'One\nTwo' }),
      201,
    );
    assert.equal(described.description, 'One\nTwo');
  });

  test('a rule stored with a line break before this never reaches a feed', async () => {
    const user = await registerUser(t.app);
    const calendar = await createCalendar(t.app, user, { timezone: 'Europe/Berlin' });
    const created = expectStatus(
      await as(t.app, user).post(`/api/calendars/${calendar.id}/events`, {
        ...event,
        recurrence: ['RRULE:FREQ=WEEKLY;COUNT=4'],
      }),
      201,
    );
    await t.db.kysely
      .updateTable('events')
      .set({ recurrence: JSON.stringify(['RRULE:FREQ=WEEKLY;COUNT=4', injected]) })
      .where('id', '=', created.id)
      .execute();
    const feed = expectStatus(await as(t.app, user).post(`/api/calendars/${calendar.id}/feed`), 201);
    const body = (await t.app.inject({ method: 'GET', url: new URL(feed.url).pathname })).body;
    // As the API shows a stored rule that no longer compiles: the event once, its first occurrence.
    assert.match(body, /SUMMARY:Team sync/);
    assert.doesNotMatch(body, /RRULE/);
    assert.doesNotMatch(body, /^ATTENDEE/m);
    assert.doesNotMatch(body, /X-EVIL/);
  });
});
