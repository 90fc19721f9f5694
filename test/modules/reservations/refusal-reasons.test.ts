import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import { sql } from 'kysely';
import { createReservationRepo } from '../../../src/modules/reservations/repo.js';
import { createTestApp, type TestApp } from '../../helpers/app.js';
import { at, book, bookPublicly, customer, futureMonday } from '../../helpers/booking.js';
import { createResource, createType } from '../../helpers/catalogue.js';
import { call, expectStatus } from '../../helpers/http.js';
import { type OrgOwner, ownerWithOrganisation } from '../../helpers/organisations.js';
import { otherBackends } from '../../helpers/pg-backends.js';

/**
 * Every SLOT_UNAVAILABLE carries the reasons of the explain routes in `error.details`
 * (DECISIONS.md "Teams"); the public booking routes show what takes the time only as
 * UNAVAILABLE (docs/decisions.md).
 */
describe('a refused time says why', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp({ PUBLIC_RATE_LIMIT_MAX: '1000' });
  });
  after(() => t.close());

  test('booking, dry run, reschedule, series and the public routes', async () => {
    const slug = `reasons-${process.pid}`;
    const owner = await ownerWithOrganisation(t.app, { slug, timezone: 'UTC' });
    const type = await createType(t.app, owner, {
      bufferTime: 30,
      recurringEnabled: true,
      schedulePolicy: {
        operatingHours: [1, 2, 3, 4, 5].map((dayOfWeek) => ({
          dayOfWeek,
          openTime: '09:00',
          closeTime: '17:00',
        })),
      },
    });
    const room = await createResource(t.app, owner, { name: 'Room', resourceTypeId: type.id });
    const mon = futureMonday();
    const slot = (from: number, to: number) => ({
      resourceId: room.id,
      startTime: at(mon, from),
      endTime: at(mon, to),
    });
    const booked = expectStatus(await book(t.app, owner, slot(11, 12)), 201);

    const refused = expectStatus(await book(t.app, owner, slot(10, 12)), 409, 'SLOT_UNAVAILABLE');
    assert.deepEqual(
      refused.error.details.map((d: { code: string; from: string; to: string }) => [d.code, d.from, d.to]),
      [
        ['BUFFER', at(mon, 10, 30), at(mon, 11)],
        ['BOOKED', at(mon, 11), at(mon, 12)],
      ],
    );
    assert.ok(refused.error.alternatives.length > 0);
    const early = expectStatus(await book(t.app, owner, slot(8, 9)), 409, 'SLOT_UNAVAILABLE');
    assert.deepEqual(
      early.error.details.map((d: { code: string }) => d.code),
      ['OUTSIDE_HOURS'],
    );

    const dry = expectStatus(await book(t.app, owner, slot(10, 12), { query: 'dryRun=true' }), 200);
    assert.equal(dry.wouldSucceed, false);
    assert.deepEqual(
      dry.error.details.map((d: { code: string }) => d.code),
      ['BUFFER', 'BOOKED'],
    );

    // A move ignores its own time: only the other reservation stands in the way.
    const other = expectStatus(await book(t.app, owner, slot(14, 15)), 201);
    const moved = expectStatus(
      await call(t.app, owner, 'POST', `/api/reservations/${other.id}/reschedule`, {
        startTime: at(mon, 12),
        endTime: at(mon, 13),
      }),
      409,
      'SLOT_UNAVAILABLE',
    );
    assert.deepEqual(
      moved.error.details.map((d: { code: string }) => d.code),
      ['BUFFER'],
    );
    assert.ok(booked.id);

    const series = expectStatus(
      await book(t.app, owner, { ...slot(11, 12), recurrence: ['RRULE:FREQ=WEEKLY;COUNT=2'] }),
      409,
      'SLOT_UNAVAILABLE',
    );
    assert.deepEqual(
      series.error.details.map((d: { code: string }) => d.code),
      ['BOOKED'],
    );

    const publicly = await bookPublicly(t.app, slug, slot(10, 12));
    const body = expectStatus(publicly, 409, 'SLOT_UNAVAILABLE');
    assert.deepEqual(body.error.details, [
      { code: 'UNAVAILABLE', message: 'This time is not available', from: at(mon, 10, 30), to: at(mon, 12) },
    ]);
    assert.doesNotMatch(publicly.body, /BOOKED|BUFFER|HELD|CALENDAR_BUSY/);
    const publicEarly = expectStatus(await bookPublicly(t.app, slug, slot(8, 9)), 409, 'SLOT_UNAVAILABLE');
    assert.deepEqual(
      publicEarly.error.details.map((d: { code: string }) => d.code),
      ['OUTSIDE_HOURS'],
    );
    const publicDry = expectStatus(
      await bookPublicly(t.app, slug, slot(10, 12), { query: 'dryRun=true' }),
      200,
    );
    assert.deepEqual(
      publicDry.error.details.map((d: { code: string }) => d.code),
      ['UNAVAILABLE'],
    );
  });
});

