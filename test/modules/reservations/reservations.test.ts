import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { agentActor } from '../../../src/lib/actor.js';
import type { DomainError } from '../../../src/lib/errors.js';
import { createTestApp, type TestApp } from '../../helpers/app.js';
import { at, book, customer, futureMonday, NO_LOCALE } from '../../helpers/booking.js';
import { createResource, createType } from '../../helpers/catalogue.js';
import { memberWithRole, type OrgOwner, ownerWithOrganisation } from '../../helpers/organisations.js';

describe('reservations', () => {
  let t: TestApp;
  let owner: OrgOwner;
  before(async () => {
    t = await createTestApp();
    owner = await ownerWithOrganisation(t.app, { timezone: 'UTC' });
  });
  after(() => t.close());

  test('price and currency come only from the type; paymentRequired needs a chargeable account', async () => {
    const paid = await createType(t.app, owner, {
      pricingEnabled: true,
      paymentRequired: true,
      priceAmount: 4200,
      priceCurrency: 'eur',
    });
    const priced = await createType(t.app, owner, {
      pricingEnabled: true,
      priceAmount: 4200,
      priceCurrency: 'eur',
    });
    const free = await createType(t.app, owner);
    const paidRes = await createResource(t.app, owner, { name: 'Paid', resourceTypeId: paid.id });
    const pricedRes = await createResource(t.app, owner, { name: 'Priced', resourceTypeId: priced.id });
    const freeRes = await createResource(t.app, owner, { name: 'Free', resourceTypeId: free.id });
    const mon = futureMonday();
    // This organisation has no payment account: a paid type books nothing (payment.test.ts pays).
    const unpaid = await book(t.app, owner, {
      resourceId: paidRes.id,
      startTime: at(mon, 9),
      endTime: at(mon, 10),
    });
    assert.equal(unpaid.statusCode, 409);
    assert.equal(unpaid.json().error.code, 'PAYMENT_NOT_READY');
    const a = await book(t.app, owner, {
      resourceId: pricedRes.id,
      startTime: at(mon, 9),
      endTime: at(mon, 10),
    });
    assert.equal(a.statusCode, 201);
    assert.equal(a.json().status, 'confirmed');
    assert.equal(a.json().priceAmount, 4200);
    assert.equal(a.json().priceCurrency, 'eur');
    const b = await book(t.app, owner, {
      resourceId: freeRes.id,
      startTime: at(mon, 9),
      endTime: at(mon, 10),
    });
    assert.equal(b.json().status, 'confirmed');
    assert.equal(b.json().priceAmount, null);
    for (const extra of [
      { priceAmount: 1 },
      { priceCurrency: 'usd' },
      { price: 1 },
      { status: 'confirmed' },
    ]) {
      const r = await book(t.app, owner, {
        resourceId: paidRes.id,
        startTime: at(mon, 11),
        endTime: at(mon, 12),
        ...extra,
      });
      assert.equal(r.statusCode, 400, JSON.stringify(extra));
      assert.match(r.json().error.message, /not accepted/);
    }
  });

  test('customer fields: the type’s customerInfoFields are required, others refused; phone stays optional', async () => {
    const type = await createType(t.app, owner, { customerInfoFields: ['company', 'phone'] });
    const res = await createResource(t.app, owner, { name: 'Fields', resourceTypeId: type.id });
    const mon = futureMonday();
    const slot = (h: number) => ({ resourceId: res.id, startTime: at(mon, h), endTime: at(mon, h + 1) });
    // The field nobody filled in is named, so a form can mark it.
    for (const company of [undefined, '', '   ']) {
      const missing = await book(t.app, owner, { ...slot(13), customer: { ...customer, company } });
      assert.equal(missing.statusCode, 400, JSON.stringify(company));
      assert.deepEqual(missing.json().error.details, [
        { path: 'body.customer.company', message: 'is required by this resource type' },
      ]);
    }
    const unknown = await book(t.app, owner, {
      ...slot(13),
      customer: { ...customer, company: 'A', phone: '1', shoe: '44' },
    });
    assert.equal(unknown.statusCode, 400);
    assert.match(unknown.json().error.message, /shoe/);
    const ok = await book(t.app, owner, {
      ...slot(13),
      customer: { ...customer, company: 'A', phone: '+1 555' },
    });
    assert.equal(ok.statusCode, 201);
    assert.deepEqual(ok.json().customer, {
      ...customer,
      company: 'A',
      phone: '+1 555',
      ...NO_LOCALE,
    });
    // The booking page offers the phone as optional, listed or not: left out or left empty, it is not given.
    for (const [h, phone] of [
      [14, undefined],
      [15, ''],
      [16, '  '],
    ] as const) {
      const r = await book(t.app, owner, { ...slot(h), customer: { ...customer, company: 'B', phone } });
      assert.equal(r.statusCode, 201, JSON.stringify(phone));
      assert.deepEqual(r.json().customer, { ...customer, company: 'B', ...NO_LOCALE });
    }
    const long = await book(t.app, owner, {
      ...slot(17),
      customer: { ...customer, company: 'C', phone: '1'.repeat(51) },
    });
    assert.equal(long.statusCode, 400);
    assert.equal(long.json().error.details[0].path, 'body.customer.phone');
  });

  test('time rules: end after start, in the future, at most 31 days, ISO with a zone', async () => {
    const type = await createType(t.app, owner, { minBookingDuration: 1 });
    const res = await createResource(t.app, owner, { name: 'Times', resourceTypeId: type.id });
    const mon = futureMonday();
    for (const [startTime, endTime] of [
      [at(mon, 10), at(mon, 9)],
      ['2020-01-01T10:00:00Z', '2020-01-01T11:00:00Z'],
      [at(mon, 0), at(mon, 24 * 32)],
      ['2030-01-01T10:00:00', '2030-01-01T11:00:00'],
    ]) {
      const r = await book(t.app, owner, { resourceId: res.id, startTime, endTime });
      assert.equal(r.statusCode, 400, `${startTime} ${endTime}`);
    }
    const none = await book(t.app, owner, { startTime: at(mon, 9), endTime: at(mon, 10) });
    assert.equal(none.statusCode, 400);
  });

  test('list filters by resource (parent matches lanes), type, status and range; pages by cursor', async () => {
    const org = await ownerWithOrganisation(t.app, { name: 'Listing', timezone: 'UTC' });
    const type = await createType(t.app, org, { minBookingDuration: 30 });
    const parent = await createResource(t.app, org, { name: 'P', resourceTypeId: type.id, capacity: 2 });
    const other = await createResource(t.app, org, { name: 'O', resourceTypeId: type.id });
    const mon = futureMonday();
    const ids: number[] = [];
    for (let h = 8; h < 13; h++) {
      const r = await book(t.app, org, {
        resourceId: parent.id,
        startTime: at(mon, h),
        endTime: at(mon, h, 30),
      });
      ids.push(r.json().id);
    }
    const o = await book(t.app, org, { resourceId: other.id, startTime: at(mon, 8), endTime: at(mon, 9) });
    const list = (q: string) =>
      t.app.inject({ method: 'GET', url: `/api/reservations?${q}`, headers: org.auth });

    const byParent = (await list(`resourceId=${parent.id}`)).json();
    assert.deepEqual(
      byParent.items.map((r: { id: number }) => r.id),
      ids,
    );
    assert.equal(byParent.nextCursor, null);

    const seen: number[] = [];
    let cursor: string | null = '';
    while (cursor !== null) {
      const page: { items: Array<{ id: number }>; nextCursor: string | null } = (
        await list(`limit=2${cursor ? `&cursor=${cursor}` : ''}`)
      ).json();
      assert.ok(page.items.length <= 2);
      seen.push(...page.items.map((r: { id: number }) => r.id));
      cursor = page.nextCursor;
    }
    assert.deepEqual(seen, [ids[0], o.json().id, ...ids.slice(1)], 'start time order, then id');

    const ranged = (await list(`from=${at(mon, 10)}&to=${at(mon, 11, 15)}`)).json();
    assert.deepEqual(
      ranged.items.map((r: { id: number }) => r.id),
      [ids[2], ids[3]],
    );

    await t.app.inject({ method: 'POST', url: `/api/reservations/${ids[0]}/cancel`, headers: org.auth });
    const cancelled = (await list('status=cancelled')).json();
    assert.deepEqual(
      cancelled.items.map((r: { id: number }) => r.id),
      [ids[0]],
    );
    assert.equal((await list(`resourceTypeId=${type.id}`)).json().items.length, 6);
    assert.equal((await list('cursor=not-a-cursor')).statusCode, 400);
    assert.equal((await list('limit=0')).statusCode, 400);
    assert.equal((await list('status=done')).statusCode, 400);
  });

  test('the buffer keeps its time on both sides of a reservation, and no more', async () => {
    const type = await createType(t.app, owner, {
      bookingMode: 'POOL',
      bufferTime: 30,
      minBookingDuration: 15,
    });
    await createResource(t.app, owner, { name: 'Buffered', resourceTypeId: type.id, capacity: 1 });
    const mon = futureMonday();
    const slot = (fromHour: number, fromMinute: number, toHour: number, toMinute: number) => ({
      resourceTypeId: type.id,
      startTime: at(mon, fromHour, fromMinute),
      endTime: at(mon, toHour, toMinute),
    });
    assert.equal((await book(t.app, owner, slot(11, 0, 12, 0))).statusCode, 201);
    // Ending within the buffer before it, or starting within the buffer after it: refused.
    for (const inside of [
      slot(10, 0, 11, 0),
      slot(10, 0, 10, 31),
      slot(12, 0, 12, 30),
      slot(12, 29, 13, 0),
    ]) {
      const refused = await book(t.app, owner, inside);
      assert.equal(refused.statusCode, 409, JSON.stringify(inside));
      assert.equal(refused.json().error.code, 'SLOT_UNAVAILABLE');
    }
    // Exactly the buffer away on either side fits.
    assert.equal((await book(t.app, owner, slot(10, 0, 10, 30))).statusCode, 201);
    assert.equal((await book(t.app, owner, slot(12, 30, 13, 0))).statusCode, 201);
  });

  test('cancel frees the time; cancelling twice is 409; a MEMBER may cancel only their own', async () => {
    const type = await createType(t.app, owner);
    const res = await createResource(t.app, owner, { name: 'Cancel', resourceTypeId: type.id });
    const member = await memberWithRole(t.app, owner, 'MEMBER');
    const mon = futureMonday();
    const slot = { resourceId: res.id, startTime: at(mon, 15), endTime: at(mon, 16) };
    const mine = await book(t.app, owner, slot);
    assert.equal((await book(t.app, owner, slot)).statusCode, 409);
    const notYours = await t.app.inject({
      method: 'POST',
      url: `/api/reservations/${mine.json().id}/cancel`,
      headers: member.auth,
    });
    assert.equal(notYours.statusCode, 403);
    const cancel = await t.app.inject({
      method: 'POST',
      url: `/api/reservations/${mine.json().id}/cancel`,
      headers: owner.auth,
    });
    assert.equal(cancel.statusCode, 200);
    assert.equal(cancel.json().status, 'cancelled');
    assert.ok(cancel.json().cancelledAt);
    const again = await t.app.inject({
      method: 'POST',
      url: `/api/reservations/${mine.json().id}/cancel`,
      headers: owner.auth,
    });
    assert.equal(again.statusCode, 409);
    const memberBooking = await book(t.app, member, slot);
    assert.equal(memberBooking.statusCode, 201, 'the freed time can be booked again');
    const own = await t.app.inject({
      method: 'POST',
      url: `/api/reservations/${memberBooking.json().id}/cancel`,
      headers: member.auth,
    });
    assert.equal(own.statusCode, 200);
  });

  test('an agent books as its owner; it cancels what its owner may cancel', async () => {
    const { reservations } = t.app.services;
    const type = await createType(t.app, owner);
    const res = await createResource(t.app, owner, { name: 'Agent booked', resourceTypeId: type.id });
    const member = await memberWithRole(t.app, owner, 'MEMBER');
    const manager = await memberWithRole(t.app, owner, 'MANAGER');
    const agentOf = (userId: number) =>
      agentActor(userId, { id: 1, actions: new Set(['reservations.create']), scope: { calendarIds: [] } });
    const mon = futureMonday();
    const slot = (hour: number) => ({
      resourceId: res.id,
      startTime: at(mon, hour),
      endTime: at(mon, hour + 1),
      customer,
    });

    const booked = await reservations.create(agentOf(member.id), slot(6), 'mcp');
    assert.equal(booked.createdByUserId, member.id);
    assert.equal(booked.source, 'mcp');
    assert.equal((await reservations.cancel(agentOf(member.id), booked.id)).status, 'cancelled');

    const owners = await reservations.create(agentOf(owner.id), slot(7));
    await assert.rejects(
      reservations.cancel(agentOf(member.id), owners.id),
      (error: DomainError) => error.code === 'FORBIDDEN',
    );
    assert.equal((await reservations.cancel(agentOf(manager.id), owners.id)).status, 'cancelled');
  });

  test('reservations of another organisation answer 404', async () => {
    const type = await createType(t.app, owner);
    const res = await createResource(t.app, owner, { name: 'Iso', resourceTypeId: type.id });
    const mon = futureMonday();
    const r = await book(t.app, owner, { resourceId: res.id, startTime: at(mon, 18), endTime: at(mon, 19) });
    const other = await ownerWithOrganisation(t.app, { name: 'Elsewhere' });
    for (const [method, url] of [
      ['GET', `/api/reservations/${r.json().id}`],
      ['POST', `/api/reservations/${r.json().id}/cancel`],
    ] as const) {
      const x = await t.app.inject({ method, url, headers: other.auth });
      assert.equal(x.statusCode, 404);
    }
    assert.deepEqual(
      (await t.app.inject({ method: 'GET', url: '/api/reservations', headers: other.auth })).json().items,
      [],
    );
  });

  test('no double booking: 50 simultaneous requests for one slot on 3 lanes give exactly 3 reservations', async () => {
    const type = await createType(t.app, owner, { bookingMode: 'BOTH' });
    const parent = await createResource(t.app, owner, { name: 'Rush', resourceTypeId: type.id, capacity: 3 });
    const mon = futureMonday();
    const slot = { startTime: at(mon, 20), endTime: at(mon, 21) };
    // Half ask for the resource, half for the pool: both paths compete for the same lanes.
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        book(
          t.app,
          owner,
          i % 2 === 0 ? { resourceId: parent.id, ...slot } : { resourceTypeId: type.id, ...slot },
        ),
      ),
    );
    const codes = results.map((r) => r.statusCode);
    assert.equal(codes.filter((c) => c === 201).length, 3, JSON.stringify(codes));
    assert.equal(codes.filter((c) => c === 409).length, 47);
    const lanes = results.filter((r) => r.statusCode === 201).map((r) => r.json().resourceId);
    assert.equal(new Set(lanes).size, 3, 'one reservation per lane');
    const stored = await t.db.kysely
      .selectFrom('reservations')
      .select('resourceId')
      .where('resourceTypeId', '=', type.id)
      .where('status', '!=', 'cancelled')
      .execute();
    assert.equal(stored.length, 3);
  });
});
