import assert from 'node:assert/strict';
import { after, afterEach, before, describe, mock, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../../src/app.js';
import { loadConfig } from '../../../src/config.js';
import type { Db } from '../../../src/db/database.js';
import { RESERVATION_EXPIRY_JOB } from '../../../src/modules/reservations/service.js';
import { sharedDatabase, TEST_ENV } from '../../helpers/app.js';
import { at, customer, futureMonday } from '../../helpers/booking.js';
import { createResource, createType } from '../../helpers/catalogue.js';
import { as, expectError, expectStatus } from '../../helpers/http.js';
import { type OrgOwner, ownerWithOrganisation, withApiKey } from '../../helpers/organisations.js';

// Two instances on one PostgreSQL database with the pg-boss queue: the PostgreSQL pass of
// the suite (npm run test:pg) runs this. Both apps live in this process, so one fake
// clock (Date under mock.timers) is the clock of both.
if (process.env.TEST_DATABASE_URL)
  describe('holds across two instances on PostgreSQL', () => {
    let first: FastifyInstance;
    let second: FastifyInstance;
    let db: Db;
    let drop: () => Promise<void>;
    let owner: OrgOwner;
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
    });
    after(async () => {
      await first.close();
      await second.close();
      await drop();
    });
    afterEach(() => mock.timers.reset());

    const statusOf = async (ids: number[]) =>
      db.kysely.selectFrom('reservations').select(['id', 'status']).where('id', 'in', ids).execute();

    test('a hold made on one instance frees its time on the other at expiresAt, before any job', async () => {
      const start = Date.now();
      mock.timers.enable({ apis: ['Date'], now: start });
      const type = await createType(first, owner);
      const room = await createResource(first, owner, { name: 'Shared', resourceTypeId: type.id });
      const mon = futureMonday();
      const slot = { customer, resourceId: room.id, startTime: at(mon, 9), endTime: at(mon, 10) };
      const availability = async (app: FastifyInstance) =>
        expectStatus(
          await as(app, owner).get(
            `/api/resources/${room.id}/availability?from=${encodeURIComponent(slot.startTime)}&to=${encodeURIComponent(slot.endTime)}`,
          ),
          200,
        ).windows.length;

      const held = expectStatus(
        await as(first, owner).post('/api/reservations/holds', { ...slot, holdSeconds: 60 }),
        201,
      );
      mock.timers.setTime(start + 59_000);
      assert.equal(await availability(second), 0);
      expectError(await as(second, owner).post('/api/reservations', slot), 409, 'SLOT_UNAVAILABLE');
      mock.timers.setTime(start + 60_000);
      assert.equal(await availability(second), 1);
      const booked = expectStatus(await as(second, owner).post('/api/reservations', slot), 201);
      assert.equal(booked.resourceId, held.resourceId);
      expectError(await as(first, owner).post(`/api/reservations/${held.id}/confirm`), 409, 'HOLD_EXPIRED');
      assert.deepEqual(await statusOf([held.id]), [{ id: held.id, status: 'expired' }]);
    });

    test('the expiry job marks each lapsed hold exactly once across both instances', async () => {
      const start = Date.now();
      mock.timers.enable({ apis: ['Date'], now: start });
      const type = await createType(first, owner, { bookingMode: 'POOL' });
      await createResource(first, owner, { name: 'Ten', resourceTypeId: type.id, capacity: 10 });
      const mon = futureMonday();
      const holdAll = async (hours: number[]) => {
        const ids: number[] = [];
        for (const hour of hours)
          for (let lane = 0; lane < 10; lane++)
            ids.push(
              expectStatus(
                await as(first, owner).post('/api/reservations/holds', {
                  customer,
                  resourceTypeId: type.id,
                  startTime: at(mon, hour),
                  endTime: at(mon, hour + 1),
                  holdSeconds: 60,
                }),
                201,
              ).id,
            );
        return ids;
      };

      // The job's work, run by both instances at once, twice each.
      const direct = await holdAll([9, 10, 11]);
      mock.timers.setTime(start + 60_000);
      const runs = await Promise.all(
        [first, second, first, second].map((app) => app.services.reservations.expireDue()),
      );
      const marked = runs.flat().map((r) => r.id);
      assert.equal(marked.length, direct.length, 'no hold answered twice');
      assert.deepEqual(
        [...marked].sort((a, b) => a - b),
        [...direct].sort((a, b) => a - b),
      );
      assert.ok((await statusOf(direct)).every((r) => r.status === 'expired'));

      // The job itself, sent to the queue from both instances.
      const queued = await holdAll([12]);
      mock.timers.setTime(start + 120_000);
      await first.jobs.send(RESERVATION_EXPIRY_JOB, {});
      await second.jobs.send(RESERVATION_EXPIRY_JOB, {});
      for (let attempt = 0; attempt < 200; attempt++) {
        if ((await statusOf(queued)).every((r) => r.status === 'expired')) break;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      assert.ok(
        (await statusOf(queued)).every((r) => r.status === 'expired'),
        'the queued job ran',
      );
      assert.deepEqual(await first.services.reservations.expireDue(), []);
    });
  });