// PostgreSQL books a series on many connections: an occurrence's time can be taken between
// the attempt's read and its insert (book-series.ts), and the series is tried again. One that
// loses that race in its last attempt too is refused as any misfit is: with the reasons.
if (process.env.TEST_DATABASE_URL)
  describe('PostgreSQL: a series losing its race in every attempt', () => {
    let t: TestApp;
    before(async () => {
      t = await createTestApp();
    });
    after(() => t.close());

    /** A booking of `lane`'s time in a transaction left open until `commit`: invisible to reads, in the way of inserts. */
    async function openBooking(
      owner: OrgOwner,
      lane: { id: number; resourceTypeId: number; updatedAt: string },
      time: { startTime: string; endTime: string },
    ) {
      const repo = createReservationRepo(t.db.kysely, 'postgres');
      let commit!: () => void;
      const committing = new Promise<void>((resolve) => {
        commit = resolve;
      });
      let opened!: (pid: number) => void;
      const pid = new Promise<number>((resolve) => {
        opened = resolve;
      });
      const done = t.db.kysely.transaction().execute(async (trx) => {
        const backend = await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(trx);
        const values = {
          organisationId: owner.organisationId,
          resourceTypeId: lane.resourceTypeId,
          resourceId: lane.id,
          status: 'confirmed' as const,
          ...time,
          blockedUntil: time.endTime,
          customer,
          notes: null,
          priceAmount: null,
          priceCurrency: null,
          source: 'api' as const,
          createdByUserId: null,
          rulesOverriddenByUserId: null,
          expiresAt: null,
        };
        assert.ok(await repo.insertOnLane(trx, values, lane.updatedAt, new Date().toISOString()));
        opened(backend.rows[0]!.pid);
        await committing;
      });
      const racer = {
        pid: await pid,
        committed: false,
        commit: () => {
          racer.committed = true;
          commit();
          return done;
        },
      };
      return racer;
    }

    /**
     * Which of `pids` a backend of this database waits for (the series' insert), polled until
     * one does or the series has `answered`: a waiter just woken by a commit still shows as
     * waiting for a moment, with nobody left to wait for.
     */
    async function waitedFor(pids: number[], answered: () => boolean): Promise<number | undefined> {
      for (const deadline = Date.now() + 10_000; Date.now() < deadline && !answered(); await delay(10)) {
        const waiting = (await otherBackends(t.db.kysely)).filter((backend) => backend.waitingForLock);
        const pid = waiting.flatMap((backend) => backend.blockers).find((blocker) => pids.includes(blocker));
        if (pid !== undefined) return pid;
      }
      return undefined;
    }

    test('SLOT_UNAVAILABLE names the occurrence, with the reasons of the time taken', async () => {
      const owner = await ownerWithOrganisation(t.app, { timezone: 'UTC' });
      const type = await createType(t.app, owner, { bookingMode: 'POOL', recurringEnabled: true });
      const parent = await createResource(t.app, owner, {
        name: 'Trio',
        resourceTypeId: type.id,
        capacity: 3,
      });
      const lanes = await t.db.kysely
        .selectFrom('resources')
        .select(['id', 'resourceTypeId', 'updatedAt'])
        .where('parentResourceId', '=', parent.id)
        .execute();
      assert.equal(lanes.length, 3);
      const mon = futureMonday();
      const time = { startTime: at(mon, 10), endTime: at(mon, 11) };
      // An hour booked the day after: the type's longest reservation raised, as the racers' bookings would.
      expectStatus(
        await book(t.app, owner, {
          resourceTypeId: type.id,
          startTime: at(mon, 24 + 10),
          endTime: at(mon, 24 + 11),
        }),
        201,
      );
      // Every lane's time taken, none committed: each attempt reads a lane free and waits on it.
      const racers = await Promise.all(lanes.map((lane) => openBooking(owner, lane, time)));
      const series = book(t.app, owner, {
        resourceTypeId: type.id,
        ...time,
        recurrence: ['RRULE:FREQ=WEEKLY;COUNT=2'],
      });
      let answered = false;
      void series.then(() => {
        answered = true;
      });
      try {
        for (let attempt = 1; attempt <= 3; attempt++) {
          const open = racers.filter((one) => !one.committed);
          const pid = await waitedFor(
            open.map((one) => one.pid),
            () => answered,
          );
          const racer = open.find((one) => one.pid === pid);
          assert.ok(racer, `attempt ${attempt} waits for an open booking (answered: ${answered})`);
          await racer.commit();
        }
      } finally {
        await Promise.all(racers.map((racer) => racer.commit()));
      }
      const refused = expectStatus(await series, 409, 'SLOT_UNAVAILABLE');
      const codes = refused.error.details?.map((d: { code: string }) => d.code);
      assert.ok(
        codes?.length > 0 && codes.every((code: string) => code === 'BOOKED'),
        JSON.stringify(refused),
      );
      assert.deepEqual(
        refused.error.conflicts.map((c: { startTime: string }) => c.startTime),
        [time.startTime],
      );
      const kept = await t.db.kysely
        .selectFrom('reservations')
        .select('id')
        .where('resourceTypeId', '=', type.id)
        .execute();
      assert.equal(kept.length, 4, 'the series booked nothing');
    });
  });
