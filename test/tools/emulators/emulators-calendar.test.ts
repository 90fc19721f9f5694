// The calendar provider emulators, exercised with plain fetch as an adapter
// would: OAuth with PKCE (and deny), listing, paging, sync/delta tokens (410),
// ETags (412), push channels and subscriptions with a real local receiver.
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import {
  type CalendarProviderAEmulator,
  startCalendarProviderAEmulator,
} from '../../../tools/emulators/calendar-provider-a/server.js';
import {
  type CalendarProviderBEmulator,
  startCalendarProviderBEmulator,
} from '../../../tools/emulators/calendar-provider-b/server.js';

const REDIRECT = 'http://127.0.0.1:9/callback';
// biome-ignore lint/suspicious/noExplicitAny: JSON bodies read in assertions
type Json = Record<string, any>;

function pkce() {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

async function json(response: Response): Promise<Json> {
  const text = await response.text();
  return text ? (JSON.parse(text) as Json) : {};
}

function form(values: Record<string, string>) {
  return {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(values).toString(),
  };
}

async function waitFor<T>(probe: () => T | undefined | false, timeoutMs = 3000): Promise<T> {
  const started = Date.now();
  for (;;) {
    const value = probe();
    if (value) return value;
    if (Date.now() - started > timeoutMs) throw new Error('waitFor: timed out');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

interface Received {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/** A local webhook receiver; `echoValidation` answers Graph's validationToken handshake. */
async function startReceiver(
  echoValidation = true,
): Promise<{ url: string; received: Received[]; close(): Promise<void> }> {
  const received: Received[] = [];
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const entry = {
        method: request.method ?? '',
        url: request.url ?? '',
        headers: request.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      received.push(entry);
      const token = new URL(entry.url, 'http://receiver').searchParams.get('validationToken');
      if (token !== null) {
        if (!echoValidation) {
          response.writeHead(500);
          response.end();
          return;
        }
        response.writeHead(200, { 'content-type': 'text/plain' });
        response.end(token);
        return;
      }
      response.writeHead(202);
      response.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

// ==================================================================== A

describe('calendar provider A emulator (Google Calendar API v3)', () => {
  let a: CalendarProviderAEmulator;
  const CLIENT = 'client-a';
  const SECRET = 'secret-a';
  const SCOPE = 'https://www.googleapis.com/auth/calendar';

  before(async () => {
    a = await startCalendarProviderAEmulator({ clientId: CLIENT, clientSecret: SECRET });
  });
  after(() => a.close());

  async function authorize(extra: Record<string, string> = {}) {
    const { verifier, challenge } = pkce();
    const url = new URL(a.authUrl);
    url.search = new URLSearchParams({
      client_id: CLIENT,
      redirect_uri: REDIRECT,
      response_type: 'code',
      scope: SCOPE,
      state: 'st-1',
      code_challenge: challenge,
      code_challenge_method: 'S256',
      access_type: 'offline',
      prompt: 'consent',
      ...extra,
    }).toString();
    const response = await fetch(url, { redirect: 'manual' });
    assert.equal(response.status, 302);
    return { location: new URL(response.headers.get('location')!), verifier };
  }

  async function connect(account?: string): Promise<Json> {
    const { location, verifier } = await authorize(account ? { login_hint: account } : {});
    const response = await fetch(
      a.tokenUrl,
      form({
        grant_type: 'authorization_code',
        code: location.searchParams.get('code')!,
        redirect_uri: REDIRECT,
        client_id: CLIENT,
        client_secret: SECRET,
        code_verifier: verifier,
      }),
    );
    assert.equal(response.status, 200);
    return json(response);
  }

  const api = (token: string, path: string, init: RequestInit = {}) =>
    fetch(`${a.apiBase}${path}`, {
      ...init,
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
        ...(init.headers ?? {}),
      },
    });

  test('authorize redirects back with code and state; the code is exchanged once, with the PKCE verifier', async () => {
    const { location, verifier } = await authorize();
    assert.equal(`${location.origin}${location.pathname}`, REDIRECT);
    assert.equal(location.searchParams.get('state'), 'st-1');
    assert.ok(location.searchParams.get('code'));
    assert.equal(location.searchParams.get('scope'), SCOPE);
    const code = location.searchParams.get('code')!;
    const exchange = (codeVerifier: string) =>
      fetch(
        a.tokenUrl,
        form({
          grant_type: 'authorization_code',
          code,
          redirect_uri: REDIRECT,
          client_id: CLIENT,
          client_secret: SECRET,
          code_verifier: codeVerifier,
        }),
      );
    const wrong = await exchange(pkce().verifier);
    assert.equal(wrong.status, 400);
    assert.deepEqual(await json(wrong), {
      error: 'invalid_grant',
      error_description: 'Invalid code verifier.',
    });
    const good = await exchange(verifier);
    assert.equal(good.status, 200);
    const tokens = await json(good);
    assert.equal(tokens.token_type, 'Bearer');
    assert.equal(tokens.expires_in, 3599);
    assert.equal(tokens.scope, SCOPE);
    assert.ok(tokens.access_token && tokens.refresh_token);
    const again = await exchange(verifier);
    assert.equal(again.status, 400);
    assert.equal((await json(again)).error, 'invalid_grant');
  });

  test('deny=1 redirects back with error=access_denied and the state', async () => {
    const { location } = await authorize({ deny: '1' });
    assert.equal(location.searchParams.get('error'), 'access_denied');
    assert.equal(location.searchParams.get('state'), 'st-1');
    assert.equal(location.searchParams.get('code'), null);
  });

  test('a wrong client secret is invalid_client; an unknown redirect_uri gets an error page, not a redirect', async () => {
    const bad = await fetch(
      a.tokenUrl,
      form({ grant_type: 'refresh_token', refresh_token: 'x', client_id: CLIENT, client_secret: 'nope' }),
    );
    assert.equal(bad.status, 401);
    assert.equal((await json(bad)).error, 'invalid_client');
    const page = await fetch(`${a.authUrl}?client_id=other&redirect_uri=${encodeURIComponent(REDIRECT)}`, {
      redirect: 'manual',
    });
    assert.equal(page.status, 401);
    assert.match(page.headers.get('content-type') ?? '', /text\/html/);
  });

  test('refresh gives a new access token (no new refresh token); revoke ends the grant', async () => {
    const tokens = await connect('refresh@a.test');
    const refreshed = await fetch(
      a.tokenUrl,
      form({
        grant_type: 'refresh_token',
        refresh_token: tokens.refresh_token,
        client_id: CLIENT,
        client_secret: SECRET,
      }),
    );
    assert.equal(refreshed.status, 200);
    const body = await json(refreshed);
    assert.notEqual(body.access_token, tokens.access_token);
    assert.equal(body.refresh_token, undefined);
    assert.equal((await api(body.access_token, '/users/me/calendarList')).status, 200);

    const revoked = await fetch(`${a.revokeUrl}?token=${encodeURIComponent(tokens.refresh_token)}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    assert.equal(revoked.status, 200);
    const unauthorised = await api(body.access_token, '/users/me/calendarList');
    assert.equal(unauthorised.status, 401);
    assert.equal((await json(unauthorised)).error.code, 401);
    const denied = await fetch(
      a.tokenUrl,
      form({
        grant_type: 'refresh_token',
        refresh_token: tokens.refresh_token,
        client_id: CLIENT,
        client_secret: SECRET,
      }),
    );
    assert.equal(denied.status, 400);
    assert.deepEqual(await json(denied), {
      error: 'invalid_grant',
      error_description: 'Token has been expired or revoked.',
    });
  });

  test('a second consent without prompt=consent gets no refresh token (as Google does)', async () => {
    await connect('twice@a.test');
    const { location, verifier } = await authorize({ login_hint: 'twice@a.test', prompt: 'select_account' });
    const response = await fetch(
      a.tokenUrl,
      form({
        grant_type: 'authorization_code',
        code: location.searchParams.get('code')!,
        redirect_uri: REDIRECT,
        client_id: CLIENT,
        client_secret: SECRET,
        code_verifier: verifier,
      }),
    );
    const body = await json(response);
    assert.ok(body.access_token);
    assert.equal(body.refresh_token, undefined);
  });

  test('expired access tokens answer 401 until refreshed; the access-token lifetime is an option', async () => {
    const tokens = await connect('expiry@a.test');
    assert.equal(a.expireAccessTokens('expiry@a.test'), 1);
    const response = await api(tokens.access_token, '/users/me/calendarList');
    assert.equal(response.status, 401);
    assert.match(response.headers.get('www-authenticate') ?? '', /invalid_token/);

    const short = await startCalendarProviderAEmulator({ accessTokenTtlSeconds: 0 });
    try {
      const { verifier, challenge } = pkce();
      const auth = await fetch(
        `${short.authUrl}?${new URLSearchParams({ client_id: 'c', redirect_uri: REDIRECT, response_type: 'code', scope: SCOPE, code_challenge: challenge, code_challenge_method: 'S256', access_type: 'offline' })}`,
        { redirect: 'manual' },
      );
      const code = new URL(auth.headers.get('location')!).searchParams.get('code')!;
      const issued = await json(
        await fetch(
          short.tokenUrl,
          form({
            grant_type: 'authorization_code',
            code,
            redirect_uri: REDIRECT,
            client_id: 'c',
            client_secret: 's',
            code_verifier: verifier,
          }),
        ),
      );
      assert.equal(issued.expires_in, 0);
      const call = await fetch(`${short.apiBase}/users/me/calendarList`, {
        headers: { authorization: `Bearer ${issued.access_token}` },
      });
      assert.equal(call.status, 401);
    } finally {
      await short.close();
    }
  });

  test('calendarList shows the primary calendar (id = e-mail) and admin-created ones', async () => {
    const tokens = await connect('lists@a.test');
    const created = a.createCalendar('lists@a.test', {
      summary: 'Team',
      timeZone: 'Europe/Berlin',
      accessRole: 'reader',
    });
    const body = await json(await api(tokens.access_token, '/users/me/calendarList'));
    assert.equal(body.kind, 'calendar#calendarList');
    const primary = body.items.find((item: Json) => item.primary);
    assert.deepEqual(
      {
        id: primary.id,
        summary: primary.summary,
        accessRole: primary.accessRole,
        timeZone: primary.timeZone,
      },
      { id: 'lists@a.test', summary: 'lists@a.test', accessRole: 'owner', timeZone: 'UTC' },
    );
    const team = body.items.find((item: Json) => item.id === created.id);
    assert.equal(team.summary, 'Team');
    assert.equal(team.accessRole, 'reader');
    assert.equal(team.primary, undefined);
    // A reader calendar refuses writes.
    const write = await api(tokens.access_token, `/calendars/${encodeURIComponent(created.id)}/events`, {
      method: 'POST',
      body: JSON.stringify({ summary: 'x', start: { date: '2030-01-01' }, end: { date: '2030-01-02' } }),
    });
    assert.equal(write.status, 403);
    assert.equal((await json(write)).error.errors[0].reason, 'requiredAccessLevel');
  });

  test('events: insert, get, ETag If-Match 412, patch, delete (then 410), validation errors', async () => {
    const tokens = await connect('crud@a.test');
    const insert = await api(tokens.access_token, '/calendars/primary/events', {
      method: 'POST',
      body: JSON.stringify({
        summary: 'Planning',
        description: 'Quarterly',
        location: 'Room 1',
        start: { dateTime: '2030-03-01T10:00:00+01:00', timeZone: 'Europe/Berlin' },
        end: { dateTime: '2030-03-01T11:00:00+01:00', timeZone: 'Europe/Berlin' },
        recurrence: ['RRULE:FREQ=WEEKLY;COUNT=3'],
        reminders: { useDefault: false, overrides: [{ method: 'popup', minutes: 30 }] },
      }),
    });
    assert.equal(insert.status, 200);
    const event = await json(insert);
    assert.equal(event.kind, 'calendar#event');
    assert.equal(event.status, 'confirmed');
    assert.match(event.id, /^[a-v0-9]{26}$/);
    assert.match(event.etag, /^"\d+"$/);
    assert.equal(event.start.dateTime, '2030-03-01T09:00:00Z'); // rendered in the calendar's zone (UTC)
    assert.equal(event.start.timeZone, 'Europe/Berlin');
    assert.deepEqual(event.recurrence, ['RRULE:FREQ=WEEKLY;COUNT=3']);
    assert.deepEqual(event.reminders, { useDefault: false, overrides: [{ method: 'popup', minutes: 30 }] });
    assert.equal(event.iCalUID, `${event.id}@google.com`);

    const path = `/calendars/primary/events/${event.id}`;
    const got = await json(await api(tokens.access_token, path));
    assert.equal(got.etag, event.etag);

    const stale = await api(tokens.access_token, path, {
      method: 'PATCH',
      headers: { 'if-match': '"1"' },
      body: JSON.stringify({ summary: 'Nope' }),
    });
    assert.equal(stale.status, 412);
    assert.equal((await json(stale)).error.errors[0].reason, 'conditionNotMet');

    const patched = await api(tokens.access_token, path, {
      method: 'PATCH',
      headers: { 'if-match': event.etag },
      body: JSON.stringify({
        summary: 'Planning (moved)',
        location: null,
        start: { date: '2030-03-02', dateTime: null },
        end: { date: '2030-03-03', dateTime: null },
      }),
    });
    assert.equal(patched.status, 200);
    const changed = await json(patched);
    assert.equal(changed.summary, 'Planning (moved)');
    assert.equal(changed.description, 'Quarterly');
    assert.equal(changed.location, undefined);
    assert.deepEqual(changed.start, { date: '2030-03-02', timeZone: 'Europe/Berlin' });
    assert.notEqual(changed.etag, event.etag);

    const empty = await api(tokens.access_token, '/calendars/primary/events', {
      method: 'POST',
      body: JSON.stringify({
        start: { dateTime: '2030-01-01T10:00:00Z' },
        end: { dateTime: '2030-01-01T09:00:00Z' },
      }),
    });
    assert.equal(empty.status, 400);
    assert.equal((await json(empty)).error.errors[0].reason, 'timeRangeEmpty');
    const noZone = await api(tokens.access_token, '/calendars/primary/events', {
      method: 'POST',
      body: JSON.stringify({
        start: { dateTime: '2030-01-01T10:00:00' },
        end: { dateTime: '2030-01-01T11:00:00' },
      }),
    });
    assert.equal(noZone.status, 400);

    assert.equal(
      (await api(tokens.access_token, path, { method: 'DELETE', headers: { 'if-match': '"0"' } })).status,
      412,
    );
    assert.equal((await api(tokens.access_token, path, { method: 'DELETE' })).status, 204);
    const gone = await api(tokens.access_token, path, { method: 'DELETE' });
    assert.equal(gone.status, 410);
    assert.equal((await json(await api(tokens.access_token, path))).status, 'cancelled');
    assert.equal((await api(tokens.access_token, '/calendars/primary/events/unknownid1')).status, 404);
  });

  test('paging: maxResults pages, nextSyncToken only on the last page; incremental sync shows changes and cancellations; 410 after expiry', async () => {
    const account = 'paging@a.test';
    const tokens = await connect(account);
    const created = a.createEvents(
      account,
      'primary',
      Array.from({ length: 25 }, (_, i) => ({
        summary: `E${i}`,
        start: { dateTime: `2030-04-${String((i % 28) + 1).padStart(2, '0')}T09:00:00Z` },
        end: { dateTime: `2030-04-${String((i % 28) + 1).padStart(2, '0')}T10:00:00Z` },
      })),
    );
    assert.equal(created.length, 25);

    const seen: string[] = [];
    let pageToken: string | undefined;
    let syncToken: string | undefined;
    let pages = 0;
    do {
      const q = new URLSearchParams({ maxResults: '10', showDeleted: 'false' });
      if (pageToken) q.set('pageToken', pageToken);
      const body = await json(await api(tokens.access_token, `/calendars/primary/events?${q}`));
      pages += 1;
      assert.equal(body.kind, 'calendar#events');
      seen.push(...body.items.map((item: Json) => item.id));
      pageToken = body.nextPageToken;
      if (pageToken) assert.equal(body.nextSyncToken, undefined);
      else syncToken = body.nextSyncToken;
    } while (pageToken);
    assert.equal(pages, 3);
    assert.deepEqual(seen.sort(), created.map((event) => event.id).sort());
    assert.ok(syncToken);

    // Changes through the admin helpers, as another client would make them.
    a.updateEvent(account, 'primary', created[0]!.id, { summary: 'Changed' });
    a.deleteEvent(account, 'primary', created[1]!.id);
    const added = a.createEvent(account, 'primary', {
      summary: 'All day',
      start: { date: '2030-05-01' },
      end: { date: '2030-05-02' },
    });
    const incremental = await json(
      await api(tokens.access_token, `/calendars/primary/events?syncToken=${encodeURIComponent(syncToken!)}`),
    );
    assert.deepEqual(
      incremental.items.map((item: Json) => [item.id, item.status, item.summary]),
      [
        [created[0]!.id, 'confirmed', 'Changed'],
        [created[1]!.id, 'cancelled', undefined],
        [added.id, 'confirmed', 'All day'],
      ],
    );
    assert.deepEqual(Object.keys(incremental.items[1]).sort(), ['etag', 'id', 'kind', 'status']);
    assert.ok(incremental.nextSyncToken);

    const restricted = await api(
      tokens.access_token,
      `/calendars/primary/events?syncToken=${encodeURIComponent(incremental.nextSyncToken)}&timeMin=2030-01-01T00:00:00Z`,
    );
    assert.equal(restricted.status, 400);
    assert.equal((await json(restricted)).error.errors[0].reason, 'syncTokenWithRequestRestrictions');

    a.expireSyncTokens();
    const expired = await api(
      tokens.access_token,
      `/calendars/primary/events?syncToken=${encodeURIComponent(incremental.nextSyncToken)}`,
    );
    assert.equal(expired.status, 410);
    const error = (await json(expired)).error;
    assert.equal(error.code, 410);
    assert.equal(error.errors[0].reason, 'fullSyncRequired');
    const garbage = await api(tokens.access_token, '/calendars/primary/events?syncToken=garbage');
    assert.equal(garbage.status, 410);
  });

  test('watch: a real POST with X-Goog headers (sync, then exists on every change); channels/stop ends it', async () => {
    const receiver = await startReceiver();
    try {
      const account = 'watch@a.test';
      const tokens = await connect(account);
      const response = await api(tokens.access_token, '/calendars/primary/events/watch', {
        method: 'POST',
        body: JSON.stringify({
          id: 'channel-1',
          type: 'web_hook',
          address: receiver.url,
          token: 'secret-token',
          params: { ttl: '3600' },
        }),
      });
      assert.equal(response.status, 200);
      const channel = await json(response);
      assert.equal(channel.kind, 'api#channel');
      assert.equal(channel.id, 'channel-1');
      assert.equal(channel.token, 'secret-token');
      assert.equal(typeof channel.expiration, 'string');
      assert.ok(Math.abs(Number(channel.expiration) - (Date.now() + 3_600_000)) < 5000);
      assert.match(channel.resourceUri, /\/calendar\/v3\/calendars\/primary\/events/);

      const sync = await waitFor(() => receiver.received[0]);
      assert.equal(sync.method, 'POST');
      assert.equal(sync.headers['x-goog-channel-id'], 'channel-1');
      assert.equal(sync.headers['x-goog-channel-token'], 'secret-token');
      assert.equal(sync.headers['x-goog-resource-id'], channel.resourceId);
      assert.equal(sync.headers['x-goog-resource-state'], 'sync');
      assert.equal(sync.headers['x-goog-message-number'], '1');
      assert.ok(sync.headers['x-goog-channel-expiration']);

      // Admin changes notify like API changes; a burst becomes one message.
      a.createEvents(account, 'primary', [
        { summary: 'one', start: { date: '2030-06-01' }, end: { date: '2030-06-02' } },
        { summary: 'two', start: { date: '2030-06-03' }, end: { date: '2030-06-04' } },
      ]);
      const exists = await waitFor(() => receiver.received[1]);
      assert.equal(exists.headers['x-goog-resource-state'], 'exists');
      assert.equal(exists.headers['x-goog-message-number'], '2');
      await api(tokens.access_token, '/calendars/primary/events', {
        method: 'POST',
        body: JSON.stringify({ summary: 'api', start: { date: '2030-06-05' }, end: { date: '2030-06-06' } }),
      });
      await waitFor(() => receiver.received[2]);
      assert.equal(receiver.received[2]!.headers['x-goog-message-number'], '3');

      const duplicate = await api(tokens.access_token, '/calendars/primary/events/watch', {
        method: 'POST',
        body: JSON.stringify({ id: 'channel-1', type: 'web_hook', address: receiver.url }),
      });
      assert.equal(duplicate.status, 400);

      const stop = await api(tokens.access_token, '/channels/stop', {
        method: 'POST',
        body: JSON.stringify({ id: 'channel-1', resourceId: channel.resourceId }),
      });
      assert.equal(stop.status, 204);
      assert.equal(
        (
          await api(tokens.access_token, '/channels/stop', {
            method: 'POST',
            body: JSON.stringify({ id: 'channel-1', resourceId: channel.resourceId }),
          })
        ).status,
        404,
      );
      a.createEvent(account, 'primary', {
        summary: 'after',
        start: { date: '2030-06-07' },
        end: { date: '2030-06-08' },
      });
      await new Promise((resolve) => setTimeout(resolve, 100));
      assert.equal(receiver.received.length, 3);
      assert.ok(a.notifications().some((entry) => entry.channelId === 'channel-1' && entry.status === 202));
    } finally {
      await receiver.close();
    }
  });

  test('list options and write semantics: timeMin, timeZone rendering, PUT replaces, If-None-Match 304, body limit 413', async () => {
    const account = 'options@a.test';
    const tokens = await connect(account);
    const early = a.createEvent(account, 'primary', {
      summary: 'early',
      description: 'kept by patch, dropped by put',
      start: { dateTime: '2030-01-01T10:00:00Z' },
      end: { dateTime: '2030-01-01T11:00:00Z' },
    });
    a.createEvent(account, 'primary', {
      summary: 'late',
      start: { dateTime: '2031-01-01T10:00:00Z' },
      end: { dateTime: '2031-01-01T11:00:00Z' },
    });
    const windowed = await json(
      await api(tokens.access_token, '/calendars/primary/events?timeMin=2030-06-01T00:00:00Z'),
    );
    assert.deepEqual(
      windowed.items.map((item: Json) => item.summary),
      ['late'],
    );
    assert.ok(windowed.nextSyncToken);
    const zoned = await json(
      await api(tokens.access_token, '/calendars/primary/events?timeZone=America/New_York&maxResults=1'),
    );
    assert.equal(zoned.timeZone, 'America/New_York');
    assert.equal(zoned.items[0].start.dateTime, '2030-01-01T05:00:00-05:00');

    const path = `/calendars/primary/events/${early.id}`;
    assert.equal(
      (await api(tokens.access_token, path, { headers: { 'if-none-match': early.etag } })).status,
      304,
    );
    const put = await json(
      await api(tokens.access_token, path, {
        method: 'PUT',
        body: JSON.stringify({
          summary: 'replaced',
          start: { dateTime: '2030-01-01T10:00:00Z' },
          end: { dateTime: '2030-01-01T12:00:00Z' },
        }),
      }),
    );
    assert.equal(put.summary, 'replaced');
    assert.equal(put.description, undefined);
    assert.equal(put.sequence, 1);
    const tooLarge = await api(tokens.access_token, '/calendars/primary/events', {
      method: 'POST',
      body: 'x'.repeat(1024 * 1024 + 1),
    });
    assert.equal(tooLarge.status, 413);
  });

  test('admin HTTP routes and the request log', async () => {
    const account = 'admin@a.test';
    const tokens = await connect(account);
    const created = await fetch(
      `${a.url}/__admin/accounts/${encodeURIComponent(account)}/calendars/primary/events`,
      {
        method: 'POST',
        body: JSON.stringify({
          summary: 'via admin',
          start: { date: '2030-07-01' },
          end: { date: '2030-07-02' },
        }),
      },
    );
    assert.equal(created.status, 201);
    const event = await json(created);
    const patched = await fetch(
      `${a.url}/__admin/accounts/${encodeURIComponent(account)}/calendars/primary/events/${event.id}`,
      {
        method: 'PATCH',
        body: JSON.stringify({ summary: 'patched' }),
      },
    );
    assert.equal((await json(patched)).summary, 'patched');
    a.clearRequests();
    await api(tokens.access_token, `/calendars/primary/events/${event.id}`);
    const log = await json(await fetch(`${a.url}/__admin/requests`));
    assert.equal(log.length, 1);
    assert.equal(log[0].method, 'GET');
    assert.equal(log[0].status, 200);
    assert.equal(log[0].account, account);
    assert.equal(log[0].kind, 'api');
    assert.equal(
      (
        await fetch(
          `${a.url}/__admin/accounts/${encodeURIComponent(account)}/calendars/primary/events/${event.id}`,
          { method: 'DELETE' },
        )
      ).status,
      204,
    );
    assert.equal((await fetch(`${a.url}/__admin/expire-sync-tokens`, { method: 'POST' })).status, 200);
    const revoked = await json(
      await fetch(`${a.url}/__admin/revoke-grants`, { method: 'POST', body: JSON.stringify({ account }) }),
    );
    assert.equal(revoked.revoked, 1);
    assert.equal((await api(tokens.access_token, '/users/me/calendarList')).status, 401);
  });

  test('failure injection: throttle, then normal again', async () => {
    const tokens = await connect('faults@a.test');
    a.setBehaviour('throttle', { times: 1 });
    const throttled = await api(tokens.access_token, '/users/me/calendarList');
    assert.equal(throttled.status, 429);
    assert.equal((await json(throttled)).error.errors[0].reason, 'rateLimitExceeded');
    assert.equal((await api(tokens.access_token, '/users/me/calendarList')).status, 200);
  });
});

// ==================================================================== B

describe('calendar provider B emulator (Microsoft Graph)', () => {
  let b: CalendarProviderBEmulator;
  const CLIENT = 'client-b';
  const SECRET = 'secret-b';
  const SCOPE = 'offline_access Calendars.ReadWrite User.Read';

  before(async () => {
    b = await startCalendarProviderBEmulator({ clientId: CLIENT, clientSecret: SECRET });
  });
  after(() => b.close());

  async function authorize(extra: Record<string, string> = {}) {
    const { verifier, challenge } = pkce();
    const url = new URL(b.authUrl);
    url.search = new URLSearchParams({
      client_id: CLIENT,
      response_type: 'code',
      redirect_uri: REDIRECT,
      response_mode: 'query',
      scope: SCOPE,
      state: 'st-b',
      code_challenge: challenge,
      code_challenge_method: 'S256',
      ...extra,
    }).toString();
    const response = await fetch(url, { redirect: 'manual' });
    assert.equal(response.status, 302);
    return { location: new URL(response.headers.get('location')!), verifier };
  }

  async function connect(account: string): Promise<Json> {
    const { location, verifier } = await authorize({ login_hint: account });
    const response = await fetch(
      b.tokenUrl,
      form({
        client_id: CLIENT,
        client_secret: SECRET,
        grant_type: 'authorization_code',
        code: location.searchParams.get('code')!,
        redirect_uri: REDIRECT,
        code_verifier: verifier,
        scope: SCOPE,
      }),
    );
    assert.equal(response.status, 200);
    return json(response);
  }

  const api = (token: string, path: string, init: RequestInit = {}) =>
    fetch(path.startsWith('http') ? path : `${b.apiBase}${path}`, {
      ...init,
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
        ...(init.headers ?? {}),
      },
    });

  const event = (subject: string, start: string, end: string, extra: Json = {}) => ({
    subject,
    start: { dateTime: start, timeZone: 'UTC' },
    end: { dateTime: end, timeZone: 'UTC' },
    ...extra,
  });

  test('authorize with PKCE, token exchange with offline_access gives a rotating refresh token', async () => {
    const { location, verifier } = await authorize();
    assert.equal(location.searchParams.get('state'), 'st-b');
    assert.ok(location.searchParams.get('session_state'));
    const code = location.searchParams.get('code')!;
    const exchange = (codeVerifier: string) =>
      fetch(
        b.tokenUrl,
        form({
          client_id: CLIENT,
          client_secret: SECRET,
          grant_type: 'authorization_code',
          code,
          redirect_uri: REDIRECT,
          code_verifier: codeVerifier,
        }),
      );
    const wrong = await exchange(pkce().verifier);
    assert.equal(wrong.status, 400);
    const error = await json(wrong);
    assert.equal(error.error, 'invalid_grant');
    assert.deepEqual(error.error_codes, [501481]);
    assert.match(error.error_description, /^AADSTS501481: /);

    const tokens = await json(await exchange(verifier));
    assert.equal(tokens.token_type, 'Bearer');
    assert.equal(tokens.expires_in, 3599);
    assert.equal(tokens.ext_expires_in, 3599);
    assert.ok(tokens.access_token && tokens.refresh_token);
    assert.match(tokens.scope, /Calendars\.ReadWrite/);

    const reused = await json(await exchange(verifier));
    assert.deepEqual(reused.error_codes, [54005]);

    const refreshed = await json(
      await fetch(
        b.tokenUrl,
        form({
          client_id: CLIENT,
          client_secret: SECRET,
          grant_type: 'refresh_token',
          refresh_token: tokens.refresh_token,
          scope: SCOPE,
        }),
      ),
    );
    assert.ok(refreshed.access_token);
    assert.ok(refreshed.refresh_token);
    assert.notEqual(refreshed.refresh_token, tokens.refresh_token);
  });

  test('deny=1 redirects back with error=access_denied, an AADSTS description and the state', async () => {
    const { location } = await authorize({ deny: '1' });
    assert.equal(location.searchParams.get('error'), 'access_denied');
    assert.match(location.searchParams.get('error_description') ?? '', /^AADSTS65004/);
    assert.equal(location.searchParams.get('state'), 'st-b');
  });

  test('without offline_access there is no refresh token; revoked grants refuse refresh (invalid_grant) and API calls (401)', async () => {
    const { location, verifier } = await authorize({ scope: 'Calendars.Read', login_hint: 'online@b.test' });
    const online = await json(
      await fetch(
        b.tokenUrl,
        form({
          client_id: CLIENT,
          client_secret: SECRET,
          grant_type: 'authorization_code',
          code: location.searchParams.get('code')!,
          redirect_uri: REDIRECT,
          code_verifier: verifier,
        }),
      ),
    );
    assert.equal(online.refresh_token, undefined);

    const tokens = await connect('revoked@b.test');
    assert.equal(b.revokeGrants('revoked@b.test'), 1);
    const refresh = await fetch(
      b.tokenUrl,
      form({
        client_id: CLIENT,
        client_secret: SECRET,
        grant_type: 'refresh_token',
        refresh_token: tokens.refresh_token,
      }),
    );
    assert.equal(refresh.status, 400);
    const body = await json(refresh);
    assert.equal(body.error, 'invalid_grant');
    assert.deepEqual(body.error_codes, [50173]);
    const call = await api(tokens.access_token, '/me/calendars');
    assert.equal(call.status, 401);
    assert.equal((await json(call)).error.code, 'InvalidAuthenticationToken');
  });

  test('/me and /me/calendars list the default calendar and admin-created ones', async () => {
    const account = 'cals@b.test';
    const tokens = await connect(account);
    const me = await json(await api(tokens.access_token, '/me'));
    assert.equal(me.userPrincipalName, account);
    const extra = b.createCalendar(account, { name: 'Shared', canEdit: false });
    const body = await json(await api(tokens.access_token, '/me/calendars'));
    assert.deepEqual(
      body.value.map((c: Json) => [c.name, c.isDefaultCalendar, c.canEdit]),
      [
        ['Calendar', true, true],
        ['Shared', false, false],
      ],
    );
    const refused = await api(tokens.access_token, `/me/calendars/${encodeURIComponent(extra.id)}/events`, {
      method: 'POST',
      body: JSON.stringify(event('x', '2030-01-01T10:00:00', '2030-01-01T11:00:00')),
    });
    assert.equal(refused.status, 403);
    assert.equal((await json(refused)).error.code, 'ErrorAccessDenied');
  });

  test('events: create, get in a preferred zone, @odata.etag If-Match 412, patch, delete; unknown properties refused', async () => {
    const account = 'crud@b.test';
    const tokens = await connect(account);
    const calendarId = b.createAccount(account).defaultCalendarId;
    const base = `/me/calendars/${encodeURIComponent(calendarId)}/events`;
    const created = await api(tokens.access_token, base, {
      method: 'POST',
      body: JSON.stringify({
        subject: 'Review',
        body: { contentType: 'text', content: 'Line 1\nLine 2' },
        location: { displayName: 'Room 7' },
        start: { dateTime: '2030-03-01T10:00:00', timeZone: 'W. Europe Standard Time' },
        end: { dateTime: '2030-03-01T11:00:00', timeZone: 'W. Europe Standard Time' },
        isReminderOn: true,
        reminderMinutesBeforeStart: 30,
      }),
    });
    assert.equal(created.status, 201);
    const item = await json(created);
    assert.match(item['@odata.etag'], /^W\/".+"$/);
    assert.equal(item.type, 'singleInstance');
    assert.deepEqual(item.start, { dateTime: '2030-03-01T09:00:00.0000000', timeZone: 'UTC' });
    assert.equal(item.originalStartTimeZone, 'W. Europe Standard Time');
    assert.equal(item.body.contentType, 'html');
    assert.equal(item.location.displayName, 'Room 7');
    assert.equal(item.reminderMinutesBeforeStart, 30);

    const asText = await json(
      await api(tokens.access_token, `/me/events/${encodeURIComponent(item.id)}`, {
        headers: { prefer: 'outlook.timezone="Pacific Standard Time", outlook.body-content-type="text"' },
      }),
    );
    assert.deepEqual(asText.start, {
      dateTime: '2030-03-01T01:00:00.0000000',
      timeZone: 'Pacific Standard Time',
    });
    assert.deepEqual(asText.body, { contentType: 'text', content: 'Line 1\nLine 2' });

    const path = `${base}/${encodeURIComponent(item.id)}`;
    const stale = await api(tokens.access_token, path, {
      method: 'PATCH',
      headers: { 'if-match': 'W/"stale"' },
      body: JSON.stringify({ subject: 'no' }),
    });
    assert.equal(stale.status, 412);
    assert.equal((await json(stale)).error.code, 'ErrorIrresolvableConflict');
    const patched = await api(tokens.access_token, path, {
      method: 'PATCH',
      headers: { 'if-match': item['@odata.etag'] },
      body: JSON.stringify({
        subject: 'Review (moved)',
        isAllDay: true,
        start: { dateTime: '2030-03-02T00:00:00', timeZone: 'UTC' },
        end: { dateTime: '2030-03-03T00:00:00', timeZone: 'UTC' },
      }),
    });
    assert.equal(patched.status, 200);
    const changed = await json(patched);
    assert.equal(changed.subject, 'Review (moved)');
    assert.equal(changed.isAllDay, true);
    assert.notEqual(changed['@odata.etag'], item['@odata.etag']);

    const unknown = await api(tokens.access_token, base, {
      method: 'POST',
      body: JSON.stringify({ ...event('x', '2030-01-01T10:00:00', '2030-01-01T11:00:00'), colour: 'red' }),
    });
    assert.equal(unknown.status, 400);
    assert.equal((await json(unknown)).error.code, 'RequestBodyRead');
    const badZone = await api(tokens.access_token, base, {
      method: 'POST',
      body: JSON.stringify({
        subject: 'x',
        start: { dateTime: '2030-01-01T10:00:00', timeZone: 'Mars/Base' },
        end: { dateTime: '2030-01-01T11:00:00', timeZone: 'UTC' },
      }),
    });
    assert.equal((await json(badZone)).error.code, 'TimeZoneNotSupportedException');

    assert.equal(
      (await api(tokens.access_token, path, { method: 'DELETE', headers: { 'if-match': 'W/"x"' } })).status,
      412,
    );
    assert.equal((await api(tokens.access_token, path, { method: 'DELETE' })).status, 204);
    const missing = await api(tokens.access_token, path);
    assert.equal(missing.status, 404);
    assert.equal((await json(missing)).error.code, 'ErrorItemNotFound');
  });

  test('calendarView/delta: nextLink pages then a deltaLink; occurrences expanded; changes and @removed; 410 after expiry', async () => {
    const account = 'delta@b.test';
    const tokens = await connect(account);
    const { defaultCalendarId } = b.createAccount(account);
    const singles = b.createEvents(
      account,
      'default',
      Array.from({ length: 12 }, (_, i) =>
        event(
          `S${i}`,
          `2030-01-${String(i + 1).padStart(2, '0')}T09:00:00`,
          `2030-01-${String(i + 1).padStart(2, '0')}T10:00:00`,
        ),
      ),
    );
    const weekly = b.createEvent(
      account,
      'default',
      event('Weekly', '2030-01-07T08:00:00', '2030-01-07T08:30:00', {
        recurrence: {
          pattern: { type: 'weekly', interval: 1, daysOfWeek: ['monday', 'wednesday'] },
          range: { type: 'numbered', startDate: '2030-01-07', numberOfOccurrences: 5 },
        },
      }),
    );
    b.createEvent(
      account,
      'default',
      event('Daily', '2030-01-10T12:00:00', '2030-01-10T12:15:00', {
        recurrence: {
          pattern: { type: 'daily', interval: 2 },
          range: { type: 'endDate', startDate: '2030-01-10', endDate: '2030-01-16' },
        },
      }),
    );
    b.createEvent(
      account,
      'default',
      event('Forever', '2030-01-01T07:00:00', '2030-01-01T07:10:00', {
        recurrence: {
          pattern: { type: 'weekly', interval: 2, daysOfWeek: ['tuesday'] },
          range: { type: 'noEnd', startDate: '2030-01-01' },
        },
      }),
    );
    b.createEvent(account, 'default', event('Outside', '2031-06-01T09:00:00', '2031-06-01T10:00:00'));

    const first = new URL(
      `${b.apiBase}/me/calendars/${encodeURIComponent(defaultCalendarId)}/calendarView/delta`,
    );
    first.searchParams.set('startDateTime', '2030-01-01T00:00:00Z');
    first.searchParams.set('endDateTime', '2030-02-01T00:00:00Z');
    const prefer = { prefer: 'odata.maxpagesize=7, outlook.timezone="UTC"' };
    const items: Json[] = [];
    let next: string | undefined = first.toString();
    let deltaLink: string | undefined;
    let pages = 0;
    while (next) {
      const response = await api(tokens.access_token, next, { headers: prefer });
      assert.equal(response.status, 200);
      assert.match(response.headers.get('preference-applied') ?? '', /odata\.maxpagesize=7/);
      const body = await json(response);
      pages += 1;
      assert.ok(body.value.length <= 7);
      items.push(...body.value);
      next = body['@odata.nextLink'];
      if (next) assert.equal(body['@odata.deltaLink'], undefined);
      else deltaLink = body['@odata.deltaLink'];
    }
    // 12 singles + 5 weekly + 4 daily (10, 12, 14, 16) + 3 fortnightly Tuesdays (1, 15, 29).
    assert.equal(items.length, 24);
    assert.equal(pages, 4);
    assert.ok(deltaLink);
    assert.equal(new Set(items.map((item) => item.id)).size, 24);
    assert.ok(
      items.every((item) => item['@odata.type'] === '#microsoft.graph.event' && item.type !== 'seriesMaster'),
    );
    const weeklyStarts = items
      .filter((item) => item.seriesMasterId === weekly.id)
      .map((item) => item.start.dateTime.slice(0, 10))
      .sort();
    assert.deepEqual(weeklyStarts, ['2030-01-07', '2030-01-09', '2030-01-14', '2030-01-16', '2030-01-21']);
    assert.ok(
      items.filter((item) => item.seriesMasterId === weekly.id).every((item) => item.type === 'occurrence'),
    );

    // Changes: one single changed, one deleted, one occurrence deleted, one occurrence changed (an exception).
    b.updateEvent(account, 'default', singles[0]!.id, { subject: 'S0 changed' });
    b.deleteEvent(account, 'default', singles[1]!.id);
    const occurrence = items.find(
      (item) => item.seriesMasterId === weekly.id && item.start.dateTime.startsWith('2030-01-09'),
    )!;
    b.deleteEvent(account, 'default', occurrence.id);
    const moved = items.find(
      (item) => item.seriesMasterId === weekly.id && item.start.dateTime.startsWith('2030-01-14'),
    )!;
    const exception = await api(tokens.access_token, `/me/events/${encodeURIComponent(moved.id)}`, {
      method: 'PATCH',
      headers: { 'if-match': moved['@odata.etag'] },
      body: JSON.stringify({
        subject: 'Weekly (moved)',
        start: { dateTime: '2030-01-14T15:00:00', timeZone: 'UTC' },
        end: { dateTime: '2030-01-14T15:30:00', timeZone: 'UTC' },
      }),
    });
    assert.equal(exception.status, 200);
    assert.equal((await json(exception)).type, 'seriesMaster');

    const changes = await json(await api(tokens.access_token, deltaLink!, { headers: prefer }));
    assert.ok(changes['@odata.deltaLink']);
    const removed = changes.value
      .filter((item: Json) => item['@removed'])
      .map((item: Json) => item.id)
      .sort();
    assert.deepEqual(removed, [singles[1]!.id, occurrence.id].sort());
    assert.deepEqual(
      changes.value.find((item: Json) => item.id === singles[1]!.id),
      {
        '@odata.type': '#microsoft.graph.event',
        id: singles[1]!.id,
        '@removed': { reason: 'deleted' },
      },
    );
    assert.equal(changes.value.find((item: Json) => item.id === singles[0]!.id).subject, 'S0 changed');
    const movedNow = changes.value.find((item: Json) => item.id === moved.id);
    assert.equal(movedNow.type, 'exception');
    assert.equal(movedNow.subject, 'Weekly (moved)');
    assert.equal(movedNow.start.dateTime, '2030-01-14T15:00:00.0000000');

    // Nothing changed since: an empty page and a new deltaLink.
    const quiet = await json(
      await api(tokens.access_token, changes['@odata.deltaLink'], { headers: prefer }),
    );
    assert.deepEqual(quiet.value, []);

    b.expireSyncTokens();
    const expired = await api(tokens.access_token, quiet['@odata.deltaLink'], { headers: prefer });
    assert.equal(expired.status, 410);
    assert.equal((await json(expired)).error.code, 'SyncStateNotFound');

    const noWindow = await api(
      tokens.access_token,
      `/me/calendars/${encodeURIComponent(defaultCalendarId)}/calendarView/delta`,
    );
    assert.equal(noWindow.status, 400);
  });

  test('recurrence: local time kept across DST, relative patterns, a shortened series removes occurrences; $select', async () => {
    const account = 'recurrence@b.test';
    const tokens = await connect(account);
    const weekly = b.createEvent(account, 'default', {
      subject: 'Monday 9:00 Berlin',
      start: { dateTime: '2030-03-18T09:00:00', timeZone: 'Europe/Berlin' },
      end: { dateTime: '2030-03-18T10:00:00', timeZone: 'Europe/Berlin' },
      recurrence: {
        pattern: { type: 'weekly', daysOfWeek: ['monday'] },
        range: { type: 'noEnd', startDate: '2030-03-18' },
      },
    });
    b.createEvent(account, 'default', {
      subject: 'Last Friday',
      isAllDay: true,
      start: { dateTime: '2030-01-25T00:00:00', timeZone: 'UTC' },
      end: { dateTime: '2030-01-26T00:00:00', timeZone: 'UTC' },
      recurrence: {
        pattern: { type: 'relativeMonthly', daysOfWeek: ['friday'], index: 'last' },
        range: { type: 'numbered', startDate: '2030-01-01', numberOfOccurrences: 3 },
      },
    });
    const prefer = { prefer: 'odata.maxpagesize=100, outlook.timezone="Europe/Berlin"' };
    const first = await json(
      await api(
        tokens.access_token,
        '/me/calendarView/delta?startDateTime=2030-01-01T00:00:00Z&endDateTime=2030-05-01T00:00:00Z&$select=subject,start,end,type',
        { headers: prefer },
      ),
    );
    const mondays = first.value.filter((item: Json) => item.subject === 'Monday 9:00 Berlin');
    // 18 and 25 March (CET), then 1 ... 29 April (CEST): 09:00 local every time.
    assert.equal(mondays.length, 7);
    assert.ok(mondays.every((item: Json) => item.start.dateTime.endsWith('T09:00:00.0000000')));
    assert.deepEqual(Object.keys(mondays[0]).sort(), [
      '@odata.etag',
      '@odata.type',
      'end',
      'id',
      'start',
      'subject',
      'type',
    ]);
    assert.deepEqual(
      first.value
        .filter((item: Json) => item.subject === 'Last Friday')
        .map((item: Json) => item.start.dateTime.slice(0, 10)),
      ['2030-01-25', '2030-02-22', '2030-03-29'],
    );

    b.updateEvent(account, 'default', weekly.id, {
      recurrence: {
        pattern: { type: 'weekly', daysOfWeek: ['monday'] },
        range: { type: 'endDate', startDate: '2030-03-18', endDate: '2030-03-31' },
      },
    });
    const changes = await json(
      await api(tokens.access_token, first['@odata.deltaLink'], { headers: prefer }),
    );
    assert.equal(changes.value.filter((item: Json) => item['@removed']).length, 5);
    assert.equal(changes.value.filter((item: Json) => !item['@removed']).length, 2);
  });

  test('form_post response mode answers an auto-submitting form', async () => {
    const response = await fetch(
      `${b.authUrl}?${new URLSearchParams({ client_id: CLIENT, redirect_uri: REDIRECT, response_type: 'code', scope: 'Calendars.Read', response_mode: 'form_post', state: 'fp' })}`,
      { redirect: 'manual' },
    );
    assert.equal(response.status, 200);
    const page = await response.text();
    assert.match(page, /<form method="POST" action="http:\/\/127\.0\.0\.1:9\/callback">/);
    assert.match(page, /name="state" value="fp"/);
  });

  test('subscriptions: validationToken handshake, real notifications with clientState, renew, delete', async () => {
    const receiver = await startReceiver(true);
    const silent = await startReceiver(false);
    try {
      const account = 'subs@b.test';
      const tokens = await connect(account);
      const { defaultCalendarId } = b.createAccount(account);
      const expirationDateTime = new Date(Date.now() + 3_600_000).toISOString();
      const resource = `/me/calendars/${defaultCalendarId}/events`;

      const refused = await api(tokens.access_token, '/subscriptions', {
        method: 'POST',
        body: JSON.stringify({
          changeType: 'created,updated,deleted',
          notificationUrl: silent.url,
          resource,
          expirationDateTime,
          clientState: 'cs',
        }),
      });
      assert.equal(refused.status, 400);
      assert.equal((await json(refused)).error.code, 'ValidationError');

      const response = await api(tokens.access_token, '/subscriptions', {
        method: 'POST',
        body: JSON.stringify({
          changeType: 'created,updated,deleted',
          notificationUrl: receiver.url,
          resource,
          expirationDateTime,
          clientState: 'client-state-1',
        }),
      });
      assert.equal(response.status, 201);
      const subscription = await json(response);
      assert.equal(subscription.resource, resource);
      assert.equal(subscription.clientState, 'client-state-1');
      const validation = receiver.received[0]!;
      assert.equal(validation.method, 'POST');
      const token = new URL(validation.url, 'http://x').searchParams.get('validationToken');
      assert.match(token ?? '', /^Validation: /);
      assert.match(validation.headers['content-type'] ?? '', /text\/plain/);

      const created = b.createEvent(
        account,
        'default',
        event('Notify me', '2030-02-01T09:00:00', '2030-02-01T10:00:00'),
      );
      const notification = await waitFor(() => receiver.received[1]);
      const payload = JSON.parse(notification.body) as Json;
      assert.equal(payload.value.length, 1);
      assert.equal(payload.value[0].subscriptionId, subscription.id);
      assert.equal(payload.value[0].clientState, 'client-state-1');
      assert.equal(payload.value[0].changeType, 'created');
      assert.equal(payload.value[0].resourceData.id, created.id);
      assert.match(payload.value[0].resource, new RegExp(`Events/${created.id.replace(/[=+]/g, '\\$&')}$`));

      await api(tokens.access_token, `/me/events/${encodeURIComponent(created.id)}`, { method: 'DELETE' });
      const deleted = await waitFor(() => receiver.received[2]);
      assert.equal((JSON.parse(deleted.body) as Json).value[0].changeType, 'deleted');

      const later = new Date(Date.now() + 7_200_000).toISOString();
      const renewed = await api(tokens.access_token, `/subscriptions/${subscription.id}`, {
        method: 'PATCH',
        body: JSON.stringify({ expirationDateTime: later }),
      });
      assert.equal(renewed.status, 200);
      assert.equal(new Date((await json(renewed)).expirationDateTime).getTime(), new Date(later).getTime());
      const tooLong = await api(tokens.access_token, `/subscriptions/${subscription.id}`, {
        method: 'PATCH',
        body: JSON.stringify({ expirationDateTime: new Date(Date.now() + 30 * 86_400_000).toISOString() }),
      });
      assert.equal(tooLong.status, 400);

      assert.equal(
        (await api(tokens.access_token, `/subscriptions/${subscription.id}`, { method: 'DELETE' })).status,
        204,
      );
      assert.equal(
        (await api(tokens.access_token, `/subscriptions/${subscription.id}`, { method: 'DELETE' })).status,
        404,
      );
      b.createEvent(account, 'default', event('Silent', '2030-02-02T09:00:00', '2030-02-02T10:00:00'));
      await new Promise((resolve) => setTimeout(resolve, 100));
      assert.equal(receiver.received.length, 3);
    } finally {
      await receiver.close();
      await silent.close();
    }
  });
});

// ========================================================== performance

describe('calendar emulators at sync-benchmark size', () => {
  test('10,000 events sync through both emulators page by page', async () => {
    const a = await startCalendarProviderAEmulator();
    const b = await startCalendarProviderBEmulator();
    try {
      const many = 10_000;
      a.createEvents(
        a.defaultAccount,
        'primary',
        Array.from({ length: many }, (_, i) => ({
          summary: `A${i}`,
          start: { dateTime: new Date(Date.UTC(2030, 0, 1) + i * 3_600_000).toISOString() },
          end: { dateTime: new Date(Date.UTC(2030, 0, 1) + i * 3_600_000 + 1_800_000).toISOString() },
        })),
      );
      b.createEvents(
        b.defaultAccount,
        'default',
        Array.from({ length: many }, (_, i) => ({
          subject: `B${i}`,
          start: {
            dateTime: new Date(Date.UTC(2030, 0, 1) + i * 3_600_000).toISOString().slice(0, 19),
            timeZone: 'UTC',
          },
          end: {
            dateTime: new Date(Date.UTC(2030, 0, 1) + i * 3_600_000 + 1_800_000).toISOString().slice(0, 19),
            timeZone: 'UTC',
          },
        })),
      );
      const tokenFor = async (authUrl: string, tokenUrl: string, scope: string) => {
        const { verifier, challenge } = pkce();
        const auth = await fetch(
          `${authUrl}?${new URLSearchParams({ client_id: 'c', redirect_uri: REDIRECT, response_type: 'code', scope, code_challenge: challenge, code_challenge_method: 'S256' })}`,
          { redirect: 'manual' },
        );
        const code = new URL(auth.headers.get('location')!).searchParams.get('code')!;
        const body = await json(
          await fetch(
            tokenUrl,
            form({
              grant_type: 'authorization_code',
              code,
              redirect_uri: REDIRECT,
              client_id: 'c',
              client_secret: 's',
              code_verifier: verifier,
            }),
          ),
        );
        return body.access_token as string;
      };

      const started = Date.now();
      const tokenA = await tokenFor(a.authUrl, a.tokenUrl, 'https://www.googleapis.com/auth/calendar');
      let countA = 0;
      let pageToken: string | undefined;
      do {
        const q = new URLSearchParams({ maxResults: '2500' });
        if (pageToken) q.set('pageToken', pageToken);
        const body = await json(
          await fetch(`${a.apiBase}/calendars/primary/events?${q}`, {
            headers: { authorization: `Bearer ${tokenA}` },
          }),
        );
        countA += body.items.length;
        pageToken = body.nextPageToken;
      } while (pageToken);
      assert.equal(countA, many);

      const tokenB = await tokenFor(b.authUrl, b.tokenUrl, 'offline_access Calendars.Read');
      let countB = 0;
      let next: string | undefined =
        `${b.apiBase}/me/calendarView/delta?startDateTime=2029-12-31T00:00:00Z&endDateTime=2032-01-01T00:00:00Z`;
      while (next) {
        const response = await fetch(next, {
          headers: { authorization: `Bearer ${tokenB}`, prefer: 'odata.maxpagesize=500' },
        });
        const body = await json(response);
        countB += body.value.length;
        next = body['@odata.nextLink'];
      }
      assert.equal(countB, many);
      const elapsed = Date.now() - started;
      assert.ok(elapsed < 30_000, `syncing 2 x ${many} events took ${elapsed} ms`);
    } finally {
      await a.close();
      await b.close();
    }
  });
});
