import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../../src/app.js';
import { loadConfig } from '../../../src/config.js';
import { startCalendarProviderAEmulator } from '../../../tools/emulators/calendar-provider-a/server.js';
import { createTestDatabase, registerUser, TEST_ENV } from '../../helpers/app.js';
import { bindingCookie } from '../../helpers/calendar-sync.js';
import { eventually } from '../../helpers/wait.js';

// Several instances on one PostgreSQL database with the pg-boss queue: the PostgreSQL pass
// of the suite (npm run test:pg) runs this.
if (process.env.TEST_DATABASE_URL)
  describe('calendar sync on PostgreSQL with two instances', () => {
    const cleanups: Array<() => Promise<void>> = [];
    after(async () => {
      for (const cleanup of cleanups.reverse()) await cleanup();
    });

    test('the periodic poll runs each calendar once across instances', async () => {
      const emulator = await startCalendarProviderAEmulator({ accounts: ['alice@a.test'] });
      cleanups.push(() => emulator.close());
      const { db, drop } = await createTestDatabase();
      cleanups.push(drop);
      const config = loadConfig({
        ...TEST_ENV,
        ...emulator.env(),
        JOB_QUEUE: 'auto',
        CALENDAR_SYNC_RETRY_SECONDS: '1',
      });
      const apps: FastifyInstance[] = [];
      for (let i = 0; i < 2; i += 1) {
        const app = await buildApp(config, { db, logger: false });
        await app.ready();
        assert.equal(app.jobs.kind, 'pg-boss');
        apps.push(app);
        cleanups.push(() => app.close());
      }
      const [one, two] = apps as [FastifyInstance, FastifyInstance];

      // Connect and map three calendars through the first instance.
      const user = await registerUser(one);
      const auth = await one.inject({
        method: 'GET',
        url: '/api/calendar-sync/auth/calendar_provider_a',
        headers: user.auth,
      });
      const consent = await fetch(auth.json().authUrl, { redirect: 'manual' });
      const back = new URL(consent.headers.get('location')!);
      const callback = await two.inject({
        method: 'GET',
        url: `${back.pathname}${back.search}`,
        cookies: bindingCookie(auth),
      });
      assert.equal(new URL(String(callback.headers.location)).searchParams.get('success'), 'connected');
      const calendars = [1, 2, 3].map(
        (n) => emulator.createCalendar('alice@a.test', { summary: `PG ${n}` }).id,
      );
      for (const id of calendars)
        emulator.createEvent('alice@a.test', id, {
          summary: `In ${id}`,
          start: { dateTime: '2031-03-01T09:00:00Z' },
          end: { dateTime: '2031-03-01T10:00:00Z' },
        });
      const mapped = await one.inject({
        method: 'POST',
        url: '/api/calendar-sync/sync',
        headers: user.auth,
        payload: {
          provider: 'calendar_provider_a',
          calendars: calendars.map((externalId) => ({
            externalId,
            localName: externalId,
            bidirectionalSync: false,
          })),
        },
      });
      assert.equal(mapped.statusCode, 200, mapped.body);
      const mappings = () =>
        db.kysely.selectFrom('calendarSyncMappings').select(['id', 'lastSyncedAt', 'lastPolledAt']).execute();
      await eventually(async () => (await mappings()).every((m) => m.lastSyncedAt !== null), 20_000);
      const eventCount = async () =>
        Number(
          (
            await db.kysely
              .selectFrom('events')
              .select((eb) => eb.fn.countAll().as('n'))
              .where('externalProvider', '=', 'calendar_provider_a')
              .executeTakeFirstOrThrow()
          ).n,
        );
      assert.equal(await eventCount(), 3);

      // Both instances tick at the same moment: each calendar is claimed by exactly one.
      const firstSync = new Map((await mappings()).map((m) => [m.id, m.lastSyncedAt]));
      emulator.clearRequests();
      const [claimedByOne, claimedByTwo] = await Promise.all([
        one.services.calendarSync.pollOnce(),
        two.services.calendarSync.pollOnce(),
      ]);
      const claimed = [...claimedByOne, ...claimedByTwo].sort();
      assert.deepEqual(claimed, [...firstSync.keys()].sort(), 'every calendar claimed once, none twice');
      // Through the queue as well: the scheduled job sent by both instances.
      await Promise.all([one.jobs.send('calendar_sync_poll', {}), two.jobs.send('calendar_sync_poll', {})]);

      await eventually(
        async () => (await mappings()).every((m) => m.lastSyncedAt !== firstSync.get(m.id)),
        20_000,
      );
      await new Promise((resolve) => setTimeout(resolve, 2500));
      const lists = emulator
        .requests()
        .filter((r) => r.method === 'GET' && r.path.endsWith('/events'))
        .map((r) => decodeURIComponent(r.path));
      assert.equal(lists.length, 3, `one listing per calendar: ${lists.join(', ')}`);
      assert.equal(new Set(lists).size, 3);
      assert.equal(await eventCount(), 3, 'no duplicates');
    });
  });
