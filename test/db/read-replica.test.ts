import assert from 'node:assert/strict';
import { createServer, type Server, type Socket } from 'node:net';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import pg from 'pg';
import { buildApp } from '../../src/app.js';
import { ConfigError, loadConfig } from '../../src/config.js';
import { createDatabase, type Db } from '../../src/db/database.js';
import { walPosition } from '../../src/db/read-replica.js';
import {
  checkResponsesAgainstSchemas,
  createTestDatabase,
  TEST_ENV,
  testDatabaseUrl,
} from '../helpers/app.js';
import { at, book, bookPublicly, futureMonday } from '../helpers/booking.js';
import { createResource, createType } from '../helpers/catalogue.js';
import { as, expectError, expectStatus } from '../helpers/http.js';
import { memberWithRole, type OrgOwner, ownerWithOrganisation } from '../helpers/organisations.js';
import { type ReplicatedPair, startReplicatedPair } from '../helpers/pg-replica.js';

// DATABASE_READ_URL (DECISIONS.md "Scale out"): a streaming replica serves availability, lists
// and feeds; the booking path and every write stay on the primary; a caller reads its own
// writes at once. The configuration's rules run on both databases; the replica itself is
// PostgreSQL's, in the PostgreSQL pass (npm run test:pg), on a primary and replica of its own.

describe('DATABASE_READ_URL in the configuration', () => {
  test('is refused, in one line, beside a SQLite DATABASE_URL', () => {
    assert.throws(
      () =>
        loadConfig({ ...TEST_ENV, DATABASE_URL: 'sqlite::memory:', DATABASE_READ_URL: 'postgres://h/db' }),
      (error: unknown) =>
        error instanceof ConfigError &&
        error.message ===
          'Invalid environment variable DATABASE_READ_URL: needs a PostgreSQL DATABASE_URL (a SQLite database has no replica)',
    );
  });

  test('must be a PostgreSQL URL, and is optional', () => {
    assert.throws(
      () => loadConfig({ ...TEST_ENV, DATABASE_URL: 'postgres://h/db', DATABASE_READ_URL: 'mysql://h/db' }),
      {
        message:
          'Invalid environment variable DATABASE_READ_URL: must start with postgres:// or postgresql:// (a streaming replica)',
      },
    );
    const config = loadConfig({
      ...TEST_ENV,
      DATABASE_URL: 'postgres://h/db',
      DATABASE_READ_URL: 'postgresql://r/db',
    });
    assert.equal(config.databaseReadUrl, 'postgresql://r/db');
    assert.equal(loadConfig({ ...TEST_ENV, DATABASE_URL: 'postgres://h/db' }).databaseReadUrl, undefined);
  });

  test('WAL positions compare in text as PostgreSQL orders them', () => {
    assert.ok(walPosition('0/9000000') < walPosition('0/10000000'));
    assert.ok(walPosition('1/0') > walPosition('0/FFFFFFFF'));
    assert.equal(walPosition('16/b374d848'), '00000016B374D848');
  });
});

