import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { loadConfig } from '../../../src/config.js';
import { PAGE_CSP } from '../../../src/http/pages.js';
import { decryptSecret } from '../../../src/lib/crypto.js';
import { registerUser, TEST_ENV } from '../../helpers/app.js';
import {
  bindingCookie,
  connect,
  connected,
  force,
  localEvents,
  mapCalendar,
  type Provider,
  type SyncHarness,
  startSyncHarness,
  status,
} from '../../helpers/calendar-sync.js';

const PROVIDERS: Provider[] = ['calendar_provider_a', 'calendar_provider_b'];
const FRONTEND = 'http://frontend.test';

describe('calendar sync: connect, callback, mapping, disconnect, force', () => {
  let h: SyncHarness;
  before(async () => {
    h = await startSyncHarness();
  });
  after(() => h.stop());

  const primaryOf = (
    provider: Provider,
    account = provider === 'calendar_provider_a' ? 'alice@a.test' : 'alice@b.test',
  ) =>
    provider === 'calendar_provider_a'
      ? account
      : h.b.calendars(account).find((calendar) => calendar.isDefaultCalendar)!.id;

  for (const provider of PROVIDERS) {
    test(`${provider}: the full connect flow stores sealed tokens and lists the calendars`, async () => {
      const user = await registerUser(h.app);
      const auth = await h.app.inject({
        method: 'GET',
        url: `/api/calendar-sync/auth/${provider}`,
        headers: user.auth,
      });
      assert.equal(auth.statusCode, 200);
      const authUrl = new URL(auth.json().authUrl);
      // PKCE S256 and a state; the redirect back is the service's public callback.
      assert.equal(authUrl.searchParams.get('code_challenge_method'), 'S256');
      assert.match(authUrl.searchParams.get('code_challenge')!, /^[A-Za-z0-9_-]{43}$/);
      assert.match(authUrl.searchParams.get('state')!, /^[A-Za-z0-9_-]{43}\.[A-Za-z0-9_-]{43}$/);
      assert.equal(
        authUrl.searchParams.get('redirect_uri'),
        `http://service.test/api/calendar-sync/callback/${provider}`,
      );

      const landing = await connect(h, user, provider);
      assert.equal(landing.origin, FRONTEND);
      assert.equal(landing.pathname, '/calendar-sync');
      assert.equal(landing.searchParams.get('success'), 'connected');
      assert.equal(landing.searchParams.get('provider'), provider);

      const item = await status(h.app, user, provider);
      assert.equal(item.isConnected, true);
      assert.equal(item.connectionState, 'connected');
      assert.equal(item.lastError, null);
      assert.ok(item.calendars.some((c: { primary: boolean }) => c.primary));
      assert.deepEqual(item.syncedCalendars, []);

      // Tokens at rest: AES-256-GCM sealed, bound to the user and provider; nothing readable.
      const row = await h.db.kysely
        .selectFrom('calendarSyncConnections')
        .selectAll()
        .where('userId', '=', user.id)
        .executeTakeFirstOrThrow();
      assert.match(row.accessTokenEnc, /^v1\./);
      const key = loadConfig(TEST_ENV).encryptionKey;
      const access = decryptSecret(key, row.accessTokenEnc, `calendar-sync:${user.id}:${provider}:access`);
      assert.ok(access.length > 10);
      assert.ok(!row.accessTokenEnc.includes(access));
      assert.throws(() =>
        decryptSecret(key, row.accessTokenEnc, `calendar-sync:${user.id + 1}:${provider}:access`),
      );
      assert.ok(row.refreshTokenEnc?.startsWith('v1.'));
      // No token reaches a response.
      const body = JSON.stringify(
        (await h.app.inject({ method: 'GET', url: '/api/calendar-sync/status', headers: user.auth })).json(),
      );
      assert.ok(!body.includes(access));
    });
  }

  describe('every callback failure redirects to the landing page, never 400', () => {
    const provider: Provider = 'calendar_provider_a';
    const expectError = (location: string | string[] | undefined, code: string) => {
      const url = new URL(String(location));
      assert.equal(`${url.origin}${url.pathname}`, `${FRONTEND}/calendar-sync`);
      assert.equal(url.searchParams.get('error'), code);
      assert.ok((url.searchParams.get('message') ?? '').length > 0);
      assert.equal(url.searchParams.get('success'), null);
    };
    /** A connect started in "the browser" whose binding cookie `cookies` holds. */
    let cookies: Record<string, string> = {};
    async function freshState(user: Awaited<ReturnType<typeof registerUser>>) {
      const auth = await h.app.inject({
        method: 'GET',
        url: `/api/calendar-sync/auth/${provider}`,
        headers: user.auth,
      });
      cookies = bindingCookie(auth);
      return new URL(auth.json().authUrl);
    }
    const callback = (query: string, which: string = provider) =>
      h.app.inject({ method: 'GET', url: `/api/calendar-sync/callback/${which}?${query}`, cookies });

    test('denied consent (provider error, no code)', async () => {
      const user = await registerUser(h.app);
      const authUrl = await freshState(user);
      authUrl.searchParams.set('deny', '1');
      const consent = await fetch(authUrl, { redirect: 'manual' });
      const back = new URL(consent.headers.get('location')!);
      assert.equal(back.searchParams.get('error'), 'access_denied');
      const r = await h.app.inject({ method: 'GET', url: `${back.pathname}${back.search}`, cookies });
      assert.equal(r.statusCode, 302);
      expectError(r.headers.location, 'access_denied');
      // The state was spent: using it now with a code fails.
      const reuse = await callback(`code=abc&state=${encodeURIComponent(back.searchParams.get('state')!)}`);
      expectError(reuse.headers.location, 'invalid_state');
      assert.equal((await status(h.app, user, provider)).isConnected, false);
    });

    test('no code at all', async () => {
      const user = await registerUser(h.app);
      const state = (await freshState(user)).searchParams.get('state')!;
      const r = await callback(`state=${encodeURIComponent(state)}`);
      assert.equal(r.statusCode, 302);
      expectError(r.headers.location, 'missing_code');
      const bare = await callback('');
      expectError(bare.headers.location, 'missing_code');
    });

    test('forged state, and userId alone never connects', async () => {
      const user = await registerUser(h.app);
      const state = (await freshState(user)).searchParams.get('state')!;
      const [nonce] = state.split('.');
      const forged = `${nonce}.${'A'.repeat(43)}`;
      expectError((await callback(`code=x&state=${forged}`)).headers.location, 'invalid_state');
      expectError(
        (await callback(`code=x&state=${'B'.repeat(43)}.${'C'.repeat(43)}`)).headers.location,
        'invalid_state',
      );
      expectError((await callback(`code=x&userId=${user.id}`)).headers.location, 'invalid_state');
      expectError((await callback('code=x&state=not-a-state')).headers.location, 'invalid_state');
      assert.equal((await status(h.app, user, provider)).isConnected, false);
    });

    test('a state issued for another provider or user does not work here', async () => {
      const user = await registerUser(h.app);
      const other = await registerUser(h.app);
      const authUrl = await freshState(user);
      const consent = await fetch(authUrl, { redirect: 'manual' });
      const back = new URL(consent.headers.get('location')!);
      // Same state and code at B's callback: the signature covers the provider.
      const crossed = await callback(back.search.slice(1), 'calendar_provider_b');
      expectError(crossed.headers.location, 'invalid_state');
      // With another user's id in the query: the state's user decides, a mismatch is refused.
      const mismatch = await h.app.inject({
        method: 'GET',
        url: `${back.pathname}${back.search}&userId=${other.id}`,
      });
      expectError(mismatch.headers.location, 'invalid_state');
      assert.equal((await status(h.app, other, provider)).isConnected, false);
    });

    test('expired state', async () => {
      const user = await registerUser(h.app);
      const authUrl = await freshState(user);
      await h.db.kysely
        .updateTable('calendarSyncStates')
        .set({ expiresAt: new Date(Date.now() - 1000).toISOString() })
        .where('userId', '=', user.id)
        .execute();
      const consent = await fetch(authUrl, { redirect: 'manual' });
      const back = new URL(consent.headers.get('location')!);
      const r = await h.app.inject({ method: 'GET', url: `${back.pathname}${back.search}`, cookies });
      expectError(r.headers.location, 'invalid_state');
      assert.equal((await status(h.app, user, provider)).isConnected, false);
    });

    test('reused state', async () => {
      const user = await registerUser(h.app);
      const authUrl = await freshState(user);
      const consent = await fetch(authUrl, { redirect: 'manual' });
      const back = new URL(consent.headers.get('location')!);
      const first = await h.app.inject({ method: 'GET', url: `${back.pathname}${back.search}`, cookies });
      assert.equal(new URL(String(first.headers.location)).searchParams.get('success'), 'connected');
      const again = await h.app.inject({ method: 'GET', url: `${back.pathname}${back.search}`, cookies });
      expectError(again.headers.location, 'invalid_state');
    });

    test('over-long and malformed values, and an unknown provider', async () => {
      const long = (n: number) => 'x'.repeat(n);
      for (const query of [
        `code=${long(2049)}&state=s`,
        `code=c&state=${long(513)}`,
        `code=c&state=s&session_state=${long(257)}`,
        `code=c&state=s&iss=${long(513)}`,
        `code=c&state=s&scope=${long(2049)}`,
        'code=c&state=s&userId=0',
        'code=c&state=s&userId=abc',
        'code=a&code=b&state=s',
      ]) {
        const r = await callback(query);
        assert.equal(r.statusCode, 302, query);
        expectError(r.headers.location, 'invalid_callback');
      }
      const unknown = await callback('code=c&state=s', 'calendar_provider_z');
      assert.equal(unknown.statusCode, 302);
      expectError(unknown.headers.location, 'invalid_callback');
    });

    test('a code the provider refuses at the token endpoint', async () => {
      const user = await registerUser(h.app);
      const state = (await freshState(user)).searchParams.get('state')!;
      const r = await callback(`code=not-a-code&state=${encodeURIComponent(state)}`);
      expectError(r.headers.location, 'token_exchange_failed');
    });
  });

  for (const provider of PROVIDERS) {
    test(`${provider}: mapping creates a local calendar with the defaults, then updates it`, async () => {
      const user = await connected(h, provider);
      const externalId = primaryOf(provider);
      const synced = await mapCalendar(h, user, provider, externalId);
      assert.deepEqual(
        { ...synced, localCalendarId: 0, lastSyncedAt: 'set' },
        {
          externalId,
          localCalendarId: 0,
          localName: `Synced ${externalId}`,
          bidirectionalSync: true,
          importReminders: false,
          triggerAutomationRules: false,
          selectedRuleIds: null,
          lastSyncedAt: 'set',
        },
      );
      assert.ok(synced.lastSyncedAt, 'the first sync ran');
      const calendar = await h.app.inject({
        method: 'GET',
        url: `/api/calendars/${synced.localCalendarId}`,
        headers: user.auth,
      });
      assert.equal(calendar.json().name, `Synced ${externalId}`);

      // Mapping again updates the same local calendar and the settings.
      const again = await h.app.inject({
        method: 'POST',
        url: '/api/calendar-sync/sync',
        headers: user.auth,
        payload: {
          provider,
          calendars: [{ externalId, localName: 'Work', bidirectionalSync: false, importReminders: true }],
        },
      });
      assert.equal(again.statusCode, 200);
      assert.match(again.json().message, /mapped/);
      await h.idle();
      const item = await status(h.app, user, provider);
      assert.equal(item.syncedCalendars.length, 1);
      assert.equal(item.syncedCalendars[0].localCalendarId, synced.localCalendarId);
      assert.equal(item.syncedCalendars[0].localName, 'Work');
      assert.equal(item.syncedCalendars[0].bidirectionalSync, false);
      assert.equal(item.syncedCalendars[0].importReminders, true);
      const renamed = await h.app.inject({
        method: 'GET',
        url: `/api/calendars/${synced.localCalendarId}`,
        headers: user.auth,
      });
      assert.equal(renamed.json().name, 'Work');
    });
  }

  test('mapping validates its input', async () => {
    const user = await connected(h, 'calendar_provider_a');
    const post = (payload: unknown, who = user) =>
      h.app.inject({
        method: 'POST',
        url: '/api/calendar-sync/sync',
        headers: who.auth,
        payload: payload as object,
      });
    assert.equal((await post({ provider: 'calendar_provider_x', calendars: [] })).statusCode, 400);
    assert.equal((await post({ provider: 'calendar_provider_a', calendars: [] })).statusCode, 400);
    assert.equal(
      (await post({ provider: 'calendar_provider_a', calendars: [{ externalId: 'x', localName: '' }] }))
        .statusCode,
      400,
    );
    assert.equal(
      (
        await post({
          provider: 'calendar_provider_a',
          calendars: [{ externalId: 'x', localName: 'y', extra: 1 }],
        })
      ).statusCode,
      400,
    );
    const twice = { externalId: 'alice@a.test', localName: 'y' };
    assert.equal(
      (await post({ provider: 'calendar_provider_a', calendars: [twice, twice] })).statusCode,
      400,
    );
    // Unknown external calendar, another provider not connected, rules not the user's.
    assert.equal(
      (
        await post({
          provider: 'calendar_provider_a',
          calendars: [{ externalId: 'bob@a.test', localName: 'y' }],
        })
      ).statusCode,
      404,
    );
    assert.equal(
      (await post({ provider: 'calendar_provider_b', calendars: [{ externalId: 'x', localName: 'y' }] }))
        .statusCode,
      409,
    );
    assert.equal(
      (
        await post({
          provider: 'calendar_provider_a',
          calendars: [{ externalId: 'alice@a.test', localName: 'y', selectedRuleIds: [999_999] }],
        })
      ).statusCode,
      404,
    );
  });

  test('status, auth URL and the mutating routes need a credential', async () => {
    for (const [method, url] of [
      ['GET', '/api/calendar-sync/status'],
      ['GET', '/api/calendar-sync/auth/calendar_provider_a'],
      ['POST', '/api/calendar-sync/sync'],
      ['POST', '/api/calendar-sync/disconnect'],
      ['POST', '/api/calendar-sync/disconnect/calendar_provider_a'],
      ['POST', '/api/calendar-sync/force'],
    ] as const) {
      const r = await h.app.inject({ method, url });
      assert.equal(r.statusCode, 401, url);
    }
    const user = await registerUser(h.app);
    const bad = await h.app.inject({
      method: 'GET',
      url: '/api/calendar-sync/auth/nope',
      headers: user.auth,
    });
    assert.equal(bad.statusCode, 400);
  });

  test('disconnect one provider: tokens deleted and revoked, local calendar and events kept, unlinked', async () => {
    const user = await connected(h, 'calendar_provider_a');
    await connect(h, user, 'calendar_provider_b');
    h.a.createEvent('alice@a.test', 'alice@a.test', {
      summary: 'Kept after disconnect',
      start: { dateTime: '2030-01-10T09:00:00Z' },
      end: { dateTime: '2030-01-10T10:00:00Z' },
    });
    const synced = await mapCalendar(h, user, 'calendar_provider_a', 'alice@a.test');
    assert.ok(
      (await localEvents(h, synced.localCalendarId)).some((e) => e.title === 'Kept after disconnect'),
    );
    h.a.clearRequests();

    const r = await h.app.inject({
      method: 'POST',
      url: '/api/calendar-sync/disconnect/calendar_provider_a',
      headers: user.auth,
    });
    assert.equal(r.statusCode, 200);
    assert.equal(typeof r.json().message, 'string');
    await h.idle();
    assert.ok(
      h.a.requests().some((call) => call.path === '/revoke'),
      'the grant is revoked at the provider',
    );

    const a = await status(h.app, user, 'calendar_provider_a');
    assert.equal(a.isConnected, false);
    assert.equal(a.connectionState, 'not_connected');
    assert.deepEqual(a.syncedCalendars, []);
    assert.equal(
      (await status(h.app, user, 'calendar_provider_b')).isConnected,
      true,
      'the other provider stays',
    );
    const rows = await h.db.kysely
      .selectFrom('calendarSyncConnections')
      .select('provider')
      .where('userId', '=', user.id)
      .execute();
    assert.deepEqual(
      rows.map((row) => row.provider),
      ['calendar_provider_b'],
    );
    // The local calendar and its events stay; the mapping is marked unlinked.
    const calendar = await h.app.inject({
      method: 'GET',
      url: `/api/calendars/${synced.localCalendarId}`,
      headers: user.auth,
    });
    assert.equal(calendar.statusCode, 200);
    assert.ok(
      (await localEvents(h, synced.localCalendarId)).some((e) => e.title === 'Kept after disconnect'),
    );
    const mapping = await h.db.kysely
      .selectFrom('calendarSyncMappings')
      .selectAll()
      .where('localCalendarId', '=', synced.localCalendarId)
      .executeTakeFirstOrThrow();
    assert.equal(mapping.state, 'unlinked');
    // Further provider changes no longer arrive.
    h.a.createEvent('alice@a.test', 'alice@a.test', {
      summary: 'After disconnect',
      start: { dateTime: '2030-01-11T09:00:00Z' },
      end: { dateTime: '2030-01-11T10:00:00Z' },
    });
    await force(h, user);
    assert.ok(!(await localEvents(h, synced.localCalendarId)).some((e) => e.title === 'After disconnect'));

    // Reconnecting and mapping the same calendar relinks it, without duplicating events.
    await connect(h, user, 'calendar_provider_a');
    const relinked = await mapCalendar(h, user, 'calendar_provider_a', 'alice@a.test');
    assert.equal(relinked.localCalendarId, synced.localCalendarId);
    const titles = (await localEvents(h, synced.localCalendarId)).map((e) => e.title);
    assert.deepEqual(titles, ['After disconnect', 'Kept after disconnect']);
  });

  test('disconnect all providers', async () => {
    const user = await connected(h, 'calendar_provider_a');
    await connect(h, user, 'calendar_provider_b');
    const r = await h.app.inject({
      method: 'POST',
      url: '/api/calendar-sync/disconnect',
      headers: user.auth,
    });
    assert.equal(r.statusCode, 200);
    assert.match(r.json().message, /2 calendar providers disconnected/);
    await h.idle();
    for (const provider of PROVIDERS) assert.equal((await status(h.app, user, provider)).isConnected, false);
    // Disconnecting again is harmless.
    const again = await h.app.inject({
      method: 'POST',
      url: '/api/calendar-sync/disconnect/calendar_provider_b',
      headers: user.auth,
    });
    assert.equal(again.statusCode, 200);
  });

  test('force queues a sync of every mapped calendar and answers once queued', async () => {
    const user = await connected(h, 'calendar_provider_b');
    const calendarId = primaryOf('calendar_provider_b');
    const synced = await mapCalendar(h, user, 'calendar_provider_b', calendarId);
    // B lists a window around today (calendarView): an event a few days ahead.
    const day = new Date(Date.now() + 5 * 86_400_000).toISOString().slice(0, 10);
    h.b.createEvent('alice@b.test', calendarId, {
      subject: 'Forced in',
      start: { dateTime: `${day}T09:00:00`, timeZone: 'UTC' },
      end: { dateTime: `${day}T10:00:00`, timeZone: 'UTC' },
    });
    const r = await h.app.inject({ method: 'POST', url: '/api/calendar-sync/force', headers: user.auth });
    assert.equal(r.statusCode, 200);
    assert.equal(r.json().message, 'Sync queued for 1 calendar');
    await h.idle();
    assert.ok((await localEvents(h, synced.localCalendarId)).some((e) => e.title === 'Forced in'));
    const nobody = await registerUser(h.app);
    const none = await h.app.inject({
      method: 'POST',
      url: '/api/calendar-sync/force',
      headers: nobody.auth,
    });
    assert.equal(none.statusCode, 200);
    assert.match(none.json().message, /nothing to sync/);
  });

  test('users are isolated: status, mappings and calendars are per user', async () => {
    const alice = await connected(h, 'calendar_provider_a', 'alice');
    const bob = await connected(h, 'calendar_provider_a', 'bob');
    h.a.createEvent('alice@a.test', 'alice@a.test', {
      summary: 'Alice only',
      start: { dateTime: '2030-03-01T09:00:00Z' },
      end: { dateTime: '2030-03-01T10:00:00Z' },
    });
    const aliceSynced = await mapCalendar(h, alice, 'calendar_provider_a', 'alice@a.test');
    const bobStatus = await status(h.app, bob, 'calendar_provider_a');
    assert.deepEqual(bobStatus.syncedCalendars, []);
    assert.ok(!bobStatus.calendars.some((c: { externalId: string }) => c.externalId === 'alice@a.test'));
    // Bob cannot map Alice's external calendar, nor read the local one.
    const steal = await h.app.inject({
      method: 'POST',
      url: '/api/calendar-sync/sync',
      headers: bob.auth,
      payload: {
        provider: 'calendar_provider_a',
        calendars: [{ externalId: 'alice@a.test', localName: 'Mine' }],
      },
    });
    assert.equal(steal.statusCode, 404);
    const read = await h.app.inject({
      method: 'GET',
      url: `/api/calendars/${aliceSynced.localCalendarId}`,
      headers: bob.auth,
    });
    assert.equal(read.statusCode, 404);
    // Bob disconnecting does not touch Alice.
    await h.app.inject({ method: 'POST', url: '/api/calendar-sync/disconnect', headers: bob.auth });
    await h.idle();
    assert.equal((await status(h.app, alice, 'calendar_provider_a')).isConnected, true);
    assert.equal((await status(h.app, alice, 'calendar_provider_a')).syncedCalendars.length, 1);
  });

  test('the landing page is the web app, served with the page policy', async () => {
    const page = await h.app.inject({
      method: 'GET',
      url: '/calendar-sync?success=connected&provider=calendar_provider_a',
    });
    assert.equal(page.statusCode, 200);
    assert.equal(page.headers['content-type'], 'text/html; charset=utf-8');
    assert.equal(page.headers['content-security-policy'], PAGE_CSP);
    assert.match(page.body, /<script type="module" crossorigin src="\/assets\/index-[\w-]+\.js"><\/script>/);
    assert.doesNotMatch(page.body, /<script(?![^>]*\bsrc=)[^>]*>/i);
    // The static page it replaced is gone.
    const script = await h.app.inject({ method: 'GET', url: '/calendar-sync/calendar-sync.js' });
    assert.equal(script.statusCode, 404);
  });
});
