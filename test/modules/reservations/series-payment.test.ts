import assert from 'node:assert/strict';
import { after, afterEach, before, describe, test } from 'node:test';
import { type PaymentEmulator, startPaymentEmulator } from '../../../tools/emulators/payment/server.js';
import { createTestApp, type TestApp } from '../../helpers/app.js';
import { at, book, customer, futureMonday, hourSlot } from '../../helpers/booking.js';
import { createResource, createType } from '../../helpers/catalogue.js';
import { as, expectError, expectStatus } from '../../helpers/http.js';
import { type OrgOwner, ownerWithOrganisation } from '../../helpers/organisations.js';

const SECRET = 'sk_test_series_payments_0123';
const WEBHOOK_SECRET = 'whsec_series_payments_0123456789';

type Row = {
  id: number;
  status: string;
  startTime: string;
  payment: { status: string; amount: number; checkoutUrl: string } | null;
};

/**
 * A paid series (DECISIONS.md "Recurring reservations and the waitlist"): one checkout for
 * its total, through the payment emulator over real HTTP; paying confirms every occurrence,
 * an expired checkout expires them all, cancelling it whole before it starts refunds it.
 */
describe('a paid series', () => {
  let emulator: PaymentEmulator;
  let t: TestApp;
  let owner: OrgOwner;
  let room: { id: number };
  before(async () => {
    emulator = await startPaymentEmulator({ secretKey: SECRET, webhookSecret: WEBHOOK_SECRET });
    t = await createTestApp({
      PAYMENT_API_BASE: emulator.url,
      PAYMENT_SECRET_KEY: SECRET,
      PAYMENT_WEBHOOK_SECRET: WEBHOOK_SECRET,
      PAYMENT_TIMEOUT_MS: '5000',
    });
    const address = await t.app.listen({ port: 0, host: '127.0.0.1' });
    emulator.setWebhookUrl(`${address}/api/payments/webhooks`);
    owner = await ownerWithOrganisation(t.app, { timezone: 'UTC' });
    const base = `/api/organisations/${owner.organisationId}/payment`;
    const link = expectStatus(await as(t.app, owner).post(`${base}/onboarding-link`), 200);
    assert.equal((await fetch(link.url, { redirect: 'manual' })).status, 302);
    expectStatus(await as(t.app, owner).get(`${base}/status`), 200);
    const type = await createType(t.app, owner, {
      recurringEnabled: true,
      pricingEnabled: true,
      paymentRequired: true,
      priceAmount: 2500,
      priceCurrency: 'eur',
    });
    room = await createResource(t.app, owner, { name: 'Paid weekly room', resourceTypeId: type.id });
  });
  after(async () => {
    await t.close();
    await emulator.close();
  });
  afterEach(async () => {
    await emulator.releaseWebhooks();
    await emulator.settled();
  });

  // A weekly series of `count` from `hour` o'clock of the coming Monday.
  const bookSeries = (hour: number, count = 3) =>
    book(t.app, owner, {
      resourceId: room.id,
      ...hourSlot(futureMonday(), hour),
      recurrence: [`RRULE:FREQ=WEEKLY;COUNT=${count}`],
    });
  const series = async (id: number) =>
    expectStatus(await as(t.app, owner).get(`/api/reservations/series/${id}`), 200).reservations as Row[];
  const visit = (url: string, query = '') => fetch(`${url}${query}`, { redirect: 'manual' });

  test('one checkout for the total; paying confirms every occurrence', async () => {
    const created = expectStatus(await bookSeries(9), 201);
    const rows = created.reservations as Row[];
    assert.equal(rows.length, 3);
    const urls = new Set(rows.map((r) => r.payment?.checkoutUrl));
    assert.equal(urls.size, 1, 'one checkout');
    for (const r of rows) {
      assert.equal(r.status, 'pending_payment');
      assert.equal(r.payment?.status, 'requires_payment');
      assert.equal(r.payment?.amount, 7500, 'the total of the series');
    }
    const checkouts = emulator.requests().filter((r) => r.path === '/v1/checkout/sessions');
    assert.equal(checkouts.length, 1);
    assert.equal((await visit(rows[0]!.payment!.checkoutUrl)).status, 302);
    await emulator.settled();
    for (const r of await series(created.seriesId)) {
      assert.equal(r.status, 'confirmed');
      assert.equal(r.payment?.status, 'paid');
    }

    // Cancelled whole before it starts: the one payment is refunded, on every occurrence.
    const cancelled = expectStatus(
      await as(t.app, owner).post(`/api/reservations/series/${created.seriesId}/cancel`),
      200,
    );
    for (const r of cancelled.reservations as Row[]) {
      assert.equal(r.status, 'cancelled');
      assert.equal(r.payment?.status, 'refunded');
    }
    assert.equal(emulator.requests().filter((r) => r.path === '/v1/refunds').length, 1, 'one refund');
  });

  test('an expired checkout expires the whole series and frees its times', async () => {
    const created = expectStatus(await bookSeries(12), 201);
    const rows = created.reservations as Row[];
    expectError(
      await as(t.app, owner).post('/api/reservations', {
        resourceId: room.id,
        customer,
        startTime: rows[2]!.startTime,
        endTime: at(futureMonday(), 13 + 14 * 24),
      }),
      409,
      'SLOT_UNAVAILABLE',
    );
    await visit(rows[0]!.payment!.checkoutUrl, '?expire=1');
    await emulator.settled();
    for (const r of await series(created.seriesId)) {
      assert.equal(r.status, 'expired');
      assert.equal(r.payment?.status, 'expired');
    }
    expectStatus(await bookSeries(12), 201);
  });
});