if (process.env.TEST_DATABASE_URL)
  describe('PostgreSQL: a streaming replica serves reads', () => {
    let pair: ReplicatedPair;
    let app: FastifyInstance;
    let responses: ReturnType<typeof checkResponsesAgainstSchemas>;
    let owner: OrgOwner;
    let manager: Awaited<ReturnType<typeof memberWithRole>>;
    let room: { id: number };
    let typeId: number;
    let feedPath: string;
    const slug = `replica-${process.pid}`;
    const mon = futureMonday();
    const range = `from=${at(mon, 0)}&to=${at(mon, 24)}`;
    const slot = (hour: number) => ({
      resourceId: room.id,
      startTime: at(mon, hour),
      endTime: at(mon, hour + 1),
    });

    const resourceNames = async (user: { auth: Record<string, string> }) =>
      (expectStatus(await as(app, user).get('/api/resources'), 200) as Array<{ name: string }>).map(
        (r) => r.name,
      );
    const reservationStarts = async (user: { auth: Record<string, string> }) =>
      (
        expectStatus(await as(app, user).get(`/api/reservations`), 200).items as Array<{ startTime: string }>
      ).map((r) => r.startTime);
    const availability = async (user: { auth: Record<string, string> }) =>
      expectStatus(await as(app, user).get(`/api/resources/${room.id}/availability?${range}`), 200);
    const publicAvailability = async () =>
      expectStatus(
        await as(app, null).get(
          `/api/public/organisations/${slug}/availability?resourceId=${room.id}&${range}`,
        ),
        200,
      );

    /** The resource's iCalendar feed, as a calendar app fetches it (no credential). */
    const feed = async () => {
      const response = await as(app, null).get(feedPath);
      assert.equal(response.statusCode, 200, response.body);
      return response.body;
    };

    before(async () => {
      pair = await startReplicatedPair();
      const config = loadConfig({
        ...TEST_ENV,
        DATABASE_URL: pair.primaryUrl,
        DATABASE_READ_URL: pair.replicaUrl,
      });
      app = await buildApp(config, { logger: false });
      responses = checkResponsesAgainstSchemas(app);
      await app.ready();
      owner = await ownerWithOrganisation(app, { slug, timezone: 'UTC' });
      manager = await memberWithRole(app, owner, 'MANAGER');
      typeId = (await createType(app, owner)).id;
      room = await createResource(app, owner, { name: 'Room A', resourceTypeId: typeId });
      feedPath = new URL(expectStatus(await as(app, owner).post(`/api/resources/${room.id}/feed`), 201).url)
        .pathname;
    });
    after(async () => {
      await app?.close();
      await pair?.remove();
      responses?.assertResponsesMatched();
    });

    test('while replay is paused, others read the replica and its past; the writer reads its own writes', async () => {
      await pair.caughtUp();
      const freeBefore = await availability(manager);
      const publicBefore = await publicAvailability();
      await pair.pauseReplay();
      let booked: { id: number };
      try {
        await createResource(app, owner, { name: 'Room B', resourceTypeId: typeId });
        booked = expectStatus(await book(app, owner, slot(10)), 201);

        // The writer, at once: the primary answers until the replica has replayed their writes.
        assert.deepEqual((await resourceNames(owner)).sort(), ['Room A', 'Room B']);
        assert.deepEqual(await reservationStarts(owner), [at(mon, 10)]);
        assert.notDeepEqual(await availability(owner), freeBefore, 'the booked hour is gone for its booker');

        // Another member, and a visitor of the booking page: the replica, as it was.
        assert.deepEqual(await resourceNames(manager), ['Room A']);
        assert.deepEqual(await reservationStarts(manager), []);
        assert.deepEqual(await availability(manager), freeBefore);
        assert.deepEqual(await publicAvailability(), publicBefore);
        assert.doesNotMatch(await feed(), new RegExp(`reservation-${booked.id}@`), 'the feed as it was');

        // The booking path checks on the primary: the hour the replica still shows free is taken.
        expectError(await book(app, manager, slot(10)), 409, 'SLOT_UNAVAILABLE');
        // A visitor's booking is theirs: their next read comes from the primary, both bookings in it.
        expectStatus(await bookPublicly(app, slug, slot(12)), 201);
        assert.notDeepEqual(await publicAvailability(), publicBefore);
        assert.deepEqual(await publicAvailability(), await availability(owner));
      } finally {
        await pair.resumeReplay();
      }
      await pair.caughtUp();
      assert.deepEqual((await resourceNames(manager)).sort(), ['Room A', 'Room B']);
      assert.deepEqual(await reservationStarts(manager), [at(mon, 10), at(mon, 12)]);
      assert.match(await feed(), new RegExp(`reservation-${booked.id}@`));
    });

    test('a key revoked on the primary stops at once, however far behind the replica is', async () => {
      const { key } = expectStatus(
        await as(app, manager).post('/api/auth/api-keys', { label: 'script' }),
        201,
      );
      const byKey = { auth: { 'x-api-key': key as string } };
      await pair.caughtUp();
      await pair.pauseReplay();
      try {
        assert.ok((await resourceNames(byKey)).includes('Room A'));
        // Revoked behind the service's back: no caller of it wrote, so only the credential read can tell.
        const primary = new pg.Client({ connectionString: pair.primaryUrl });
        await primary.connect();
        await primary.query('update api_keys set revoked_at = now() where user_id = $1', [manager.id]);
        await primary.end();
        expectError(await as(app, byKey).get('/api/resources'), 401, 'UNAUTHENTICATED');
      } finally {
        await pair.resumeReplay();
      }
    });

    test('a feed URL, a public token or a resource ended on the primary is refused at once; what the rest shows still comes from the replica', async () => {
      // An organisation of its own: the other tests' lists and bookings stay as they count them.
      const pageSlug = `replica-tokens-${process.pid}`;
      const other = await ownerWithOrganisation(app, { slug: pageSlug, timezone: 'UTC' });
      const otherType = (await createType(app, other)).id;
      const desk = await createResource(app, other, { name: 'Desk', resourceTypeId: otherType });
      const hall = await createResource(app, other, { name: 'Hall', resourceTypeId: otherType });
      const newFeed = async () =>
        new URL(expectStatus(await as(app, other).post(`/api/resources/${desk.id}/feed`), 201).url).pathname;
      const byToken = (token: string) =>
        as(app, null).get(`/api/public/resources/${token}/availability?${range}`);
      const onPage = (resourceId: number) =>
        as(app, null).get(
          `/api/public/organisations/${pageSlug}/availability?resourceId=${resourceId}&${range}`,
        );
      const firstFeed = await newFeed();
      const { token: firstToken } = expectStatus(
        await as(app, other).get(`/api/resources/${desk.id}/public-token`),
        200,
      );
      await pair.caughtUp();
      const deskBefore = expectStatus(await byToken(firstToken), 200);
      assert.deepEqual(expectStatus(await onPage(desk.id), 200), deskBefore);
      expectStatus(await onPage(hall.id), 200);
      await pair.pauseReplay();
      let booked: { id: number };
      let token: string;
      try {
        // On the primary only, as the owner would, through the API: what the replica serves lacks it.
        booked = expectStatus(
          await book(app, other, { resourceId: desk.id, startTime: at(mon, 10), endTime: at(mon, 11) }),
          201,
        );

        // The feed replaced: the old URL is refused; the new one, unknown to the replica, opens the replica's reservations.
        const secondFeed = await newFeed();
        expectError(await as(app, null).get(firstFeed), 404, 'NOT_FOUND');
        const second = await as(app, null).get(secondFeed);
        assert.equal(second.statusCode, 200, second.body);
        assert.doesNotMatch(
          second.body,
          new RegExp(`reservation-${booked.id}@`),
          'the feed as the replica has it',
        );
        // Revoked: refused at once.
        expectStatus(await as(app, other).delete(`/api/resources/${desk.id}/feed`), 204);
        expectError(await as(app, null).get(secondFeed), 404, 'NOT_FOUND');

        // The public token replaced: the old one is refused; the new one answers the replica's availability.
        ({ token } = expectStatus(
          await as(app, other).post(`/api/resources/${desk.id}/regenerate-token`),
          200,
        ));
        expectError(await byToken(firstToken), 404, 'NOT_FOUND');
        assert.deepEqual(expectStatus(await byToken(token), 200), deskBefore, 'the booked hour still free');

        // A resource taken off the booking page: refused there at once; the page's other resource reads the replica.
        expectStatus(await as(app, other).patch(`/api/resources/${hall.id}`, { isActive: false }), 200);
        expectError(await onPage(hall.id), 404, 'NOT_FOUND');
        assert.deepEqual(expectStatus(await onPage(desk.id), 200), deskBefore, 'the booked hour still free');
      } finally {
        await pair.resumeReplay();
      }
      await pair.caughtUp();
      assert.notDeepEqual(
        expectStatus(await byToken(token), 200),
        deskBefore,
        'the replica has the booking now',
      );
      expectError(await byToken(firstToken), 404, 'NOT_FOUND');
      expectError(await onPage(hall.id), 404, 'NOT_FOUND');
    });

    test('with the replica down, reads come from the primary, current and in bounded time', async () => {
      pair.stopReplica();
      const started = Date.now();
      await createResource(app, owner, { name: 'Room C', resourceTypeId: typeId });
      expectStatus(await book(app, owner, slot(14)), 201);
      assert.deepEqual((await resourceNames(manager)).sort(), ['Room A', 'Room B', 'Room C']);
      assert.deepEqual(await reservationStarts(manager), [at(mon, 10), at(mon, 12), at(mon, 14)]);
      assert.deepEqual(await publicAvailability(), await availability(manager));
      assert.ok(Date.now() - started < 5_000, `${Date.now() - started} ms`);
    });
  });

