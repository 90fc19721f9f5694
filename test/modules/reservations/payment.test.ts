import assert from 'node:assert/strict';
import { after, afterEach, before, describe, mock, test } from 'node:test';
import { type PaymentEmulator, startPaymentEmulator } from '../../../tools/emulators/payment/server.js';
import { paymentSignatureHeader } from '../../../tools/emulators/payment/webhooks.js';
import { createTestApp, type SignedInUser, type TestApp } from '../../helpers/app.js';
import { at, book, customer, futureMonday } from '../../helpers/booking.js';
import { createResource, createType } from '../../helpers/catalogue.js';
import { as, expectError, expectStatus } from '../../helpers/http.js';
import { type OrgOwner, ownerWithOrganisation, withApiKey } from '../../helpers/organisations.js';
import { feedReader } from '../outbox/helpers.js';

const SECRET = 'sk_test_reservation_payments_0123';
const WEBHOOK_SECRET = 'whsec_reservation_payments_0123456789';
const WEBHOOKS = '/api/payments/webhooks';

/**
 * Payment to confirmation (DECISIONS.md "Reservations: statuses, holds, payment,
 * reschedule, rules", Payment and Emulator): through the payment emulator over real HTTP,
 * which pays, declines and expires checkouts and signs its webhooks to this app, listening
 * on loopback. The clock is Date under mock.timers where expiry matters; nothing sleeps.
 */
