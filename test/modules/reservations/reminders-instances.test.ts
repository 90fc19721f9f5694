import assert from 'node:assert/strict';
import { after, afterEach, before, describe, mock, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../../src/app.js';
import { loadConfig } from '../../../src/config.js';
import type { Db } from '../../../src/db/database.js';
import { RESERVATION_REMINDERS_JOB } from '../../../src/modules/reservations/service.js';
import { sharedDatabase, TEST_ENV } from '../../helpers/app.js';
import { at, customer, futureMonday } from '../../helpers/booking.js';
import { createResource, createType } from '../../helpers/catalogue.js';
import { as, expectStatus } from '../../helpers/http.js';
import { type OrgOwner, ownerWithOrganisation, withApiKey } from '../../helpers/organisations.js';

const MINUTE = 60_000;

// Two instances on one PostgreSQL database with the pg-boss queue (the PostgreSQL pass runs
// this): each reminder is sent once however many runs of the job race for it. Both apps live
// in this process, so one fake clock (Date under mock.timers) is the clock of both.
if (process.env.TEST_DATABASE_URL)
  describe('reminders across two instances on PostgreSQL', () => {
    let first: FastifyInstance;
    let second: FastifyInstance;
    let db: Db;
    let drop: () => Promise<void>;
    let owner: OrgOwner;
    let roomIds: number[];
    before(async () => {
      const shared = await sharedDatabase();
      db = shared.first;
      drop = shared.drop;
      const config = loadConfig({ ...TEST_ENV, JOB_QUEUE: 'auto' });
      first = await buildApp(config, { db: shared.first, logger: false });
      second = await buildApp(config, { db: shared.second, logger: false });
      await first.ready();
      await second.ready();
      assert.equal(first.jobs.kind, 'pg-boss');
      owner = await ownerWithOrganisation(first, { timezone: 'UTC' });
      owner = await withApiKey(first, owner);
      const type = await createType(first, owner, { reminders: [{ minutesBefore: 60 }] });
      roomIds = [];
      for (const name of ['A', 'B', 'C', 'D'])
        roomIds.push((await createResource(first, owner, { name, resourceTypeId: type.id })).id);
    });
    after(async () => {
      await first.close();
      await second.close();
      await drop();
    });
    afterEach(() => mock.timers.reset());

    /** Booked at `hour` of the Monday after next on every room, through both instances. */
    const bookAll = async (hour: number) => {
      const mon = futureMonday();
      const ids: number[] = [];
      for (const [i, resourceId] of roomIds.entries()) {
        const app = i % 2 ? second : first;
        const slot = { resourceId, startTime: at(mon, hour), endTime: at(mon, hour + 1), customer };
        ids.push(expectStatus(await as(app, owner).post('/api/reservations', slot), 201).id);
      }
      return { ids, start: Date.parse(at(mon, hour)) };
    };
    /** How many reminder rows and reminder events each of `ids` has. */
    const sentFor = async (ids: number[]) => {
      const rows = await db.kysely
        .selectFrom('reservationReminders')
        .select('reservationId')
        .where('reservationId', 'in', ids)
        .execute();
      const events = await db.kysely
        .selectFrom('outboxEvents')
        .select('data')
        .where('type', '=', 'reservation.reminder_sent')
        .execute();
      const evented = events
        .map((e) => (JSON.parse(e.data) as { id: number }).id)
        .filter((id) => ids.includes(id));
      return { rows: rows.map((r) => r.reservationId).sort(), events: evented.sort() };
    };

    test('runs of the job racing on both instances send each reminder once', async () => {
      const { ids, start } = await bookAll(9);
      mock.timers.enable({ apis: ['Date'], now: start - 60 * MINUTE });
      const runs = await Promise.all(
        [first, second, first, second].map((app) => app.services.reservations.sendDueReminders()),
      );
      const sent = runs.flat().map((r) => r.reservationId);
      assert.deepEqual([...sent].sort(), [...ids].sort(), 'each answered by exactly one run');
      const sorted = [...ids].sort();
      assert.deepEqual(await sentFor(ids), { rows: sorted, events: sorted });
    });

    test('the job queued from both instances sends each reminder once', async () => {
      const { ids, start } = await bookAll(12);
      mock.timers.enable({ apis: ['Date'], now: start - 59 * MINUTE });
      await first.jobs.send(RESERVATION_REMINDERS_JOB, {});
      await second.jobs.send(RESERVATION_REMINDERS_JOB, {});
      for (let attempt = 0; attempt < 200; attempt++) {
        if ((await sentFor(ids)).rows.length === ids.length) break;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      const sorted = [...ids].sort();
      assert.deepEqual(await sentFor(ids), { rows: sorted, events: sorted }, 'the queued job ran');
      assert.deepEqual(await second.services.reservations.sendDueReminders(), []);
    });
  });
