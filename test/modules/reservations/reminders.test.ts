// Reminders (DECISIONS.md "Booking everywhere"): resource type `reminders`, validated; the
// reminder job's run under a fake clock (Date only) sends each due reminder once, none for a
// cancelled or started reservation, and a reschedule moves them; each writes the event
// `reservation.reminder_sent`, read here from the organisation's feed.
import assert from 'node:assert/strict';
import { after, afterEach, before, describe, mock, test } from 'node:test';
import { createTestApp, type TestApp } from '../../helpers/app.js';
import { at, customer, futureMonday } from '../../helpers/booking.js';
import { createResource, createType } from '../../helpers/catalogue.js';
import { as, expectStatus, validationDetails } from '../../helpers/http.js';
import { type OrgOwner, ownerWithOrganisation, withApiKey } from '../../helpers/organisations.js';

const MINUTE = 60_000;

describe('reminders', () => {
  let t: TestApp;
  let owner: OrgOwner;
  let typeId: number;
  let roomId: number;
  const mon = futureMonday();
  let day = 0;
  /** A free hour on its own day of the weeks ahead (the day after free too: a reschedule moves there). */
  const nextSlot = () => {
    day += 2;
    return { resourceId: roomId, startTime: at(mon, 24 * day + 10), endTime: at(mon, 24 * day + 11) };
  };

  before(async () => {
    t = await createTestApp();
    owner = await ownerWithOrganisation(t.app, { name: 'Reminding', timezone: 'UTC' });
    // An API key: a login session would lapse under the clock moved days ahead.
    owner = await withApiKey(t.app, owner);
    const type = await createType(t.app, owner, {
      name: 'Lesson',
      reminders: [{ minutesBefore: 60 }, { minutesBefore: 1440 }],
    });
    typeId = type.id;
    roomId = (await createResource(t.app, owner, { name: 'Room', resourceTypeId: type.id })).id;
  });
  after(() => t.close());
  afterEach(() => mock.timers.reset());

  const book = async (slot = nextSlot()) =>
    expectStatus(await as(t.app, owner).post('/api/reservations', { ...slot, customer }), 201);
  /** The reminder job's run at `ms`. */
  const sweepAt = async (ms: number) => {
    mock.timers.setTime(ms);
    return (await t.app.services.reservations.sendDueReminders()).map((r) => [
      r.reservationId,
      r.minutesBefore,
    ]);
  };
  /** Every `reservation.reminder_sent` of the organisation for `id`, as the start it names. */
  const remindersOf = async (id: number) => {
    const page = expectStatus(
      await as(t.app, owner).get(
        `/api/organisations/${owner.organisationId}/events?types=reservation.reminder_sent&limit=500`,
      ),
      200,
    );
    return (page.items as Array<{ data: { id: number; startTime: string; status: string } }>)
      .filter((event) => event.data.id === id)
      .map((event) => [event.data.startTime, event.data.status]);
  };

  test('reminders are validated, stored earliest first and read back; default none', async () => {
    const post = (reminders: unknown) =>
      as(t.app, owner).post('/api/resource-types', { name: 'X', reminders });
    assert.deepEqual(validationDetails(await post([{ minutesBefore: 14 }])), [
      'body.reminders.0.minutesBefore: must be at least 15 minutes',
    ]);
    assert.deepEqual(validationDetails(await post([{ minutesBefore: 10_081 }])), [
      'body.reminders.0.minutesBefore: must be at most 10080 minutes (7 days)',
    ]);
    assert.match(
      validationDetails(await post([{ minutesBefore: 30.5 }]))[0]!,
      /^body\.reminders\.0\.minutesBefore: /,
    );
    assert.deepEqual(validationDetails(await post([15, 30, 45, 60].map((m) => ({ minutesBefore: m })))), [
      'body.reminders: must list at most 3 reminders',
    ]);
    assert.deepEqual(validationDetails(await post([{ minutesBefore: 60 }, { minutesBefore: 60 }])), [
      'body.reminders.1.minutesBefore: repeats the minutesBefore of an earlier reminder',
    ]);
    assert.match(validationDetails(await post([{ minutes: 60 }]))[0]!, /^body\.reminders\.0/);

    const plain = await createType(t.app, owner, { name: 'Plain' });
    assert.deepEqual(plain.reminders, []);
    const made = await createType(t.app, owner, {
      name: 'Reminded',
      reminders: [{ minutesBefore: 15 }, { minutesBefore: 10_080 }, { minutesBefore: 120 }],
    });
    assert.deepEqual(
      made.reminders.map((r: { minutesBefore: number }) => r.minutesBefore),
      [10_080, 120, 15],
    );
    const changed = expectStatus(
      await as(t.app, owner).patch(`/api/resource-types/${made.id}`, { reminders: [{ minutesBefore: 30 }] }),
      200,
    );
    assert.deepEqual(changed.reminders, [{ minutesBefore: 30 }]);
    const read = expectStatus(await as(t.app, owner).get(`/api/resource-types/${made.id}`), 200);
    assert.deepEqual(read.reminders, [{ minutesBefore: 30 }]);
    const bad = await as(t.app, owner).patch(`/api/resource-types/${made.id}`, {
      reminders: [{ minutesBefore: 0 }],
    });
    assert.deepEqual(validationDetails(bad), ['body.reminders.0.minutesBefore: must be at least 15 minutes']);
    assert.deepEqual(
      expectStatus(await as(t.app, owner).get(`/api/resource-types/${made.id}`), 200).reminders,
      [{ minutesBefore: 30 }],
      'a refused update changes nothing',
    );
  });

  test('each reminder goes once at its moment, with the event reservation.reminder_sent', async () => {
    const booked = await book();
    const start = Date.parse(booked.startTime);
    mock.timers.enable({ apis: ['Date'], now: Date.now() });
    assert.deepEqual(await sweepAt(start - 1440 * MINUTE - MINUTE), [], 'not yet');
    assert.deepEqual(await sweepAt(start - 1440 * MINUTE), [[booked.id, 1440]]);
    assert.deepEqual(await sweepAt(start - 1440 * MINUTE + MINUTE), [], 'once');
    assert.deepEqual(await sweepAt(start - 60 * MINUTE + 30_000), [[booked.id, 60]]);
    assert.deepEqual(await sweepAt(start - 30 * MINUTE), []);
    assert.deepEqual(await remindersOf(booked.id), [
      [booked.startTime, 'confirmed'],
      [booked.startTime, 'confirmed'],
    ]);
  });

  test('none for a cancelled reservation, none once it has started', async () => {
    const cancelled = await book();
    expectStatus(await as(t.app, owner).post(`/api/reservations/${cancelled.id}/cancel`, {}), 200);
    const started = await book();
    mock.timers.enable({ apis: ['Date'], now: Date.now() });
    await sweepAt(Date.parse(cancelled.startTime) - 60 * MINUTE);
    assert.deepEqual(await remindersOf(cancelled.id), []);
    // The job was down through both moments: once the start has passed, nothing goes.
    await sweepAt(Date.parse(started.startTime) + MINUTE);
    assert.deepEqual(await remindersOf(started.id), []);
  });

  test('a reschedule moves the reminders: one sent goes again for the new time, one not due follows it', async () => {
    const booked = await book();
    const start = Date.parse(booked.startTime);
    mock.timers.enable({ apis: ['Date'], now: Date.now() });
    assert.deepEqual(await sweepAt(start - 1440 * MINUTE), [[booked.id, 1440]]);
    // Moved a day later: the day-before reminder is due again, for the new start.
    const later = { startTime: new Date(start + 1440 * MINUTE).toISOString() };
    const moved = expectStatus(
      await as(t.app, owner).post(`/api/reservations/${booked.id}/reschedule`, {
        ...later,
        endTime: new Date(start + 1500 * MINUTE).toISOString(),
      }),
      200,
    );
    assert.deepEqual(await sweepAt(start - 60 * MINUTE), [], 'nothing at the old start');
    assert.deepEqual(await sweepAt(start), [[booked.id, 1440]], 'the day before the new start');
    assert.deepEqual(await sweepAt(start + 1380 * MINUTE), [[booked.id, 60]]);
    assert.deepEqual(await remindersOf(booked.id), [
      [booked.startTime, 'confirmed'],
      [moved.startTime, 'confirmed'],
      [moved.startTime, 'confirmed'],
    ]);
  });

  test('a reminder whose moment came before the booking was made is not sent', async () => {
    const slot = nextSlot();
    const start = Date.parse(slot.startTime);
    mock.timers.enable({ apis: ['Date'], now: start - 120 * MINUTE });
    const booked = await book(slot);
    assert.deepEqual(await sweepAt(start - 119 * MINUTE), [], 'the day-before one passed before it was made');
    assert.deepEqual(await sweepAt(start - 60 * MINUTE), [[booked.id, 60]]);
  });

  test('a type without reminders sends none', async () => {
    const quiet = await createType(t.app, owner, { name: 'Quiet' });
    const desk = await createResource(t.app, owner, { name: 'Desk', resourceTypeId: quiet.id });
    const slot = { ...nextSlot(), resourceId: desk.id };
    const booked = await book(slot);
    mock.timers.enable({ apis: ['Date'], now: Date.now() });
    await sweepAt(Date.parse(booked.startTime) - 60 * MINUTE);
    assert.deepEqual(await remindersOf(booked.id), []);
    assert.ok(typeId > 0);
  });
});
