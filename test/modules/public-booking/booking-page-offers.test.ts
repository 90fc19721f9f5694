// What the booking page offers and what the server then accepts: a field the page marks
// optional is optional, and a paid type the organisation cannot take payment for is not offered.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type PaymentEmulator, startPaymentEmulator } from '../../../tools/emulators/payment/server.js';
import { createTestApp, type TestApp } from '../../helpers/app.js';
import { at, customer, futureMonday, NO_LOCALE } from '../../helpers/booking.js';
import { createResource, createType } from '../../helpers/catalogue.js';
import { type OrgOwner, ownerWithOrganisation } from '../../helpers/organisations.js';

const SECRET = 'sk_test_booking_page_offers_0123';
const WEBHOOK_SECRET = 'whsec_booking_page_offers_0123456789';

describe('the booking page: what it offers is what the server takes', () => {
  let t: TestApp;
  let owner: OrgOwner;
  let emulator: PaymentEmulator;
  const slug = `offers-${process.pid}`;
  before(async () => {
    emulator = await startPaymentEmulator({ secretKey: SECRET, webhookSecret: WEBHOOK_SECRET });
    t = await createTestApp({
      PAYMENT_API_BASE: emulator.url,
      PAYMENT_SECRET_KEY: SECRET,
      PAYMENT_WEBHOOK_SECRET: WEBHOOK_SECRET,
    });
    owner = await ownerWithOrganisation(t.app, { name: 'Offers', slug, timezone: 'UTC' });
  });
  after(async () => {
    await t.close();
    await emulator.close();
  });

  const post = (path: string, payload: Record<string, unknown>) =>
    t.app.inject({ method: 'POST', url: `/api/public/organisations/${slug}/${path}`, payload });

  test('a type listing phone: the page marks it optional, and a hold or booking without it is taken', async () => {
    const type = await createType(t.app, owner, {
      name: 'Consult',
      customerInfoFields: ['phone', 'company'],
    });
    const room = await createResource(t.app, owner, { name: 'Desk A', resourceTypeId: type.id });
    const mon = futureMonday();
    // What the page sends for a phone left empty: nothing, or (another client) an empty string.
    const held = await post('holds', {
      resourceId: room.id,
      startTime: at(mon, 9),
      endTime: at(mon, 10),
      customer: { ...customer, company: 'ACME' },
    });
    assert.equal(held.statusCode, 201, held.body);
    assert.deepEqual(held.json().customer, { ...customer, company: 'ACME', ...NO_LOCALE });
    const booked = await post('reservations', {
      resourceId: room.id,
      startTime: at(mon, 10),
      endTime: at(mon, 11),
      customer: { ...customer, phone: '', company: 'ACME' },
    });
    assert.equal(booked.statusCode, 201, booked.body);
    assert.deepEqual(booked.json().customer, { ...customer, company: 'ACME', ...NO_LOCALE });
    // What the page marks required stays required, and the answer names the field to highlight.
    const missing = await post('holds', {
      resourceId: room.id,
      startTime: at(mon, 11),
      endTime: at(mon, 12),
      customer: { ...customer, phone: '+1 555', company: '' },
    });
    assert.equal(missing.statusCode, 400);
    assert.deepEqual(
      missing.json().error.details.map((d: { path: string }) => d.path),
      ['body.customer.company'],
    );
  });

  test('a paid type the organisation cannot take payment for: not offered, no time held, the console says why', async () => {
    const paid = await createType(t.app, owner, {
      name: 'Paid massage',
      pricingEnabled: true,
      paymentRequired: true,
      priceAmount: 4000,
      priceCurrency: 'eur',
    });
    const free = await createType(t.app, owner, { name: 'Free chat' });
    const off = await createType(t.app, owner, { name: 'Retired' });
    const retired = await t.app.inject({
      method: 'PATCH',
      url: `/api/resource-types/${off.id}`,
      headers: owner.auth,
      payload: { isActive: false },
    });
    assert.deepEqual([retired.json().bookable, retired.json().notBookableReason], [false, 'INACTIVE']);
    const table = await createResource(t.app, owner, { name: 'Massage table', resourceTypeId: paid.id });
    await createResource(t.app, owner, { name: 'Chat corner', resourceTypeId: free.id });
    const page = async () => {
      const r = await t.app.inject({ method: 'GET', url: `/api/public/organisations/${slug}` });
      assert.equal(r.statusCode, 200);
      const body = r.json() as { resourceTypes: Array<{ name: string }>; resources: Array<{ name: string }> };
      return { types: body.resourceTypes.map((x) => x.name), resources: body.resources.map((x) => x.name) };
    };
    const before = await page();
    assert.ok(before.types.includes('Free chat'));
    assert.ok(!before.types.includes('Paid massage'), 'the page does not offer it');
    assert.ok(!before.resources.includes('Massage table'));

    // A hold or a booking asked for anyway is refused before any time is held.
    const mon = futureMonday();
    const slot = { resourceId: table.id, startTime: at(mon, 14), endTime: at(mon, 15), customer };
    for (const path of ['holds', 'reservations']) {
      const r = await post(path, slot);
      assert.equal(r.statusCode, 409, path);
      assert.equal(r.json().error.code, 'PAYMENT_NOT_READY', path);
    }
    const dry = await post('holds?dryRun=true', slot);
    assert.equal(dry.statusCode, 200);
    assert.equal(dry.json().error.code, 'PAYMENT_NOT_READY');
    const held = await t.db.kysely
      .selectFrom('reservations')
      .select('id')
      .where('resourceId', '=', table.id)
      .execute();
    assert.deepEqual(held, [], 'nothing held');

    // The console tells why.
    const types = await t.app.inject({ method: 'GET', url: '/api/resource-types', headers: owner.auth });
    const reasons = Object.fromEntries(
      (types.json() as Array<{ name: string; bookable: boolean; notBookableReason: string | null }>).map(
        (x) => [x.name, [x.bookable, x.notBookableReason]],
      ),
    );
    assert.deepEqual(reasons['Paid massage'], [false, 'PAYMENT_NOT_READY']);
    assert.deepEqual(reasons['Free chat'], [true, null]);
    assert.deepEqual(reasons.Retired, [false, 'INACTIVE']);
    const one = await t.app.inject({
      method: 'GET',
      url: `/api/resource-types/${paid.id}`,
      headers: owner.auth,
    });
    assert.equal(one.json().notBookableReason, 'PAYMENT_NOT_READY');

    // Once the organisation's account can take charges, the page offers it and a hold is taken.
    const base = `/api/organisations/${owner.organisationId}/payment`;
    const link = await t.app.inject({ method: 'POST', url: `${base}/onboarding-link`, headers: owner.auth });
    assert.equal((await fetch(link.json().url, { redirect: 'manual' })).status, 302);
    const status = await t.app.inject({ method: 'GET', url: `${base}/status`, headers: owner.auth });
    assert.equal(status.json().chargesEnabled, true);
    const after = await page();
    assert.ok(after.types.includes('Paid massage'));
    assert.ok(after.resources.includes('Massage table'));
    assert.equal((await post('holds', slot)).statusCode, 201);
    const now = await t.app.inject({
      method: 'GET',
      url: `/api/resource-types/${paid.id}`,
      headers: owner.auth,
    });
    assert.deepEqual([now.json().bookable, now.json().notBookableReason], [true, null]);
  });
});