if (process.env.TEST_DATABASE_URL)
  describe('PostgreSQL: a replica that never answers', () => {
    let silent: Server;
    const sockets = new Set<Socket>();
    let db: Db;
    let drop: () => Promise<void>;
    let app: FastifyInstance;

    before(async () => {
      // Takes the connection and never says a word: a replica behind a dropped network.
      silent = createServer((socket) => sockets.add(socket));
      await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
      const { port } = silent.address() as { port: number };
      const created = await createTestDatabase();
      drop = created.drop;
      db = createDatabase(testDatabaseUrl(created.db), {
        ...(created.db.schema ? { searchPath: created.db.schema } : {}),
        readUrl: `postgres://postgres@127.0.0.1:${port}/nowhere`,
      });
      app = await buildApp(loadConfig(TEST_ENV), { db, logger: false });
      await app.ready();
    });
    after(async () => {
      await app?.close();
      await db?.close();
      await drop?.();
      for (const socket of sockets) socket.destroy();
      silent?.close();
    });

    test('costs the first read its 1 s wait for a connection, then rests: the primary answers at once', async () => {
      const owner = await ownerWithOrganisation(app);
      const typeId = (await createType(app, owner)).id;
      await createResource(app, owner, { name: 'Room A', resourceTypeId: typeId });
      const member = await memberWithRole(app, owner, 'MEMBER');
      const timed = async () => {
        const started = Date.now();
        const names = (
          expectStatus(await as(app, member).get('/api/resources'), 200) as Array<{ name: string }>
        ).map((r) => r.name);
        return { names, ms: Date.now() - started };
      };
      const first = await timed();
      assert.deepEqual(first.names, ['Room A']);
      assert.ok(first.ms >= 900 && first.ms < 3_000, `the first read took ${first.ms} ms`);
      for (let i = 0; i < 3; i += 1) {
        const next = await timed();
        assert.deepEqual(next.names, ['Room A']);
        assert.ok(next.ms < 500, `a read while the replica rests took ${next.ms} ms`);
      }
    });
  });
