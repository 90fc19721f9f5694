import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { zoneName } from '../../src/lib/time-zones.js';
import { createTestApp, registerUser, type TestApp } from '../helpers/app.js';
import { futureMonday } from '../helpers/booking.js';
import { connected, mapCalendar, type SyncHarness, startSyncHarness } from '../helpers/calendar-sync.js';
import { createCalendar } from '../helpers/calendars.js';
import { createResource, createType } from '../helpers/catalogue.js';
import { as, expectStatus } from '../helpers/http.js';
import { ownerWithOrganisation } from '../helpers/organisations.js';

/**
 * A zone is answered as it was given (DECISIONS.md "What the review found, decided"): an
 * alias such as Asia/Kolkata (Intl's canonical name is the older Asia/Calcutta) or Etc/UTC
 * comes back as itself from every zone-valued field; only letter case is corrected.
 */
describe('time zones are answered as given', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp();
  });
  after(() => t.close());

  test('the name: as given, its case corrected; null for no zone', () => {
    assert.equal(zoneName('Asia/Kolkata'), 'Asia/Kolkata');
    assert.equal(zoneName('Europe/Kyiv'), 'Europe/Kyiv');
    assert.equal(zoneName('Etc/UTC'), 'Etc/UTC');
    assert.equal(zoneName('europe/berlin'), 'Europe/Berlin');
    assert.equal(zoneName('utc'), 'UTC');
    assert.equal(zoneName('Mars/Olympus'), null);
  });

  test('organisations, and the answers that carry their zone (availability, the public page)', async () => {
    const owner = await ownerWithOrganisation(t.app, { timezone: 'Asia/Kolkata', slug: 'kolkata-zone' });
    const api = as(t.app, owner);
    const path = `/api/organisations/${owner.organisationId}`;
    assert.equal(expectStatus(await api.get(path), 200).timezone, 'Asia/Kolkata');
    assert.equal(expectStatus(await api.patch(path, { timezone: 'Etc/UTC' }), 200).timezone, 'Etc/UTC');
    assert.equal(
      expectStatus(await api.patch(path, { timezone: 'Europe/Kyiv' }), 200).timezone,
      'Europe/Kyiv',
    );
    assert.equal(
      expectStatus(await api.patch(path, { timezone: 'Asia/Kolkata' }), 200).timezone,
      'Asia/Kolkata',
    );
    const type = await createType(t.app, owner);
    const room = await createResource(t.app, owner, { name: 'Room', resourceTypeId: type.id });
    const from = futureMonday().toISOString();
    const to = new Date(Date.parse(from) + 86_400_000).toISOString();
    const range = `from=${encodeURIComponent(from)}&to=${encodeURIComponent(to)}`;
    const availability = expectStatus(await api.get(`/api/resources/${room.id}/availability?${range}`), 200);
    assert.equal(availability.timezone, 'Asia/Kolkata');
    const page = expectStatus(
      await t.app.inject({ method: 'GET', url: '/api/public/organisations/kolkata-zone' }),
      200,
    );
    assert.equal(page.organisation.timezone, 'Asia/Kolkata');
  });

  test('calendars, events and routines', async () => {
    const user = await registerUser(t.app);
    const api = as(t.app, user);
    const calendar = await createCalendar(t.app, user, { timezone: 'Asia/Kolkata' });
    assert.equal(calendar.timezone, 'Asia/Kolkata');
    assert.equal(
      expectStatus(await api.patch(`/api/calendars/${calendar.id}`, { timezone: 'Etc/UTC' }), 200).timezone,
      'Etc/UTC',
    );
    const event = expectStatus(
      await api.post(`/api/calendars/${calendar.id}/events`, {
        title: 'Stand-up',
        startTime: '2031-03-24T09:00:00+05:30',
        endTime: '2031-03-24T09:30:00+05:30',
        timezone: 'Asia/Kolkata',
      }),
      201,
    );
    assert.equal(event.timezone, 'Asia/Kolkata');
    assert.equal(expectStatus(await api.get(`/api/events/${event.id}`), 200).timezone, 'Asia/Kolkata');
    const routine = expectStatus(
      await api.post('/api/routines', {
        name: 'Plants',
        startDate: '2031-03-24',
        recurrence: ['RRULE:FREQ=WEEKLY'],
        timezone: 'Asia/Kolkata',
        templates: [{ title: 'Water the plants' }],
      }),
      201,
    );
    assert.equal(routine.timezone, 'Asia/Kolkata');
  });

  test('a synced calendar keeps the provider calendar’s zone as the provider names it', async () => {
    const h: SyncHarness = await startSyncHarness();
    try {
      const user = await connected(h, 'calendar_provider_a');
      const external = h.a.createCalendar('alice@a.test', { summary: 'Kolkata', timeZone: 'Asia/Kolkata' });
      const synced = await mapCalendar(h, user, 'calendar_provider_a', external.id);
      const local = expectStatus(await as(h.app, user).get(`/api/calendars/${synced.localCalendarId}`), 200);
      assert.equal(local.timezone, 'Asia/Kolkata');
    } finally {
      await h.stop();
    }
  });

  test('the MCP time tools answer the zone asked for, and the organisation’s, as given', async () => {
    const owner = await ownerWithOrganisation(t.app, { timezone: 'Asia/Kolkata' });
    const agent = expectStatus(await as(t.app, owner).post('/api/agents', { name: 'Clock' }), 201);
    const { key } = expectStatus(
      await as(t.app, owner).post(`/api/agents/${agent.id}/keys`, { label: 'k' }),
      201,
    );
    const execute = async (action: string, input: Record<string, unknown>) =>
      expectStatus(
        await t.app.inject({
          method: 'POST',
          url: '/api/mcp/execute',
          headers: { 'x-agent-key': key },
          payload: { action, input },
        }),
        200,
      ).result;
    assert.equal((await execute('time.now', {})).timeZone, 'Asia/Kolkata');
    assert.equal((await execute('time.now', { timeZone: 'Europe/Kyiv' })).timeZone, 'Europe/Kyiv');
    const converted = await execute('time.convert', { time: '2031-03-24T09:00', toTimeZone: 'Etc/UTC' });
    assert.equal(converted.from.timeZone, 'Asia/Kolkata');
    assert.equal(converted.to.timeZone, 'Etc/UTC');
    assert.equal(converted.instant, '2031-03-24T03:30:00.000Z');
  });
});
