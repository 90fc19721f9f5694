import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestApp, type TestApp } from '../../helpers/app.js';
import { ANSWERS, at, book, futureMonday, QUESTIONS } from '../../helpers/booking.js';
import { createResource, createType } from '../../helpers/catalogue.js';
import { as, expectError, expectStatus, ok } from '../../helpers/http.js';
import { memberWithRole, type OrgOwner, ownerWithOrganisation } from '../../helpers/organisations.js';
import { PRIVACY } from '../../helpers/privacy.js';

/**
 * Answers to booking questions (DECISIONS.md "Pages people live in") go wherever the customer
 * goes: a move keeps them, every occurrence of a series and a waitlist entry (and its offer)
 * carry them, and the privacy export shows them and erasure takes them with the customer.
 */
describe('answers kept with the customer', () => {
  let t: TestApp;
  let owner: OrgOwner;
  let room: { id: number };
  const slug = `answers-kept-${process.pid}`;
  const mon = futureMonday();
  const slot = (hour: number, day = 0) => ({
    resourceId: room.id,
    startTime: at(mon, day * 24 + hour),
    endTime: at(mon, day * 24 + hour + 1),
  });
  const customer = (answers?: unknown) => ({
    name: 'Ada Lovelace',
    email: 'ada@example.test',
    ...(answers === undefined ? {} : { answers }),
  });

  before(async () => {
    t = await createTestApp({ PUBLIC_RATE_LIMIT_MAX: '1000' });
    owner = await ownerWithOrganisation(t.app, { slug, timezone: 'UTC' });
    const type = await createType(t.app, owner, {
      name: 'Asked',
      questions: QUESTIONS,
      recurringEnabled: true,
      waitlistEnabled: true,
    });
    room = await createResource(t.app, owner, { name: 'Room', resourceTypeId: type.id });
  });
  after(() => t.close());

  test('a reschedule keeps the answers', async () => {
    const booked = expectStatus(await book(t.app, owner, { ...slot(8), customer: customer(ANSWERS) }), 201);
    const { resourceId: _r, ...later } = slot(16);
    const moved = expectStatus(
      await as(t.app, owner).post(`/api/reservations/${booked.id}/reschedule`, later),
      200,
    );
    assert.equal(moved.startTime, later.startTime);
    assert.deepEqual(moved.customer.answers, ANSWERS);
  });

  test('a series checks the answers once and gives every occurrence them, or books nothing', async () => {
    const series = { ...slot(9, 1), recurrence: ['RRULE:FREQ=WEEKLY;COUNT=3'] };
    const refused = expectError(
      await book(t.app, owner, { ...series, customer: customer({ ...ANSWERS, terms: false }) }),
      400,
      'VALIDATION_FAILED',
    );
    assert.deepEqual(
      refused.details?.map((d) => d.path),
      ['body.customer.answers.terms'],
    );
    const booked = expectStatus(await book(t.app, owner, { ...series, customer: customer(ANSWERS) }), 201);
    assert.equal(booked.reservations.length, 3, 'the refused series took none of the times');
    for (const occurrence of booked.reservations) assert.deepEqual(occurrence.customer.answers, ANSWERS);
  });

  test('a waitlist entry takes checked answers, shows them, and its offer carries them', async () => {
    const taken = expectStatus(
      await book(t.app, owner, { ...slot(10, 2), customer: customer(ANSWERS) }),
      201,
    );
    const join = (answers: unknown) =>
      t.app.inject({
        method: 'POST',
        url: `/api/public/organisations/${slug}/waitlist`,
        payload: { ...slot(10, 2), customer: { name: 'Pat', email: 'pat@example.test', answers } },
      });
    const refused = expectError(await join({ company: 'Pat Co' }), 400, 'VALIDATION_FAILED');
    assert.deepEqual(refused.details?.map((d) => d.path).sort(), [
      'body.customer.answers.size',
      'body.customer.answers.terms',
    ]);
    const entry = expectStatus(await join(ANSWERS), 201);
    assert.deepEqual(entry.customer.answers, ANSWERS);
    const staffView = expectStatus(await as(t.app, owner).get(`/api/reservations/waitlist/${entry.id}`), 200);
    assert.deepEqual(staffView.customer.answers, ANSWERS);

    expectStatus(await as(t.app, owner).post(`/api/reservations/${taken.id}/cancel`), 200);
    await t.app.services.waitlist.processOffers();
    const offer = expectStatus(
      await t.app.inject({ method: 'GET', url: `/api/public/reservations/${entry.manageToken}` }),
      200,
    );
    assert.equal(offer.status, 'held');
    assert.deepEqual(offer.customer.answers, ANSWERS);
  });

  test('the privacy export shows a booking’s answers and erasure takes them', async () => {
    const member = await memberWithRole(t.app, owner, 'MEMBER');
    const booked = expectStatus(
      await as(t.app, member).post('/api/reservations', {
        ...slot(11, 3),
        customer: { name: 'Me Myself', email: member.email, answers: ANSWERS },
      }),
      201,
    );
    const exported = (await ok(t.app, member, 'GET', `${PRIVACY}/export`)) as {
      data: { reservations: Array<{ id: number; customerInfo: { answers?: unknown } }> };
    };
    const row = exported.data.reservations.find((r) => r.id === booked.id);
    assert.deepEqual(row?.customerInfo.answers, ANSWERS);

    const request = await ok(t.app, member, 'POST', `${PRIVACY}/requests`, { requestType: 'delete' });
    await t.app.services.privacy.operator.process(request.id);
    await t.app.jobs.idle();
    const kept = expectStatus(await as(t.app, owner).get(`/api/reservations/${booked.id}`), 200);
    assert.equal(kept.customer.name, 'Anonymised');
    assert.equal(kept.customer.answers, undefined);
    assert.equal(JSON.stringify(kept).includes(ANSWERS.company), false);
  });
});
