import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  connected,
  localEvents,
  mapCalendar,
  type SyncHarness,
  startSyncHarness,
} from '../../helpers/calendar-sync.js';
import { eventually } from '../../helpers/wait.js';

const DAY = 86_400_000;
const dayFromNow = (n: number) => new Date(Date.now() + n * DAY).toISOString().slice(0, 10);

describe('calendar sync push channels, webhooks, renewal and polling (over real HTTP)', () => {
  let h: SyncHarness;
  before(async () => {
    h = await startSyncHarness({ listen: true });
  });
  after(() => h.stop());

  let counter = 0;
  const mappingOf = (localCalendarId: number) =>
    h.db.kysely
      .selectFrom('calendarSyncMappings')
      .selectAll()
      .where('localCalendarId', '=', localCalendarId)
      .executeTakeFirstOrThrow();

  test('A: a watch channel is opened; a notification syncs that calendar only', async () => {
    const user = await connected(h, 'calendar_provider_a');
    const one = h.a.createCalendar('alice@a.test', { summary: `Push ${++counter}` }).id;
    const two = h.a.createCalendar('alice@a.test', { summary: `Push ${++counter}` }).id;
    const first = await mapCalendar(h, user, 'calendar_provider_a', one);
    await mapCalendar(h, user, 'calendar_provider_a', two);
    const channels = h.a.channels().filter((c) => c.active && (c.calendarId === one || c.calendarId === two));
    assert.equal(channels.length, 2);
    assert.equal(channels[0]!.address, `${h.publicUrl}/api/calendar-sync/webhooks/calendar_provider_a`);
    // The `sync` handshake of each channel was answered.
    await eventually(
      () => h.a.notifications().filter((n) => n.state === 'sync' && n.status === 200).length >= 2,
    );

    h.a.clearRequests();
    h.a.createEvent('alice@a.test', one, {
      summary: 'Pushed',
      start: { dateTime: '2031-01-01T09:00:00Z' },
      end: { dateTime: '2031-01-01T10:00:00Z' },
    });
    await eventually(async () =>
      (await localEvents(h, first.localCalendarId)).some((e) => e.title === 'Pushed'),
    );
    await h.idle();
    const listed = h.a.requests().filter((r) => r.method === 'GET' && r.path.endsWith('/events'));
    assert.ok(listed.length >= 1);
    assert.ok(
      listed.every((r) => decodeURIComponent(r.path).includes(`/calendars/${one}/`)),
      'only the notified calendar was listed',
    );
  });

  test('A: unknown channels and wrong tokens answer 404 and do nothing', async () => {
    const user = await connected(h, 'calendar_provider_a');
    const cal = h.a.createCalendar('alice@a.test', { summary: `Push ${++counter}` }).id;
    await mapCalendar(h, user, 'calendar_provider_a', cal);
    const channel = h.a.channels().find((c) => c.active && c.calendarId === cal)!;
    const notify = (headers: Record<string, string>) =>
      h.app.inject({ method: 'POST', url: '/api/calendar-sync/webhooks/calendar_provider_a', headers });
    const base = {
      'x-goog-channel-id': channel.id,
      'x-goog-channel-token': channel.token!,
      'x-goog-resource-id': channel.resourceId,
      'x-goog-resource-state': 'exists',
      'x-goog-message-number': '7',
    };
    assert.equal((await notify(base)).statusCode, 200);
    assert.equal((await notify({ ...base, 'x-goog-channel-token': 'wrong' })).statusCode, 404);
    assert.equal((await notify({ ...base, 'x-goog-channel-id': 'unknown-channel' })).statusCode, 404);
    assert.equal((await notify({ ...base, 'x-goog-resource-id': 'other-resource' })).statusCode, 404);
    const { 'x-goog-channel-token': _token, ...noToken } = base;
    assert.equal((await notify(noToken)).statusCode, 404);
    assert.equal((await notify({})).statusCode, 404);
    await h.idle();
  });

  test('B: a subscription is validated and a change notification syncs the calendar', async () => {
    const user = await connected(h, 'calendar_provider_b');
    const cal = h.b.createCalendar('alice@b.test', { name: `Push ${++counter}` }).id;
    const synced = await mapCalendar(h, user, 'calendar_provider_b', cal);
    const subscription = h.b.subscriptions().find((s) => s.active && s.calendarId === cal);
    assert.ok(subscription, 'subscribed');
    assert.equal(
      subscription.notificationUrl,
      `${h.publicUrl}/api/calendar-sync/webhooks/calendar_provider_b`,
    );
    assert.ok(
      h.b.notifications().some((n) => n.kind === 'validation' && n.status === 200),
      'the validationToken handshake was answered',
    );
    const day = dayFromNow(2);
    h.b.createEvent('alice@b.test', cal, {
      subject: 'Pushed to B',
      start: { dateTime: `${day}T09:00:00`, timeZone: 'UTC' },
      end: { dateTime: `${day}T10:00:00`, timeZone: 'UTC' },
    });
    await eventually(async () =>
      (await localEvents(h, synced.localCalendarId)).some((e) => e.title === 'Pushed to B'),
    );
    await h.idle();
    await eventually(() => h.b.notifications().some((n) => n.kind === 'notification' && n.status === 202));
  });

  test('B: the handshake echoes text/plain; wrong clientState and unknown subscriptions answer 404', async () => {
    const user = await connected(h, 'calendar_provider_b');
    const cal = h.b.createCalendar('alice@b.test', { name: `Push ${++counter}` }).id;
    await mapCalendar(h, user, 'calendar_provider_b', cal);
    const subscription = h.b.subscriptions().find((s) => s.active && s.calendarId === cal)!;
    const echo = await h.app.inject({
      method: 'POST',
      url: `/api/calendar-sync/webhooks/calendar_provider_b?validationToken=${encodeURIComponent('Validation: <b>x</b>')}`,
    });
    assert.equal(echo.statusCode, 200);
    assert.equal(echo.headers['content-type'], 'text/plain; charset=utf-8');
    assert.equal(echo.body, 'Validation: <b>x</b>');
    const notify = (value: unknown[]) =>
      h.app.inject({
        method: 'POST',
        url: '/api/calendar-sync/webhooks/calendar_provider_b',
        payload: { value },
      });
    const good = {
      subscriptionId: subscription.id,
      clientState: subscription.clientState,
      changeType: 'updated',
    };
    assert.equal((await notify([good])).statusCode, 202);
    assert.equal((await notify([{ ...good, clientState: 'forged' }])).statusCode, 404);
    assert.equal((await notify([{ ...good, subscriptionId: 'unknown' }])).statusCode, 404);
    assert.equal((await notify([{ subscriptionId: subscription.id }])).statusCode, 404);
    const bad = await h.app.inject({
      method: 'POST',
      url: '/api/calendar-sync/webhooks/calendar_provider_b',
      payload: { nope: true },
    });
    assert.equal(bad.statusCode, 400);
    await h.idle();
  });

  test('channels are renewed before they expire (A: new channel, old stopped; B: extended)', async () => {
    const user = await connected(h, 'calendar_provider_a');
    const calA = h.a.createCalendar('alice@a.test', { summary: `Renew ${++counter}` }).id;
    const mappedA = await mapCalendar(h, user, 'calendar_provider_a', calA);
    const userB = await connected(h, 'calendar_provider_b');
    const calB = h.b.createCalendar('alice@b.test', { name: `Renew ${++counter}` }).id;
    const mappedB = await mapCalendar(h, userB, 'calendar_provider_b', calB);
    const beforeA = await mappingOf(mappedA.localCalendarId);
    const beforeB = await mappingOf(mappedB.localCalendarId);
    // Both end within the renewal margin.
    const soon = new Date(Date.now() + 3_600_000).toISOString();
    await h.db.kysely
      .updateTable('calendarSyncMappings')
      .set({ channelExpiresAt: soon })
      .where('id', 'in', [beforeA.id, beforeB.id])
      .execute();
    await h.app.jobs.send('calendar_sync_renew', {});
    await h.idle();
    const afterA = await mappingOf(mappedA.localCalendarId);
    const afterB = await mappingOf(mappedB.localCalendarId);
    assert.notEqual(afterA.channelId, beforeA.channelId, 'A opened a new channel');
    assert.ok(afterA.channelExpiresAt! > soon);
    assert.ok(
      !h.a.channels().some((c) => c.id === beforeA.channelId && c.active),
      'the old channel was stopped',
    );
    assert.ok(h.a.requests().some((r) => r.path.endsWith('/channels/stop') && r.status === 204));
    assert.equal(afterB.channelId, beforeB.channelId, 'B extended the same subscription');
    assert.ok(afterB.channelExpiresAt! > soon);

    // An expired subscription (B answers 404 to the renewal) is replaced.
    h.b.expireSubscriptions();
    await h.db.kysely
      .updateTable('calendarSyncMappings')
      .set({ channelExpiresAt: soon })
      .where('id', '=', beforeB.id)
      .execute();
    await h.app.jobs.send('calendar_sync_renew', {});
    await h.idle();
    const replaced = await mappingOf(mappedB.localCalendarId);
    assert.notEqual(replaced.channelId, beforeB.channelId);
    assert.ok(h.b.subscriptions().some((s) => s.id === replaced.channelId && s.active));
  });

  test('polling is the fallback when there is no live channel', async () => {
    const user = await connected(h, 'calendar_provider_a');
    const cal = h.a.createCalendar('alice@a.test', { summary: `Poll ${++counter}` }).id;
    const mapped = await mapCalendar(h, user, 'calendar_provider_a', cal);
    h.a.expireChannels();
    const mapping = await mappingOf(mapped.localCalendarId);
    // The channel is gone (as if it had expired) and the last poll is long ago.
    await h.db.kysely
      .updateTable('calendarSyncMappings')
      .set({ channelExpiresAt: new Date(Date.now() - 1000).toISOString(), lastPolledAt: null })
      .where('id', '=', mapping.id)
      .execute();
    h.a.createEvent('alice@a.test', cal, {
      summary: 'Polled in',
      start: { dateTime: '2031-02-01T09:00:00Z' },
      end: { dateTime: '2031-02-01T10:00:00Z' },
    });
    await h.app.jobs.send('calendar_sync_poll', {});
    await h.idle();
    assert.ok((await localEvents(h, mapped.localCalendarId)).some((e) => e.title === 'Polled in'));
    const polled = await mappingOf(mapped.localCalendarId);
    assert.ok(polled.lastPolledAt);
    // Claimed for this period: a second tick right away does not queue it again.
    h.a.clearRequests();
    await h.app.jobs.send('calendar_sync_poll', {});
    await h.idle();
    assert.ok(!h.a.requests().some((r) => decodeURIComponent(r.path).includes(`/calendars/${cal}/events`)));
  });
});