describe('payment to confirmation', () => {
  let emulator: PaymentEmulator;
  let t: TestApp;
  let owner: OrgOwner;
  let accountId: string;
  /** The organisation's event feed: each payment path writes exactly its events (issue 24). */
  let feed: ReturnType<typeof feedReader>;
  /** What `change` answers, and the events it wrote as [type, reservation id] (nothing else writes meanwhile). */
  async function withEvents<T>(
    change: () => Promise<T>,
  ): Promise<{ result: T; events: Array<[string, number]> }> {
    let result: T | undefined;
    const { events } = await feed.around(async () => {
      result = await change();
    });
    return { result: result as T, events: events.map((event) => [event.type, event.data.id]) };
  }
  before(async () => {
    emulator = await startPaymentEmulator({ secretKey: SECRET, webhookSecret: WEBHOOK_SECRET });
    t = await createTestApp({
      PAYMENT_API_BASE: emulator.url,
      PAYMENT_SECRET_KEY: SECRET,
      PAYMENT_WEBHOOK_SECRET: WEBHOOK_SECRET,
      PAYMENT_TIMEOUT_MS: '5000',
    });
    const address = await t.app.listen({ port: 0, host: '127.0.0.1' });
    emulator.setWebhookUrl(`${address}${WEBHOOKS}`);
    owner = await withApiKey(t.app, await ownerWithOrganisation(t.app, { timezone: 'UTC' }));
    accountId = await connectPayments(owner);
    feed = feedReader(t.app, owner, `/api/organisations/${owner.organisationId}/events`);
  });
  after(async () => {
    await t.close();
    await emulator.close();
  });
  afterEach(async () => {
    mock.timers.reset();
    emulator.setBehaviour('normal');
    await emulator.releaseWebhooks();
    await emulator.settled();
  });

  /** A login JWT lives 15 minutes; a user API key carries a user across the fake clock. */

  /** Onboards the organisation's account at the provider (a real visit of the link) and syncs it. */
  async function connectPayments(user: OrgOwner): Promise<string> {
    const base = `/api/organisations/${user.organisationId}/payment`;
    const link = expectStatus(await as(t.app, user).post(`${base}/onboarding-link`), 200);
    assert.equal((await fetch(link.url, { redirect: 'manual' })).status, 302);
    const status = expectStatus(await as(t.app, user).get(`${base}/status`), 200);
    assert.equal(status.providerConnectStatus, 'active');
    return link.providerAccountId;
  }

  /** A resource of its own paid type (25.00 EUR) and a slot on it next week. */
  async function paidRoom(user: OrgOwner = owner, typeBody: Record<string, unknown> = {}) {
    const type = await createType(t.app, user, {
      pricingEnabled: true,
      paymentRequired: true,
      priceAmount: 2500,
      priceCurrency: 'eur',
      ...typeBody,
    });
    const resource = await createResource(t.app, user, { name: 'Paid room', resourceTypeId: type.id });
    const mon = futureMonday();
    return { type, resource, slot: { resourceId: resource.id, startTime: at(mon, 9), endTime: at(mon, 10) } };
  }

  const hold = (body: Record<string, unknown>, user: SignedInUser = owner) =>
    as(t.app, user).post('/api/reservations/holds', { customer, ...body });
  const get = async (id: number) => expectStatus(await as(t.app, owner).get(`/api/reservations/${id}`), 200);
  const countRows = async () =>
    Number(
      (
        await t.db.kysely
          .selectFrom('reservations')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );
  const checkoutIdOf = (url: string) => url.slice(url.lastIndexOf('/') + 1);
  /** The checkout as the provider holds it. */
  async function providerCheckout(url: string) {
    const response = await fetch(`${emulator.url}/v1/checkout/sessions/${checkoutIdOf(url)}`, {
      headers: { authorization: `Bearer ${SECRET}` },
    });
    assert.equal(response.status, 200);
    return (await response.json()) as Record<string, unknown> & { metadata: Record<string, string> };
  }
  /** The customer visits the hosted page (a real GET); answers where it sends them. */
  async function visit(url: string, query = '') {
    const response = await fetch(`${url}${query}`, { redirect: 'manual' });
    return { status: response.status, location: response.headers.get('location') };
  }
  /** The last event the provider sent, with its deliveries. */
  const lastEvent = (type: string) =>
    emulator
      .events()
      .filter((e) => e.type === type)
      .at(-1)!;
  /** Posts a body to the webhook route as the provider would, signed with `secret` at `timestamp`. */
  const deliver = (
    body: string,
    options: { secret?: string; timestamp?: number; header?: string | null } = {},
  ) => {
    const signature =
      options.header === undefined
        ? paymentSignatureHeader(options.secret ?? WEBHOOK_SECRET, body, options.timestamp)
        : options.header;
    return t.app.inject({
      method: 'POST',
      url: WEBHOOKS,
      headers: {
        'content-type': 'application/json',
        ...(signature === null ? {} : { 'payment-signature': signature }),
      },
      payload: body,
    });
  };
  /** An event body in the provider's format about `checkout` (as the provider answers it). */
  const eventBody = (type: string, checkout: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
    JSON.stringify({
      id: `evt_test_${Math.random().toString(36).slice(2)}`,
      object: 'event',
      type,
      created: Math.floor(Date.now() / 1000),
      account: checkout.account,
      data: { object: checkout },
      ...extra,
    });

  test('a paid booking waits in pending_payment on a checkout at the connected account; paying confirms it', async () => {
    const start = Date.now();
    mock.timers.enable({ apis: ['Date'], now: start });
    const { slot } = await paidRoom();
    const { result: booked, events: creating } = await withEvents(async () =>
      expectStatus(await book(t.app, owner, slot), 201),
    );
    assert.deepEqual(creating, [['reservation.created', booked.id]], 'created once its checkout exists');
    assert.equal(booked.status, 'pending_payment');
    assert.equal(
      booked.expiresAt,
      new Date(start + 30 * 60_000).toISOString(),
      'the default window: 30 minutes',
    );
    assert.equal(booked.priceAmount, 2500);
    const { checkoutUrl, ...payment } = booked.payment;
    assert.deepEqual(payment, {
      status: 'requires_payment',
      amount: 2500,
      currency: 'eur',
      // The provider keeps whole seconds: the checkout closes no later than the booking.
      expiresAt: new Date(Math.floor((start + 30 * 60_000) / 1000) * 1000).toISOString(),
    });
    assert.ok(checkoutUrl.startsWith(`${emulator.url}/checkout/cs_`), checkoutUrl);

    // The checkout: on the organisation's account, integer minor units, keyed by the reservation.
    const atProvider = await providerCheckout(checkoutUrl);
    assert.equal(atProvider.account, accountId);
    assert.equal(atProvider.amount_total, 2500);
    assert.ok(Number.isInteger(atProvider.amount_total));
    assert.equal(atProvider.currency, 'eur');
    assert.equal(atProvider.metadata.reservation_id, String(booked.id));
    const created = emulator.requests().filter((r) => r.path === '/v1/checkout/sessions');
    assert.match(created.at(-1)?.idempotencyKey ?? '', new RegExp(`^reservation-${booked.id}-`));

    // Waiting for payment keeps the time.
    expectError(
      await book(t.app, owner, { ...slot, customer: { name: 'B', email: 'b@example.test' } }),
      409,
      'SLOT_UNAVAILABLE',
    );

    const { result: paid, events: paying } = await withEvents(() => visit(checkoutUrl));
    assert.deepEqual(paying, [
      ['payment.succeeded', booked.id],
      ['reservation.confirmed', booked.id],
    ]);
    assert.equal(paid.status, 302);
    assert.equal(paid.location, `http://frontend.test/payment/complete?reservation=${booked.id}`);
    assert.equal(lastEvent('checkout.completed').deliveries.at(-1)?.status, 200);
    const confirmed = await get(booked.id);
    assert.equal(confirmed.status, 'confirmed');
    assert.equal(confirmed.expiresAt, null);
    assert.equal(confirmed.payment.status, 'paid');
    assert.equal(confirmed.payment.amount, 2500);
    // Past the window a paid booking keeps its time.
    mock.timers.setTime(start + 31 * 60_000);
    assert.equal((await get(booked.id)).status, 'confirmed');
    expectError(
      await book(t.app, owner, { ...slot, customer: { name: 'B', email: 'b@example.test' } }),
      409,
      'SLOT_UNAVAILABLE',
    );
  });

  test('confirming a paid hold opens its checkout for the type’s payment window; paying confirms it', async () => {
    const start = Date.now();
    mock.timers.enable({ apis: ['Date'], now: start });
    const { type, slot } = await paidRoom(owner, { paymentWindowMinutes: 10 });
    assert.equal(type.paymentWindowMinutes, 10);
    const held = expectStatus(await hold({ ...slot, holdSeconds: 60 }), 201);
    assert.equal(held.status, 'held');
    assert.equal(held.payment, null);
    mock.timers.setTime(start + 30_000);
    const { result: waiting, events: confirming } = await withEvents(async () =>
      expectStatus(await as(t.app, owner).post(`/api/reservations/${held.id}/confirm`), 200),
    );
    assert.deepEqual(confirming, [['reservation.held', held.id]], 'held again: now waiting for payment');
    assert.equal(waiting.status, 'pending_payment');
    assert.equal(waiting.expiresAt, new Date(start + 30_000 + 10 * 60_000).toISOString());
    assert.equal(waiting.payment.status, 'requires_payment');
    assert.equal(waiting.payment.amount, 2500);
    // Confirming again is no longer a hold's confirm.
    expectError(
      await as(t.app, owner).post(`/api/reservations/${held.id}/confirm`),
      409,
      'INVALID_TRANSITION',
    );
    // The hold's own 60 seconds no longer end it: the payment window does.
    mock.timers.setTime(start + 120_000);
    assert.equal((await get(held.id)).status, 'pending_payment');
    assert.deepEqual((await withEvents(() => visit(waiting.payment.checkoutUrl))).events, [
      ['payment.succeeded', held.id],
      ['reservation.confirmed', held.id],
    ]);
    const confirmed = await get(held.id);
    assert.equal(confirmed.status, 'confirmed');
    assert.equal(confirmed.payment.status, 'paid');
  });

  test('a declined payment leaves the booking pending_payment with payment.status failed; it can still be paid', async () => {
    const { slot } = await paidRoom();
    const booked = expectStatus(await book(t.app, owner, slot), 201);
    const { result: declined, events } = await withEvents(() => visit(booked.payment.checkoutUrl, '?fail=1'));
    assert.deepEqual(events, [], 'a decline changes no status');
    assert.equal(declined.status, 402);
    const failed = await get(booked.id);
    assert.equal(failed.status, 'pending_payment');
    assert.equal(failed.payment.status, 'failed');
    assert.equal(failed.expiresAt, booked.expiresAt);
    expectError(
      await book(t.app, owner, { ...slot, customer: { name: 'B', email: 'b@example.test' } }),
      409,
      'SLOT_UNAVAILABLE',
    );
    await visit(booked.payment.checkoutUrl);
    const paid = await get(booked.id);
    assert.equal(paid.status, 'confirmed');
    assert.equal(paid.payment.status, 'paid');
  });

  test('a checkout completed unpaid confirms nothing; the async outcome confirms or fails the booking', async () => {
    const { slot } = await paidRoom();
    const other = { ...slot, customer: { name: 'B', email: 'b@example.test' } };
    const booked = expectStatus(await book(t.app, owner, slot), 201);
    const { result: completed, events } = await withEvents(() =>
      visit(booked.payment.checkoutUrl, '?delayed=1'),
    );
    assert.equal(completed.location, `http://frontend.test/payment/complete?reservation=${booked.id}`);
    assert.deepEqual(events, [], 'completed unpaid: no money yet');
    assert.equal(lastEvent('checkout.completed').deliveries.at(-1)?.status, 200);
    const waiting = await get(booked.id);
    assert.equal(waiting.status, 'pending_payment');
    assert.equal(waiting.payment.status, 'requires_payment');
    expectError(await book(t.app, owner, other), 409, 'SLOT_UNAVAILABLE');
    const checkoutId = checkoutIdOf(booked.payment.checkoutUrl);
    const { events: succeeding } = await withEvents(() =>
      emulator.settleDelayedPayment(checkoutId, 'succeeded'),
    );
    assert.deepEqual(succeeding, [
      ['payment.succeeded', booked.id],
      ['reservation.confirmed', booked.id],
    ]);
    const paid = await get(booked.id);
    assert.equal(paid.status, 'confirmed');
    assert.equal(paid.payment.status, 'paid');

    const { slot: later } = await paidRoom();
    const second = expectStatus(await book(t.app, owner, later), 201);
    await visit(second.payment.checkoutUrl, '?delayed=1');
    await emulator.settleDelayedPayment(checkoutIdOf(second.payment.checkoutUrl), 'failed');
    const failed = await get(second.id);
    assert.equal(failed.status, 'pending_payment');
    assert.equal(failed.payment.status, 'failed');
  });

  test('a signed checkout.completed with payment_status unpaid leaves the booking waiting', async () => {
    const { slot } = await paidRoom();
    const booked = expectStatus(await book(t.app, owner, slot), 201);
    const atProvider = await providerCheckout(booked.payment.checkoutUrl);
    assert.equal(atProvider.payment_status, 'unpaid');
    const unpaid = { ...atProvider, status: 'complete' };
    const response = await deliver(eventBody('checkout.completed', unpaid));
    assert.equal(response.statusCode, 200);
    const waiting = await get(booked.id);
    assert.equal(waiting.status, 'pending_payment');
    assert.equal(waiting.payment.status, 'requires_payment');
  });

  test('an expired checkout expires the booking at once and frees its time', async () => {
    const { slot } = await paidRoom();
    const booked = expectStatus(await book(t.app, owner, slot), 201);
    const { result: expired, events } = await withEvents(() =>
      visit(booked.payment.checkoutUrl, '?expire=1'),
    );
    assert.deepEqual(events, [['reservation.expired', booked.id]]);
    assert.equal(expired.location, `http://frontend.test/payment/cancelled?reservation=${booked.id}`);
    const after = await get(booked.id);
    assert.equal(after.status, 'expired');
    assert.equal(after.expiresAt, null);
    assert.equal(after.payment.status, 'expired');
    const again = expectStatus(
      await book(t.app, owner, { ...slot, customer: { name: 'B', email: 'b@example.test' } }),
      201,
    );
    assert.equal(again.status, 'pending_payment');
  });

  test('a collective booking of a paid type: one checkout; paying confirms every resource, expiry frees them all', async () => {
    const { type, resource, slot } = await paidRoom();
    const host = await createType(t.app, owner, { name: 'Host' });
    const person = await createResource(t.app, owner, { name: 'Host', resourceTypeId: host.id });
    const together = {
      resourceIds: [resource.id, person.id],
      startTime: slot.startTime,
      endTime: slot.endTime,
    };
    const booked = expectStatus(await book(t.app, owner, together), 201);
    assert.equal(booked.status, 'pending_payment');
    assert.equal(booked.payment.amount, type.priceAmount);
    expectError(
      await book(t.app, owner, { ...together, resourceIds: [person.id, resource.id] }),
      409,
      'HOST_UNAVAILABLE',
    );
    const { events } = await withEvents(() => visit(booked.payment.checkoutUrl));
    assert.deepEqual(events, [
      ['payment.succeeded', booked.id],
      ['reservation.confirmed', booked.id],
    ]);
    assert.equal((await get(booked.id)).status, 'confirmed');
    // The second resource is kept by the confirmed booking too, past the payment window.
    expectError(
      await book(t.app, owner, { resourceId: person.id, startTime: slot.startTime, endTime: slot.endTime }),
      409,
      'SLOT_UNAVAILABLE',
    );

    const later = { ...together, startTime: at(futureMonday(), 11), endTime: at(futureMonday(), 12) };
    const unpaid = expectStatus(await book(t.app, owner, later), 201);
    await visit(unpaid.payment.checkoutUrl, '?expire=1');
    assert.equal((await get(unpaid.id)).status, 'expired');
    expectStatus(
      await book(t.app, owner, { resourceId: person.id, startTime: later.startTime, endTime: later.endTime }),
      201,
    );
  });

  test('an unpaid booking frees its time at the second its payment window ends, before any job', async () => {
    const start = Date.now();
    mock.timers.enable({ apis: ['Date'], now: start });
    const { slot } = await paidRoom(owner, { paymentWindowMinutes: 5 });
    const booked = expectStatus(await book(t.app, owner, slot), 201);
    assert.equal(booked.expiresAt, new Date(start + 300_000).toISOString());
    const other = { ...slot, customer: { name: 'B', email: 'b@example.test' } };
    mock.timers.setTime(start + 299_999);
    assert.equal((await get(booked.id)).status, 'pending_payment');
    expectError(await hold(other), 409, 'SLOT_UNAVAILABLE');
    mock.timers.setTime(start + 300_000);
    const lapsed = await get(booked.id);
    assert.equal(lapsed.status, 'expired');
    assert.equal(lapsed.expiresAt, null);
    assert.equal(lapsed.payment.status, 'expired');
    expectStatus(await hold(other), 201);
  });

  test('late money confirms a lapsed booking whose time is still free', async () => {
    const start = Date.now();
    mock.timers.enable({ apis: ['Date'], now: start });
    const { slot } = await paidRoom(owner, { paymentWindowMinutes: 5 });
    const booked = expectStatus(await book(t.app, owner, slot), 201);
    emulator.holdWebhooks();
    await visit(booked.payment.checkoutUrl);
    mock.timers.setTime(start + 301_000);
    assert.equal((await get(booked.id)).status, 'expired');
    const {
      result: [delivery],
      events,
    } = await withEvents(() => emulator.releaseWebhooks());
    // Its lapse was only read until now: the money's arrival records it first.
    assert.deepEqual(events, [
      ['reservation.expired', booked.id],
      ['payment.succeeded', booked.id],
      ['reservation.confirmed', booked.id],
    ]);
    assert.equal(delivery?.status, 200);
    const confirmed = await get(booked.id);
    assert.equal(confirmed.status, 'confirmed');
    assert.equal(confirmed.payment.status, 'paid');
    assert.equal(confirmed.expiresAt, null);
    expectError(
      await hold({ ...slot, customer: { name: 'B', email: 'b@example.test' } }),
      409,
      'SLOT_UNAVAILABLE',
    );
    assert.equal(emulator.requests().filter((r) => r.path === '/v1/refunds').length, 0);
  });

  test('late money for a time taken meanwhile is refunded in full; the booking stays expired', async () => {
    const start = Date.now();
    mock.timers.enable({ apis: ['Date'], now: start });
    const { slot } = await paidRoom(owner, { paymentWindowMinutes: 5 });
    const booked = expectStatus(await book(t.app, owner, slot), 201);
    emulator.holdWebhooks();
    await visit(booked.payment.checkoutUrl);
    mock.timers.setTime(start + 301_000);
    const taken = expectStatus(
      await hold({ ...slot, customer: { name: 'B', email: 'b@example.test' } }),
      201,
    );
    const {
      result: [delivery],
      events,
    } = await withEvents(async () => {
      const deliveries = await emulator.releaseWebhooks();
      await emulator.settled();
      return deliveries;
    });
    // The money never paid for the reservation: it is recorded as refunded, not as succeeded.
    assert.deepEqual(events, [['payment.refunded', booked.id]]);
    assert.equal(delivery?.status, 200);
    const refunded = await get(booked.id);
    assert.equal(refunded.status, 'expired');
    assert.equal(refunded.payment.status, 'refunded');
    assert.equal((await get(taken.id)).status, 'held', 'the time stays with whoever took it');
    const atProvider = await providerCheckout(booked.payment.checkoutUrl);
    assert.equal(atProvider.payment_status, 'refunded');
    assert.equal(atProvider.amount_refunded, 2500);
    const refunds = emulator.requests().filter((r) => r.path === '/v1/refunds');
    assert.deepEqual(
      refunds.map((r) => r.idempotencyKey),
      [`refund-${checkoutIdOf(booked.payment.checkoutUrl)}`],
    );
    // The provider's refund.succeeded that follows changes nothing.
    await emulator.settled();
    assert.equal(lastEvent('refund.succeeded').deliveries.at(-1)?.status, 200);
    assert.equal((await get(booked.id)).payment.status, 'refunded');
  });

  test("late money for a collective booking: refunded when one resource's time was taken meanwhile, else every resource confirmed", async () => {
    const start = Date.now();
    mock.timers.enable({ apis: ['Date'], now: start });
    const { resource, slot } = await paidRoom(owner, { paymentWindowMinutes: 5 });
    const host = await createType(t.app, owner, { name: 'Late host' });
    const person = await createResource(t.app, owner, { name: 'Late host', resourceTypeId: host.id });
    const together = (hour: number) => ({
      resourceIds: [resource.id, person.id],
      startTime: at(futureMonday(), hour),
      endTime: at(futureMonday(), hour + 1),
    });
    const lost = expectStatus(await book(t.app, owner, together(9)), 201);
    const kept = expectStatus(await book(t.app, owner, together(11)), 201);
    emulator.holdWebhooks();
    await visit(lost.payment.checkoutUrl);
    await visit(kept.payment.checkoutUrl);
    mock.timers.setTime(start + 301_000);
    // Only the second resource's time of the first booking is taken meanwhile.
    const taken = expectStatus(
      await hold({ resourceId: person.id, startTime: slot.startTime, endTime: slot.endTime }),
      201,
    );
    await emulator.releaseWebhooks();
    await emulator.settled();
    const refunded = await get(lost.id);
    assert.equal(refunded.status, 'expired');
    assert.equal(refunded.payment.status, 'refunded');
    assert.equal((await get(taken.id)).status, 'held', 'the time stays with whoever took it');
    assert.equal((await get(kept.id)).status, 'confirmed');
    expectError(
      await book(t.app, owner, { resourceId: person.id, ...together(11), resourceIds: undefined }),
      409,
      'SLOT_UNAVAILABLE',
    );
  });

  test('cancelling a paid reservation refunds it in full; cancelling an unpaid one closes its checkout', async () => {
    const { slot } = await paidRoom();
    const booked = expectStatus(await book(t.app, owner, slot), 201);
    await visit(booked.payment.checkoutUrl);
    assert.equal((await get(booked.id)).payment.status, 'paid');
    const { result: cancelled, events } = await withEvents(async () => {
      const answer = expectStatus(await as(t.app, owner).post(`/api/reservations/${booked.id}/cancel`), 200);
      await emulator.settled();
      return answer;
    });
    // One statement records both: the refund is made before the cancel is written.
    assert.deepEqual(events, [
      ['reservation.cancelled', booked.id],
      ['payment.refunded', booked.id],
    ]);
    assert.equal(cancelled.status, 'cancelled');
    assert.equal(cancelled.payment.status, 'refunded');
    assert.equal(cancelled.payment.amount, 2500);
    const atProvider = await providerCheckout(booked.payment.checkoutUrl);
    assert.equal(atProvider.payment_status, 'refunded');
    assert.equal(atProvider.amount_refunded, 2500);
    expectError(await as(t.app, owner).post(`/api/reservations/${booked.id}/cancel`), 409, 'CONFLICT');
    assert.equal(emulator.requests().filter((r) => r.path === '/v1/refunds').length >= 1, true);

    // Unpaid: cancelled at once, its checkout closed so it can no longer be paid.
    const unpaid = expectStatus(
      await book(t.app, owner, { ...slot, customer: { name: 'B', email: 'b@example.test' } }),
      201,
    );
    const dropped = expectStatus(await as(t.app, owner).post(`/api/reservations/${unpaid.id}/cancel`), 200);
    assert.equal(dropped.status, 'cancelled');
    assert.equal(dropped.payment.status, 'expired');
    assert.equal((await providerCheckout(unpaid.payment.checkoutUrl)).status, 'expired');
  });

  test('a refund the provider refuses changes nothing: the paid reservation stays confirmed', async () => {
    const { slot } = await paidRoom();
    const booked = expectStatus(await book(t.app, owner, slot), 201);
    await visit(booked.payment.checkoutUrl);
    emulator.setBehaviour('fail', 3);
    expectError(await as(t.app, owner).post(`/api/reservations/${booked.id}/cancel`), 502, 'PROVIDER_ERROR');
    const still = await get(booked.id);
    assert.equal(still.status, 'confirmed');
    assert.equal(still.payment.status, 'paid');
  });

  test('a provider failure after the insert frees the time and answers the provider error', async () => {
    const { slot } = await paidRoom();
    const before = await countRows();
    emulator.setBehaviour('fail', 3);
    expectError(await book(t.app, owner, slot), 502, 'PROVIDER_ERROR');
    assert.equal(await countRows(), before, 'nothing stays booked');
    const booked = expectStatus(await book(t.app, owner, slot), 201);
    assert.equal(booked.status, 'pending_payment');
  });

  test('webhooks: a replay is 200 and changes nothing; forged, stale, unknown or foreign ones are 400 and change nothing', async () => {
    const start = Date.now();
    mock.timers.enable({ apis: ['Date'], now: start });
    const { slot } = await paidRoom();
    const booked = expectStatus(await book(t.app, owner, slot), 201);
    const checkout = await providerCheckout(booked.payment.checkoutUrl);
    const expiredBody = eventBody('checkout.expired', { ...checkout, status: 'expired' });
    const untouched = async () => {
      const now = await get(booked.id);
      assert.equal(now.status, 'pending_payment');
      assert.equal(now.payment.status, 'requires_payment');
      assert.equal(now.updatedAt, booked.updatedAt);
    };

    // Forged: another secret, a tampered body, no header, a malformed one.
    const refused = async (response: Awaited<ReturnType<typeof deliver>>, message: RegExp) => {
      assert.match(expectError(response, 400, 'BAD_REQUEST').message, message);
      await untouched();
    };
    await refused(await deliver(expiredBody, { secret: 'whsec_someone_else_entirely' }), /does not match/);
    const signed = paymentSignatureHeader(WEBHOOK_SECRET, expiredBody);
    const tampered = expiredBody.replace('"checkout.expired"', '"checkout.completed"');
    assert.notEqual(tampered, expiredBody);
    await refused(await deliver(tampered, { header: signed }), /does not match/);
    await refused(await deliver(`${expiredBody} `, { header: signed }), /does not match/);
    await refused(await deliver(expiredBody, { header: null }), /missing or malformed/);
    await refused(await deliver(expiredBody, { header: 't=abc,v1=00' }), /missing or malformed/);
    // Stale or from the future beyond 5 minutes.
    const nowSeconds = Math.floor(start / 1000);
    await refused(await deliver(expiredBody, { timestamp: nowSeconds - 301 }), /5 minutes/);
    await refused(await deliver(expiredBody, { timestamp: nowSeconds + 301 }), /5 minutes/);
    // Not an event.
    await refused(await deliver('{"hello":"world"}'), /not an event/);
    // A checkout nothing waits for, or one named by another account.
    await refused(await deliver(eventBody('checkout.expired', { ...checkout, id: 'cs_unknown' })), /waiting/);
    const stranger = { ...checkout, account: 'acct_someone_else' };
    await refused(await deliver(eventBody('checkout.expired', stranger)), /waiting/);
    // Another amount than was charged.
    await refused(
      await deliver(eventBody('checkout.completed', { ...checkout, amount_total: 1 })),
      /waiting/,
    );

    // Authentic at the edge of the tolerance: applied once; the same event again changes nothing.
    const first = await deliver(expiredBody, { timestamp: nowSeconds - 300 });
    assert.deepEqual(expectStatus(first, 200), { received: true, duplicate: false });
    const expired = await get(booked.id);
    assert.equal(expired.status, 'expired');
    assert.equal(expired.payment.status, 'expired');
    mock.timers.setTime(start + 1000);
    assert.deepEqual(expectStatus(await deliver(expiredBody), 200), { received: true, duplicate: true });
    assert.equal((await get(booked.id)).updatedAt, expired.updatedAt);
    // Event types the service does not act on are acknowledged.
    assert.deepEqual(expectStatus(await deliver(eventBody('customer.created', checkout)), 200), {
      received: true,
      duplicate: false,
    });
  });

  test('a redelivered completed event is 200 and changes nothing', async () => {
    const { slot } = await paidRoom();
    const booked = expectStatus(await book(t.app, owner, slot), 201);
    await visit(booked.payment.checkoutUrl);
    const paid = await get(booked.id);
    assert.equal(paid.status, 'confirmed');
    const event = lastEvent('checkout.completed');
    const redelivery = await emulator.resendEvent(event.id);
    assert.equal(redelivery?.status, 200);
    assert.deepEqual(await get(booked.id), paid);
  });

  test('PAYMENT_NOT_READY: an organisation whose account cannot take charges books nothing', async () => {
    const other = await withApiKey(t.app, await ownerWithOrganisation(t.app, { timezone: 'UTC' }));
    const { slot } = await paidRoom(other);
    const before = await countRows();
    const checkouts = emulator.requests().filter((r) => r.path === '/v1/checkout/sessions').length;
    const refusal = expectError(await book(t.app, other, slot), 409, 'PAYMENT_NOT_READY');
    assert.match(refusal.message, /no payment account/);
    assert.equal(await countRows(), before, 'nothing booked');
    // A hold takes no payment; confirming it does, and the hold stays as it was.
    const held = expectStatus(await hold(slot, other), 201);
    expectError(
      await as(t.app, other).post(`/api/reservations/${held.id}/confirm`),
      409,
      'PAYMENT_NOT_READY',
    );
    assert.equal(
      expectStatus(await as(t.app, other).get(`/api/reservations/${held.id}`), 200).status,
      'held',
    );
    expectStatus(await as(t.app, other).post(`/api/reservations/${held.id}/release`), 200);
    // Connected, onboarding not finished: still not ready.
    expectStatus(
      await as(t.app, other).post(`/api/organisations/${other.organisationId}/payment/onboarding-link`),
      200,
    );
    const pending = expectError(await book(t.app, other, slot), 409, 'PAYMENT_NOT_READY');
    assert.match(pending.message, /onboarding is not complete/);
    assert.equal(emulator.requests().filter((r) => r.path === '/v1/checkout/sessions').length, checkouts);
    // Onboarded: it books.
    await connectPayments(other);
    expectStatus(await book(t.app, other, slot), 201);
  });

  test('prices come from the type in integer minor units; a body naming a price or payment is refused', async () => {
    const { slot } = await paidRoom();
    const before = await countRows();
    for (const extra of [
      { priceAmount: 1 },
      { priceCurrency: 'usd' },
      { price: 1 },
      { payment: { amount: 1 } },
      { status: 'confirmed' },
    ]) {
      const refused = expectError(await book(t.app, owner, { ...slot, ...extra }), 400, 'VALIDATION_FAILED');
      assert.match(refused.message, new RegExp(Object.keys(extra)[0]!));
    }
    assert.equal(await countRows(), before);
    // The type: an integer price above zero when payment is required, and a window of 5..1440 minutes.
    const typeBody = { name: 'Paid', pricingEnabled: true, paymentRequired: true, priceCurrency: 'eur' };
    for (const bad of [
      { priceAmount: 12.5 },
      { priceAmount: 0 },
      { priceAmount: 100, paymentWindowMinutes: 4 },
      { priceAmount: 100, paymentWindowMinutes: 1441 },
      { priceAmount: 100, paymentWindowMinutes: 30.5 },
    ])
      expectError(
        await as(t.app, owner).post('/api/resource-types', { ...typeBody, ...bad }),
        400,
        'VALIDATION_FAILED',
      );
    const defaults = expectStatus(
      await as(t.app, owner).post('/api/resource-types', { ...typeBody, priceAmount: 100 }),
      201,
    );
    assert.equal(defaults.paymentWindowMinutes, 30);
    const longest = expectStatus(
      await as(t.app, owner).patch(`/api/resource-types/${defaults.id}`, { paymentWindowMinutes: 1440 }),
      200,
    );
    assert.equal(longest.paymentWindowMinutes, 1440);
  });
});
