import assert from 'node:assert/strict';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import {
  type CalendarProviderAEmulator,
  startCalendarProviderAEmulator,
} from '../../tools/emulators/calendar-provider-a/server.js';
import {
  type CalendarProviderBEmulator,
  startCalendarProviderBEmulator,
} from '../../tools/emulators/calendar-provider-b/server.js';
import { createTestApp, freePort, registerUser, type SignedInUser, type TestApp } from './app.js';
import { client, expectStatus } from './http.js';

export type Provider = 'calendar_provider_a' | 'calendar_provider_b';

export interface SyncHarness extends TestApp {
  a: CalendarProviderAEmulator;
  b: CalendarProviderBEmulator;
  /** PUBLIC_URL of the app (a real listening address when `listen` was asked). */
  publicUrl: string;
  /** Waits until no job is waiting or running. */
  idle(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * Both provider emulators and an app pointed at them. With `listen`, the app serves HTTP on a
 * real loopback port and PUBLIC_URL points there, so the emulators can deliver push
 * notifications and B's subscription validation.
 */
export async function startSyncHarness(
  options: {
    listen?: boolean;
    env?: Record<string, string>;
    emulatorOptions?: { accessTokenTtlSeconds?: number };
  } = {},
): Promise<SyncHarness> {
  const a = await startCalendarProviderAEmulator({
    clientId: 'client-a',
    clientSecret: 'secret-a',
    accounts: ['alice@a.test', 'bob@a.test'],
    ...options.emulatorOptions,
  });
  const b = await startCalendarProviderBEmulator({
    clientId: 'client-b',
    clientSecret: 'secret-b',
    accounts: ['alice@b.test', 'bob@b.test'],
    ...options.emulatorOptions,
  });
  const port = options.listen ? await freePort() : 0;
  const publicUrl = options.listen ? `http://127.0.0.1:${port}` : 'http://service.test';
  const t = await createTestApp({
    ...a.env(),
    ...b.env(),
    PUBLIC_URL: publicUrl,
    CALENDAR_SYNC_RETRY_SECONDS: '0.02',
    CALENDAR_SYNC_TIMEOUT_MS: '3000',
    ...options.env,
  });
  if (options.listen) await t.app.listen({ port, host: '127.0.0.1' });
  return {
    ...t,
    a,
    b,
    publicUrl,
    idle: () => t.app.jobs.idle(),
    async stop() {
      await t.close();
      await a.close();
      await b.close();
    },
  };
}

export const accountOf = (provider: Provider, who: 'alice' | 'bob') =>
  `${who}@${provider === 'calendar_provider_a' ? 'a' : 'b'}.test`;

/** The binding cookie a connect call set, as the browser that made the call sends it to the callback. */
export function bindingCookie(auth: LightMyRequestResponse): Record<string, string> {
  const cookie = auth.cookies.find((c) => c.name === 'calendar_sync_binding');
  assert.ok(cookie?.value, 'the connect call sets the binding cookie');
  return { calendar_sync_binding: cookie.value };
}

/** Runs the connect flow in one browser: auth URL, the emulator's consent (approves at once), the callback. */
export async function connect(
  h: SyncHarness,
  user: SignedInUser,
  provider: Provider,
  who: 'alice' | 'bob' = 'alice',
): Promise<URL> {
  const auth = await client(h.app, user).send('GET', '/api/calendar-sync/auth/{provider}', {
    params: { provider },
  });
  const authUrl = new URL(expectStatus(auth, 200).authUrl);
  authUrl.searchParams.set('login_hint', accountOf(provider, who));
  const consent = await fetch(authUrl, { redirect: 'manual' });
  assert.equal(consent.status, 302, await consent.text());
  const back = new URL(consent.headers.get('location')!);
  // app.inject itself: the browser comes back with the binding cookie, not a bearer header.
  const callback = await h.app.inject({
    method: 'GET',
    url: `${back.pathname}${back.search}`,
    cookies: bindingCookie(auth),
  });
  expectStatus(callback, 302);
  return new URL(String(callback.headers.location));
}

export async function connected(h: SyncHarness, provider: Provider, who: 'alice' | 'bob' = 'alice') {
  const user = await registerUser(h.app);
  const landing = await connect(h, user, provider, who);
  assert.equal(landing.searchParams.get('success'), 'connected', landing.toString());
  return user;
}

export async function status(app: FastifyInstance, user: SignedInUser, provider: Provider) {
  const body = expectStatus(await client(app, user).send('GET', '/api/calendar-sync/status'), 200);
  return body.providers.find((p: { provider: string }) => p.provider === provider);
}

export async function mapCalendar(
  h: SyncHarness,
  user: SignedInUser,
  provider: Provider,
  externalId: string,
  settings: Record<string, unknown> = {},
) {
  const r = await client(h.app, user).request('POST', '/api/calendar-sync/sync', {
    provider,
    calendars: [{ externalId, localName: `Synced ${externalId}`, ...settings }],
  });
  expectStatus(r, 200);
  await h.idle();
  const synced = (await status(h.app, user, provider)).syncedCalendars.find(
    (c: { externalId: string }) => c.externalId === externalId,
  );
  assert.ok(synced, 'the mapping shows in status');
  return synced as { localCalendarId: number; lastSyncedAt: string | null };
}

export interface LocalEvent {
  id: number;
  title: string;
  startTime: string;
  endTime: string;
  allDay: boolean;
  timezone: string;
  description: string | null;
  location: string | null;
  recurrence: string[];
  reminders: Array<{ minutes: number; method: string }>;
  external: { provider: string; externalId: string; etag: string | null } | null;
}

/** Every event row of a local calendar, by title. */
export async function localEvents(h: SyncHarness, calendarId: number): Promise<LocalEvent[]> {
  const rows = await h.db.kysely
    .selectFrom('events')
    .selectAll()
    .where('calendarId', '=', calendarId)
    .orderBy('title')
    .orderBy('id')
    .execute();
  return rows.map((row) => ({
    id: row.id,
    title: row.title,
    startTime: row.startTime,
    endTime: row.endTime,
    allDay: Boolean(row.allDay),
    timezone: row.timezone,
    description: row.description,
    location: row.location,
    recurrence: row.recurrence ? (JSON.parse(row.recurrence) as string[]) : [],
    reminders: JSON.parse(row.reminders) as LocalEvent['reminders'],
    external: row.externalId
      ? { provider: row.externalProvider!, externalId: row.externalId, etag: row.externalEtag }
      : null,
  }));
}

export async function force(h: SyncHarness, user: SignedInUser) {
  const { message } = expectStatus(await client(h.app, user).send('POST', '/api/calendar-sync/force'), 200);
  await h.idle();
  return message as string;
}
