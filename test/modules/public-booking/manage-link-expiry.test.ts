import assert from 'node:assert/strict';
import { after, afterEach, before, describe, mock, test } from 'node:test';
import { createTestApp, type TestApp } from '../../helpers/app.js';
import { at, bookPublicly, customer, futureMonday } from '../../helpers/booking.js';
import { createResource, createType } from '../../helpers/catalogue.js';
import { as, expectError, expectStatus } from '../../helpers/http.js';
import { type OrgOwner, ownerWithOrganisation } from '../../helpers/organisations.js';

const DAY = 86_400_000;

/**
 * Manage links live until 30 days after the reservation's end, or after its cancellation
 * (DECISIONS.md "What the review found, decided"); a waitlist entry's link until 30 days
 * after the time it waits for. Then every manage route answers 410 LINK_EXPIRED. The clock
 * is Date under mock.timers.
 */
describe('manage links expire', () => {
  let t: TestApp;
  let owner: OrgOwner;
  let room: { id: number };
  const slug = `expiry-${process.pid}`;
  const mon = futureMonday();
  const slot = (hour: number) => ({
    resourceId: room.id,
    startTime: at(mon, hour),
    endTime: at(mon, hour + 1),
  });
  before(async () => {
    t = await createTestApp({ PUBLIC_RATE_LIMIT_MAX: '1000' });
    owner = await ownerWithOrganisation(t.app, { slug, timezone: 'UTC' });
    const type = await createType(t.app, owner, { waitlistEnabled: true });
    room = await createResource(t.app, owner, { name: 'Room', resourceTypeId: type.id });
  });
  afterEach(() => mock.timers.reset());
  after(() => t.close());

  const inject = (method: 'GET' | 'POST' | 'DELETE', url: string, payload?: Record<string, unknown>) =>
    t.app.inject({ method, url, ...(payload ? { payload } : {}) });

  test('a reservation link answers until 30 days after its end, then 410 on every route', async () => {
    const booked = expectStatus(await bookPublicly(t.app, slug, slot(9)), 201);
    const view = `/api/public/reservations/${booked.manageToken}`;
    const end = Date.parse(booked.endTime);
    mock.timers.enable({ apis: ['Date'], now: end + 30 * DAY });
    expectStatus(await inject('GET', view), 200);
    mock.timers.setTime(end + 30 * DAY + 1000);
    expectError(await inject('GET', view), 410, 'LINK_EXPIRED');
    expectError(await inject('POST', `${view}/cancel`), 410, 'LINK_EXPIRED');
    expectError(await inject('POST', `${view}/confirm`), 410, 'LINK_EXPIRED');
    const { startTime, endTime } = slot(12);
    expectError(await inject('POST', `${view}/reschedule`, { startTime, endTime }), 410, 'LINK_EXPIRED');
    // An unknown token is still 404: the answer says nothing about tokens that never were.
    expectError(await inject('GET', `/api/public/reservations/${'x'.repeat(43)}`), 404, 'NOT_FOUND');
  });

  test('a cancelled reservation’s link lives 30 days after the cancellation', async () => {
    const booked = expectStatus(await bookPublicly(t.app, slug, slot(11)), 201);
    const view = `/api/public/reservations/${booked.manageToken}`;
    const cancelledAt = Date.now();
    mock.timers.enable({ apis: ['Date'], now: cancelledAt });
    expectStatus(await inject('POST', `${view}/cancel`), 200);
    const at30 = cancelledAt + 30 * DAY;
    assert.ok(at30 < Date.parse(booked.endTime) + 30 * DAY);
    mock.timers.setTime(at30);
    expectStatus(await inject('GET', view), 200);
    mock.timers.setTime(at30 + 1000);
    expectError(await inject('GET', view), 410, 'LINK_EXPIRED');
  });

  test('a waitlist entry’s link lives 30 days after the time it waits for', async () => {
    expectStatus(await as(t.app, owner).post('/api/reservations', { customer, ...slot(14) }), 201);
    const entry = expectStatus(
      await inject('POST', `/api/public/organisations/${slug}/waitlist`, {
        customer: { name: 'Pat', email: 'pat@example.test' },
        ...slot(14),
      }),
      201,
    );
    const link = `/api/public/waitlist/${entry.manageToken}`;
    const end = Date.parse(entry.endTime);
    mock.timers.enable({ apis: ['Date'], now: end + 30 * DAY });
    expectStatus(await inject('GET', link), 200);
    mock.timers.setTime(end + 30 * DAY + 1000);
    expectError(await inject('GET', link), 410, 'LINK_EXPIRED');
    expectError(await inject('DELETE', link), 410, 'LINK_EXPIRED');
  });
});
