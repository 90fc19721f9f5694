// Attendance (DECISIONS.md "Booking everywhere"): staff mark attended or no_show once a
// confirmed reservation has started; before the start or on a cancelled one 409
// INVALID_TRANSITION; MEMBER 403, another organisation 404; the list filters by it, a
// customer's counts add it up, and no_show writes the event reservation.no_show.
import assert from 'node:assert/strict';
import { after, afterEach, before, describe, mock, test } from 'node:test';
import { createTestApp, type TestApp } from '../../helpers/app.js';
import { at, futureMonday } from '../../helpers/booking.js';
import { createResource, createType } from '../../helpers/catalogue.js';
import { as, type Caller, expectError, expectStatus, validationDetails } from '../../helpers/http.js';
import { createTeam, ownerWithOrganisation, type Team } from '../../helpers/organisations.js';
import { PRIVACY } from '../../helpers/privacy.js';

describe('attendance', () => {
  let t: TestApp;
  let team: Team;
  let staff: Caller;
  let ownerKey: Caller;
  let memberKey: Caller;
  let roomId: number;
  const mon = futureMonday();
  let hour = 8;
  const nextSlot = () => {
    hour += 1;
    return { resourceId: roomId, startTime: at(mon, hour), endTime: at(mon, hour + 1) };
  };

  before(async () => {
    t = await createTestApp();
    team = await createTeam(t.app, { timezone: 'UTC' });
    // API keys: a login session would lapse under the clock moved ahead.
    const keyOf = async (caller: Caller) => {
      const { key } = expectStatus(
        await as(t.app, caller).post('/api/auth/api-keys', { label: 'clock' }),
        201,
      );
      return { auth: { authorization: `ApiKey ${key}` } };
    };
    staff = await keyOf(team.manager);
    ownerKey = await keyOf(team.owner);
    memberKey = await keyOf(team.member);
    const type = await createType(t.app, team.owner);
    roomId = (await createResource(t.app, team.owner, { name: 'Room', resourceTypeId: type.id })).id;
  });
  after(() => t.close());
  afterEach(() => mock.timers.reset());

  const book = async (email: string) =>
    expectStatus(
      await as(t.app, staff).post('/api/reservations', { ...nextSlot(), customer: { name: 'Cust', email } }),
      201,
    );
  const mark = (id: number, status: string, caller: Caller = staff) =>
    as(t.app, caller).post(`/api/reservations/${id}/attendance`, { status });
  const afterStart = (reservation: { startTime: string }) =>
    mock.timers.enable({ apis: ['Date'], now: Date.parse(reservation.startTime) + 60_000 });
  const noShowEvents = async () => {
    const page = expectStatus(
      await as(t.app, ownerKey).get(
        `/api/organisations/${team.organisationId}/events?types=reservation.no_show`,
      ),
      200,
    );
    return (page.items as Array<{ data: { id: number; attendance: string } }>).map((e) => [
      e.data.id,
      e.data.attendance,
    ]);
  };

  test('marked once started, changeable, filtered, counted; no_show writes its event', async () => {
    const came = await book('ada@example.test');
    const missed = await book('ada@example.test');
    const unmarked = await book('bob@example.test');
    assert.equal(came.attendance, null, 'null until marked');
    expectError(await mark(came.id, 'attended'), 409, 'INVALID_TRANSITION');

    afterStart(missed);
    assert.equal(expectStatus(await mark(came.id, 'attended'), 200).attendance, 'attended');
    assert.equal(expectStatus(await mark(missed.id, 'no_show'), 200).attendance, 'no_show');
    // A slip corrected: attended, then no_show after all, then back.
    assert.equal(expectStatus(await mark(came.id, 'no_show'), 200).attendance, 'no_show');
    assert.equal(expectStatus(await mark(came.id, 'attended'), 200).attendance, 'attended');
    assert.equal(
      expectStatus(await as(t.app, staff).get(`/api/reservations/${came.id}`), 200).attendance,
      'attended',
    );

    const list = async (query: string) =>
      (
        expectStatus(await as(t.app, staff).get(`/api/reservations?${query}`), 200).items as Array<{
          id: number;
        }>
      ).map((r) => r.id);
    assert.deepEqual(await list('attendance=attended'), [came.id]);
    assert.deepEqual(await list('attendance=no_show'), [missed.id]);
    assert.ok((await list('limit=100')).includes(unmarked.id));
    assert.deepEqual(validationDetails(await as(t.app, staff).get('/api/reservations?attendance=maybe')), [
      'querystring.attendance: Invalid option: expected one of "attended"|"no_show"',
    ]);

    const counts = (email: string) =>
      as(t.app, memberKey).get(
        `/api/reservations/attendance-counts?customerEmail=${encodeURIComponent(email)}`,
      );
    assert.deepEqual(expectStatus(await counts('Ada@Example.test'), 200), {
      customerEmail: 'ada@example.test',
      attended: 1,
      noShow: 1,
    });
    assert.deepEqual(expectStatus(await counts('bob@example.test'), 200), {
      customerEmail: 'bob@example.test',
      attended: 0,
      noShow: 0,
    });

    assert.deepEqual(await noShowEvents(), [
      [missed.id, 'no_show'],
      [came.id, 'no_show'],
    ]);
  });

  test('not before the start, not on a cancelled reservation: 409 INVALID_TRANSITION', async () => {
    const early = await book('cy@example.test');
    const error = expectError(await mark(early.id, 'no_show'), 409, 'INVALID_TRANSITION');
    assert.match(error.message, /once the reservation has started/);
    const cancelled = await book('cy@example.test');
    expectStatus(await as(t.app, staff).post(`/api/reservations/${cancelled.id}/cancel`, {}), 200);
    afterStart(cancelled);
    const refused = expectError(await mark(cancelled.id, 'attended'), 409, 'INVALID_TRANSITION');
    assert.match(refused.message, /this one is cancelled/);
    assert.equal(
      expectStatus(await as(t.app, staff).get(`/api/reservations/${cancelled.id}`), 200).attendance,
      null,
    );
  });

  test('staff only: MEMBER 403, another organisation 404, bad input 400', async () => {
    const booked = await book('dee@example.test');
    afterStart(booked);
    expectError(await mark(booked.id, 'attended', memberKey), 403, 'FORBIDDEN');
    mock.timers.reset();
    const stranger = await ownerWithOrganisation(t.app, { name: 'Elsewhere' });
    expectError(await mark(booked.id, 'attended', stranger), 404, 'NOT_FOUND');
    assert.deepEqual(validationDetails(await mark(booked.id, 'late')), [
      'body.status: Invalid option: expected one of "attended"|"no_show"',
    ]);
    expectError(await mark(999_999, 'attended'), 404, 'NOT_FOUND');
  });

  test("the privacy export of the staff member who booked carries the reservation's attendance", async () => {
    const booked = await book('eve@example.test');
    afterStart(booked);
    expectStatus(await mark(booked.id, 'no_show'), 200);
    const exported = expectStatus(await as(t.app, staff).get(`${PRIVACY}/export`), 200) as {
      data: { reservations: Array<{ id: number; attendance: string | null }> };
    };
    assert.equal(exported.data.reservations.find((r) => r.id === booked.id)?.attendance, 'no_show');
  });
});
