import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestApp, type TestApp } from '../../helpers/app.js';
import { at, customer, futureMonday } from '../../helpers/booking.js';
import { createResource, createType } from '../../helpers/catalogue.js';
import { as, expectError, expectStatus } from '../../helpers/http.js';
import { type OrgOwner, ownerWithOrganisation } from '../../helpers/organisations.js';

/**
 * What one customer can keep (DECISIONS.md "What the review found, decided"): at most 3
 * live public holds per customer email in an organisation (409 CONFLICT naming the limit),
 * and one waiting waitlist entry per customer email and time.
 */
describe('public holds and waitlist entries per customer', () => {
  let t: TestApp;
  let owner: OrgOwner;
  let room: { id: number };
  const slug = `limits-${process.pid}`;
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
  after(() => t.close());

  const post = (url: string, payload: Record<string, unknown>) =>
    t.app.inject({ method: 'POST', url, payload });
  const hold = (hour: number, who = customer) =>
    post(`/api/public/organisations/${slug}/holds`, { customer: who, ...slot(hour) });

  test('a fourth live hold of one email is refused; a released one makes room; other emails are not held back', async () => {
    const held = [];
    for (const hour of [8, 9, 10]) held.push(expectStatus(await hold(hour), 201));
    const refused = expectError(await hold(11), 409, 'CONFLICT');
    assert.match(refused.message, /3 live holds per customer email/);
    const dryRun = expectStatus(
      await post(`/api/public/organisations/${slug}/holds?dryRun=true`, { customer, ...slot(11) }),
      200,
    );
    assert.deepEqual([dryRun.wouldSucceed, dryRun.error.code], [false, 'CONFLICT']);
    expectStatus(await hold(11, { name: 'Other', email: 'other@example.test' }), 201);
    expectStatus(await post(`/api/public/reservations/${held[0].manageToken}/cancel`, {}), 200);
    expectStatus(await hold(12), 201);
  });

  test('live public holds per IP stop at PUBLIC_HOLD_IP_MAX; another address is not held back', async () => {
    const limited = await createTestApp({ PUBLIC_RATE_LIMIT_MAX: '1000', PUBLIC_HOLD_IP_MAX: '2' });
    try {
      const boss = await ownerWithOrganisation(limited.app, { slug: `ip-${slug}`, timezone: 'UTC' });
      const type = await createType(limited.app, boss);
      const resource = await createResource(limited.app, boss, { name: 'Room', resourceTypeId: type.id });
      const holdFrom = (ip: string, hour: number, email: string) =>
        limited.app.inject({
          method: 'POST',
          url: `/api/public/organisations/ip-${slug}/holds`,
          remoteAddress: ip,
          payload: {
            customer: { name: 'Someone', email },
            resourceId: resource.id,
            startTime: at(mon, hour),
            endTime: at(mon, hour + 1),
          },
        });
      expectStatus(await holdFrom('198.51.100.7', 8, 'a@example.test'), 201);
      expectStatus(await holdFrom('198.51.100.7', 9, 'b@example.test'), 201);
      const refused = expectError(await holdFrom('198.51.100.7', 10, 'c@example.test'), 409, 'CONFLICT');
      assert.match(refused.message, /2 live holds per IP address/);
      expectStatus(await holdFrom('198.51.100.8', 10, 'c@example.test'), 201);
    } finally {
      await limited.close();
    }
  });

  test('one waiting entry per customer email and time', async () => {
    expectStatus(await as(t.app, owner).post('/api/reservations', { customer, ...slot(15) }), 201);
    const join = (who: { name: string; email: string }) =>
      post(`/api/public/organisations/${slug}/waitlist`, { customer: who, ...slot(15) });
    const pat = { name: 'Pat', email: 'pat@example.test' };
    const first = expectStatus(await join(pat), 201);
    const again = expectError(await join({ ...pat, email: 'PAT@example.test' }), 409, 'CONFLICT');
    assert.match(again.message, /already waiting/);
    expectStatus(await join({ name: 'Sam', email: 'sam@example.test' }), 201);
    // Staff cannot add a second one for the customer either.
    expectError(
      await as(t.app, owner).post('/api/reservations/waitlist', { customer: pat, ...slot(15) }),
      409,
      'CONFLICT',
    );
    expectStatus(
      await t.app.inject({ method: 'DELETE', url: `/api/public/waitlist/${first.manageToken}` }),
      200,
    );
    expectStatus(await join(pat), 201);
  });
});
