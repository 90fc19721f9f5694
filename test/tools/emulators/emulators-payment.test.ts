// The payment emulator's checkouts, refunds and signed webhooks, driven through the
// service's HTTP adapter over real HTTP on loopback, with a small local server as the
// webhook receiver; and the pure verifier of `Payment-Signature`.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, afterEach, before, describe, mock, test } from 'node:test';
import { ConfigError, loadConfig } from '../../../src/config.js';
import { createHttpPaymentProvider } from '../../../src/modules/payments/http-provider.js';
import { parsePaymentEvent } from '../../../src/modules/payments/payment-event.js';
import {
  type PaymentProvider,
  PaymentProviderError,
  type ProviderCheckout,
  type ProviderEvent,
} from '../../../src/modules/payments/provider.js';
import { verifyPaymentSignature } from '../../../src/modules/payments/webhook-signature.js';
import { startDevelopmentPayments } from '../../../tools/emulators/development.js';
import {
  type PaymentEmulator,
  paymentSignatureHeader,
  startPaymentEmulator,
} from '../../../tools/emulators/payment/server.js';

const SECRET_KEY = 'sk_test_checkout_emulator';
const WEBHOOK_SECRET = 'whsec_test_0123456789abcdef';
const WEBHOOK_PATH = '/api/payments/webhooks';
const SUCCESS_URL = 'http://shop.test/paid?checkout={CHECKOUT_SESSION_ID}';
const CANCEL_URL = 'http://shop.test/cancelled';

interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/** A webhook receiver on loopback: records every POST; answers 200, 500, or never. */
async function startReceiver() {
  const received: Received[] = [];
  let answer: 'ok' | 'fail' | 'hang' = 'ok';
  const hanging: ServerResponse[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      received.push({
        path: request.url ?? '',
        headers: request.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      });
      if (answer === 'hang') return void hanging.push(response);
      response.writeHead(answer === 'ok' ? 200 : 500).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    received,
    answer(mode: 'ok' | 'fail' | 'hang') {
      answer = mode;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

type Receiver = Awaited<ReturnType<typeof startReceiver>>;

const nowSeconds = () => Math.floor(Date.now() / 1000);

/** The delivery's event, after checking its signature as the service will. */
function verifiedEvent(delivery: Received | undefined, secret = WEBHOOK_SECRET): ProviderEvent {
  assert.ok(delivery, 'a webhook was delivered');
  assert.equal(delivery.path, WEBHOOK_PATH);
  assert.match(String(delivery.headers['content-type']), /^application\/json/);
  const header = delivery.headers['payment-signature'];
  assert.equal(typeof header, 'string');
  assert.equal(verifyPaymentSignature(header as string, delivery.body, secret, nowSeconds()), 'ok');
  const event = parsePaymentEvent(delivery.body);
  assert.ok(event, delivery.body);
  return event;
}

function checkoutOf(event: ProviderEvent, type: string): ProviderCheckout {
  assert.equal(event.type, type);
  assert.ok('checkout' in event);
  return event.checkout;
}

async function rejectsWith(promise: Promise<unknown>, code: string, cause?: RegExp) {
  await assert.rejects(promise, (error: unknown) => {
    assert.ok(error instanceof PaymentProviderError, String(error));
    assert.equal(error.code, code);
    if (cause) assert.match((error.cause as Error).message, cause);
    return true;
  });
}

const visit = (url: string, query = '') => fetch(`${url}${query}`, { redirect: 'manual' });

describe('payment emulator: checkouts, refunds and signed webhooks', () => {
  let emulator: PaymentEmulator;
  let receiver: Receiver;
  let provider: PaymentProvider;
  let accountId: string;

  before(async () => {
    receiver = await startReceiver();
    emulator = await startPaymentEmulator({
      secretKey: SECRET_KEY,
      webhookUrl: `${receiver.url}${WEBHOOK_PATH}`,
      webhookSecret: WEBHOOK_SECRET,
    });
    provider = createHttpPaymentProvider({
      apiBase: emulator.url,
      secretKey: SECRET_KEY,
      timeoutMs: 2000,
      backoffMs: 1,
    });
    accountId = (await provider.createAccount({ organisationId: 7, idempotencyKey: randomUUID() })).id;
    emulator.completeOnboarding(accountId);
  });
  after(async () => {
    await emulator.close();
    await receiver.close();
  });
  afterEach(async () => {
    emulator.setBehaviour('normal');
    await emulator.settled();
    receiver.received.length = 0;
    receiver.answer('ok');
  });

  const checkout = (overrides: Partial<Parameters<PaymentProvider['createCheckout']>[0]> = {}) =>
    provider.createCheckout({
      accountId,
      amount: 2500,
      currency: 'eur',
      successUrl: SUCCESS_URL,
      cancelUrl: CANCEL_URL,
      expiresAt: new Date(Date.now() + 30 * 60_000).toISOString(),
      metadata: { reservation_id: '42' },
      idempotencyKey: randomUUID(),
      ...overrides,
    });

  const api = (method: string, path: string, form?: Record<string, string>) =>
    fetch(`${emulator.url}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${SECRET_KEY}`,
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: form ? new URLSearchParams(form).toString() : undefined,
    });

  test('a checkout is created on an onboarded connected account, idempotently, and read back', async () => {
    const expiresAt = new Date(Date.now() + 30 * 60_000 + 789).toISOString();
    const idempotencyKey = randomUUID();
    const created = await checkout({ expiresAt, idempotencyKey });
    assert.match(created.id, /^cs_/);
    assert.equal(created.url, `${emulator.url}/checkout/${created.id}`);
    assert.deepEqual(
      { ...created, id: undefined, url: undefined },
      {
        id: undefined,
        url: undefined,
        accountId,
        status: 'open',
        paymentStatus: 'unpaid',
        amount: 2500,
        currency: 'eur',
        paymentId: null,
        // Whole seconds at the provider, rounded down: never a moment past the caller's expiry.
        expiresAt: new Date(Math.floor(Date.parse(expiresAt) / 1000) * 1000).toISOString(),
        metadata: { reservation_id: '42' },
      },
    );
    assert.deepEqual(await provider.retrieveCheckout(created.id), created);
    // A retried create with the same key is the same checkout.
    assert.equal((await checkout({ expiresAt, idempotencyKey })).id, created.id);
    const creates = emulator.requests().filter((call) => call.path === '/v1/checkout/sessions');
    assert.ok(creates.length >= 2 && creates.every((call) => call.idempotencyKey === idempotencyKey));
    assert.equal(receiver.received.length, 0, 'creating sends no event');
  });

  test('the provider refuses bad checkouts: not onboarded, not minor units, bad currency, URLs or expiry', async () => {
    const pending = await provider.createAccount({ organisationId: 8, idempotencyKey: randomUUID() });
    await rejectsWith(checkout({ accountId: pending.id }), 'PROVIDER_ERROR', /account_not_ready/);
    await rejectsWith(checkout({ accountId: 'acct_unknown' }), 'PROVIDER_ERROR', /resource_missing/);
    await rejectsWith(checkout({ amount: 12.5 }), 'PROVIDER_ERROR', /minor units/);
    await rejectsWith(
      checkout({ expiresAt: new Date(Date.now() - 1000).toISOString() }),
      'PROVIDER_ERROR',
      /expires_at/,
    );
    const valid = {
      account: accountId,
      amount: '100',
      currency: 'usd',
      success_url: 'http://shop.test/ok',
      cancel_url: 'http://shop.test/no',
      expires_at: String(nowSeconds() + 600),
    };
    const refused: Array<[Record<string, string>, string]> = [
      [{ amount: '0' }, 'amount'],
      [{ amount: '12.50' }, 'amount'],
      [{ amount: '100000000' }, 'amount'],
      [{ currency: 'euro' }, 'currency'],
      [{ success_url: '/relative' }, 'success_url'],
      [{ cancel_url: 'ftp://shop.test' }, 'cancel_url'],
      [{ expires_at: String(nowSeconds() + 24 * 3600 + 60) }, 'expires_at'],
      [{ expires_at: 'soon' }, 'expires_at'],
    ];
    for (const [change, param] of refused) {
      const response = await api('POST', '/v1/checkout/sessions', { ...valid, ...change });
      assert.equal(response.status, 400, JSON.stringify(change));
      assert.equal((await response.json()).error.param, param);
    }
    assert.equal((await api('POST', '/v1/checkout/sessions', valid)).status, 200);
    const anonymous = await fetch(`${emulator.url}/v1/checkout/sessions/cs_x`);
    assert.equal(anonymous.status, 401);
    await rejectsWith(provider.retrieveCheckout('cs_unknown'), 'PROVIDER_ERROR', /HTTP 404/);
  });

  test('visiting the checkout URL pays, delivers a signed checkout.completed, then redirects to the success URL', async () => {
    const created = await checkout();
    const paid = await visit(created.url);
    assert.equal(paid.status, 302);
    assert.equal(paid.headers.get('location'), `http://shop.test/paid?checkout=${created.id}`);

    assert.equal(receiver.received.length, 1, 'delivered before the redirect');
    const event = verifiedEvent(receiver.received[0]);
    assert.match(event.id, /^evt_/);
    assert.ok(event.type !== 'ignored' && event.accountId === accountId);
    const reported = checkoutOf(event, 'checkout.completed');
    assert.equal(reported.id, created.id);
    assert.equal(reported.status, 'complete');
    assert.equal(reported.paymentStatus, 'paid');
    assert.match(reported.paymentId ?? '', /^pi_/);
    assert.equal(reported.amount, 2500);
    assert.deepEqual(reported.metadata, { reservation_id: '42' });
    assert.deepEqual(await provider.retrieveCheckout(created.id), reported);
    assert.deepEqual(
      emulator
        .events()
        .find((recorded) => recorded.id === event.id)
        ?.deliveries.map((d) => d.status),
      [200],
    );

    // A paid checkout is paid once: visiting again (even with fail=1) only sends the customer back.
    for (const query of ['', '?fail=1', '?expire=1']) {
      const again = await visit(created.url, query);
      assert.equal(again.headers.get('location'), `http://shop.test/paid?checkout=${created.id}`);
    }
    assert.equal(receiver.received.length, 1);
  });

  test('fail=1 declines: checkout.failed, and the checkout stays open and payable', async () => {
    const created = await checkout();
    const declined = await visit(created.url, '?fail=1');
    assert.equal(declined.status, 402);
    assert.match(await declined.text(), /declined/);
    const failed = checkoutOf(verifiedEvent(receiver.received[0]), 'checkout.failed');
    assert.equal(failed.status, 'open');
    assert.equal(failed.paymentStatus, 'failed');
    assert.equal(failed.paymentId, null);
    assert.equal((await provider.retrieveCheckout(created.id)).paymentStatus, 'failed');

    const paid = await visit(created.url);
    assert.equal(paid.headers.get('location'), `http://shop.test/paid?checkout=${created.id}`);
    assert.equal(checkoutOf(verifiedEvent(receiver.received[1]), 'checkout.completed').paymentStatus, 'paid');
  });

  test('delayed=1 completes the checkout unpaid; the async outcome follows when settled', async () => {
    const succeeding = await checkout();
    const completed = await visit(succeeding.url, '?delayed=1');
    assert.equal(completed.headers.get('location'), `http://shop.test/paid?checkout=${succeeding.id}`);
    const unpaid = checkoutOf(verifiedEvent(receiver.received[0]), 'checkout.completed');
    assert.equal(unpaid.status, 'complete');
    assert.equal(unpaid.paymentStatus, 'unpaid');
    assert.equal((await emulator.settleDelayedPayment(succeeding.id, 'succeeded'))?.status, 200);
    const paid = checkoutOf(verifiedEvent(receiver.received[1]), 'checkout.async_payment_succeeded');
    assert.equal(paid.paymentStatus, 'paid');
    assert.ok(paid.paymentId);

    const failing = await checkout();
    await visit(failing.url, '?delayed=1');
    const settled = await fetch(`${emulator.url}/__admin/checkout/sessions/${failing.id}/settle`, {
      method: 'POST',
      body: JSON.stringify({ outcome: 'failed' }),
    });
    assert.equal(settled.status, 200);
    const failed = checkoutOf(verifiedEvent(receiver.received[3]), 'checkout.async_payment_failed');
    assert.equal(failed.paymentStatus, 'failed');
    // Settled once: a paid or open checkout has no delayed payment to settle.
    await assert.rejects(emulator.settleDelayedPayment(succeeding.id, 'failed'), /no delayed payment/);
    await assert.rejects(
      emulator.settleDelayedPayment((await checkout()).id, 'succeeded'),
      /no delayed payment/,
    );
    assert.equal(receiver.received.length, 4);
  });

  test('expire=1 expires at once: checkout.expired, the cancel URL, and no payment afterwards', async () => {
    const created = await checkout();
    const expired = await visit(created.url, '?expire=1');
    assert.equal(expired.status, 302);
    assert.equal(expired.headers.get('location'), CANCEL_URL);
    const reported = checkoutOf(verifiedEvent(receiver.received[0]), 'checkout.expired');
    assert.equal(reported.status, 'expired');
    assert.equal(reported.paymentStatus, 'unpaid');

    const late = await visit(created.url);
    assert.equal(late.headers.get('location'), CANCEL_URL);
    assert.equal(receiver.received.length, 1, 'an expired checkout cannot be paid');
    assert.equal((await provider.retrieveCheckout(created.id)).status, 'expired');
    await rejectsWith(
      provider.refund({ checkoutId: created.id, idempotencyKey: randomUUID() }),
      'PROVIDER_ERROR',
      /payment_not_completed/,
    );
    assert.equal((await visit(`${emulator.url}/checkout/cs_unknown`)).status, 404);
  });

  test('the admin route and the API expire an open checkout; a completed one cannot be expired', async () => {
    const first = await checkout();
    const admin = await fetch(`${emulator.url}/__admin/checkout/sessions/${first.id}/expire`, {
      method: 'POST',
    });
    assert.equal(admin.status, 200);
    const answer = await admin.json();
    assert.equal(answer.checkout.status, 'expired');
    assert.equal(answer.delivery.status, 200);
    assert.equal(checkoutOf(verifiedEvent(receiver.received[0]), 'checkout.expired').id, first.id);
    const twice = await fetch(`${emulator.url}/__admin/checkout/sessions/${first.id}/expire`, {
      method: 'POST',
    });
    assert.equal(twice.status, 400);
    const unknown = await fetch(`${emulator.url}/__admin/checkout/sessions/cs_none/expire`, {
      method: 'POST',
    });
    assert.equal(unknown.status, 404);

    // Through the port: the event follows the answer, in the background.
    const second = await checkout();
    const closed = await provider.expireCheckout(second.id);
    assert.equal(closed.status, 'expired');
    await emulator.settled();
    assert.equal(checkoutOf(verifiedEvent(receiver.received[1]), 'checkout.expired').id, second.id);
    // Expiring an expired checkout answers it as it is, without another event.
    assert.equal((await provider.expireCheckout(second.id)).status, 'expired');
    await emulator.settled();
    assert.equal(receiver.received.length, 2);

    const paid = await checkout();
    await visit(paid.url);
    await rejectsWith(provider.expireCheckout(paid.id), 'PROVIDER_ERROR', /checkout_complete/);
    await assert.rejects(emulator.expireCheckout(paid.id), /already complete/);
  });

  test('an open checkout expires at its expires_at by the clock, and checkout.expired is sent', async () => {
    const start = Date.parse('2031-05-01T10:00:00.000Z');
    mock.timers.enable({ apis: ['Date'], now: start });
    // The checkouts of earlier tests expire too (this clock is years ahead): look at this one's only.
    const about = (checkoutId: string) =>
      receiver.received.filter((delivery) => JSON.parse(delivery.body).data.object.id === checkoutId);
    try {
      const created = await checkout({ expiresAt: new Date(start + 5 * 60_000).toISOString() });
      mock.timers.setTime(start + 5 * 60_000 - 1);
      assert.equal((await provider.retrieveCheckout(created.id)).status, 'open');
      await emulator.settled();
      assert.equal(about(created.id).length, 0);
      mock.timers.setTime(start + 5 * 60_000);
      assert.equal((await provider.retrieveCheckout(created.id)).status, 'expired');
      await emulator.settled();
      assert.equal(about(created.id).length, 1);
      assert.equal(checkoutOf(verifiedEvent(about(created.id)[0]), 'checkout.expired').id, created.id);
      assert.equal((await visit(created.url)).headers.get('location'), CANCEL_URL);
      assert.equal(about(created.id).length, 1);
    } finally {
      mock.timers.reset();
    }
  });

  test('a refund returns the whole amount once, idempotently, and refund.succeeded follows', async () => {
    const created = await checkout({ amount: 1999, currency: 'usd' });
    await rejectsWith(
      provider.refund({ checkoutId: created.id, idempotencyKey: randomUUID() }),
      'PROVIDER_ERROR',
      /payment_not_completed/,
    );
    await visit(created.url);
    const paymentId = checkoutOf(verifiedEvent(receiver.received[0]), 'checkout.completed').paymentId;

    const idempotencyKey = randomUUID();
    const refund = await provider.refund({ checkoutId: created.id, idempotencyKey });
    assert.match(refund.id, /^re_/);
    assert.deepEqual(
      { ...refund, id: undefined },
      {
        id: undefined,
        checkoutId: created.id,
        paymentId,
        amount: 1999,
        currency: 'usd',
        status: 'succeeded',
      },
    );
    await emulator.settled();
    const event = verifiedEvent(receiver.received[1]);
    assert.equal(event.type, 'refund.succeeded');
    assert.ok(event.type === 'refund.succeeded');
    assert.deepEqual(event.refund, refund);
    assert.equal((await provider.retrieveCheckout(created.id)).paymentStatus, 'refunded');

    // The same key answers the same refund; another key finds nothing left to refund.
    assert.equal((await provider.refund({ checkoutId: created.id, idempotencyKey })).id, refund.id);
    await rejectsWith(
      provider.refund({ checkoutId: created.id, idempotencyKey: randomUUID() }),
      'PROVIDER_ERROR',
      /charge_already_refunded/,
    );
    await emulator.settled();
    assert.equal(receiver.received.length, 2, 'one refund, one event');
    const refunds = emulator.requests().filter((call) => call.path === '/v1/refunds');
    assert.ok(refunds.every((call) => call.idempotencyKey));
    await rejectsWith(
      provider.refund({ checkoutId: 'cs_unknown', idempotencyKey: randomUUID() }),
      'PROVIDER_ERROR',
      /resource_missing/,
    );
  });

  test('a resent event carries the same id and body with a fresh signature; held events arrive late, in order', async () => {
    const created = await checkout();
    await visit(created.url);
    const original = receiver.received[0]!;
    const eventId = verifiedEvent(original).id;

    const resent = await fetch(`${emulator.url}/__admin/events/${eventId}/resend`, { method: 'POST' });
    assert.equal(resent.status, 200);
    assert.equal((await resent.json()).delivery.status, 200);
    const replay = receiver.received[1]!;
    assert.equal(replay.body, original.body);
    assert.equal(verifiedEvent(replay).id, eventId);
    assert.equal(
      (await fetch(`${emulator.url}/__admin/events/evt_none/resend`, { method: 'POST' })).status,
      404,
    );

    // Held: the customer is sent back at once, the event waits.
    assert.equal((await fetch(`${emulator.url}/__admin/webhooks/hold`, { method: 'POST' })).status, 200);
    const later = await checkout();
    const other = await checkout();
    assert.equal((await visit(later.url)).status, 302);
    assert.equal((await visit(other.url, '?expire=1')).status, 302);
    assert.equal(receiver.received.length, 2);
    const release = await fetch(`${emulator.url}/__admin/webhooks/release`, { method: 'POST' });
    assert.deepEqual(
      (await release.json()).deliveries.map((delivery: { status: number }) => delivery.status),
      [200, 200],
    );
    assert.deepEqual(
      receiver.received.slice(2).map((delivery) => {
        const event = verifiedEvent(delivery);
        return [event.type, 'checkout' in event ? event.checkout.id : null];
      }),
      [
        ['checkout.completed', later.id],
        ['checkout.expired', other.id],
      ],
    );

    const listed = await (await fetch(`${emulator.url}/__admin/events`)).json();
    const recorded = listed.find((event: { id: string }) => event.id === eventId);
    assert.equal(recorded.deliveries.length, 2);
    assert.equal(recorded.type, 'checkout.completed');
  });

  test('a receiver that fails or hangs does not hold the customer; each attempt is recorded', async () => {
    const quick = await startPaymentEmulator({
      secretKey: SECRET_KEY,
      webhookUrl: `${receiver.url}${WEBHOOK_PATH}`,
      webhookSecret: WEBHOOK_SECRET,
      webhookTimeoutMs: 200,
    });
    try {
      const quickProvider = createHttpPaymentProvider({
        apiBase: quick.url,
        secretKey: SECRET_KEY,
        timeoutMs: 2000,
      });
      const account = await quickProvider.createAccount({ organisationId: 9, idempotencyKey: randomUUID() });
      quick.completeOnboarding(account.id);
      const open = (amount: number) =>
        quickProvider.createCheckout({
          accountId: account.id,
          amount,
          currency: 'eur',
          successUrl: SUCCESS_URL,
          cancelUrl: CANCEL_URL,
          expiresAt: new Date(Date.now() + 60_000).toISOString(),
          metadata: {},
          idempotencyKey: randomUUID(),
        });

      receiver.answer('fail');
      assert.equal((await visit((await open(100)).url)).status, 302);
      receiver.answer('hang');
      const started = Date.now();
      assert.equal((await visit((await open(200)).url)).status, 302);
      assert.ok(Date.now() - started < 1500, 'the delivery was cut off at its timeout');
      assert.deepEqual(
        quick.events().map((event) => event.deliveries.map(({ status, error }) => ({ status, error }))),
        [[{ status: 500, error: null }], [{ status: null, error: 'timeout' }]],
      );
    } finally {
      await quick.close();
    }
  });

  test('every new provider call is bounded by the timeout, and retried only when safe', async () => {
    const slow = createHttpPaymentProvider({
      apiBase: emulator.url,
      secretKey: SECRET_KEY,
      timeoutMs: 300,
      backoffMs: 1,
    });
    const paid = await checkout();
    await visit(paid.url);
    emulator.setBehaviour('hang');
    const started = Date.now();
    const outcomes = await Promise.allSettled([
      slow.createCheckout({
        accountId,
        amount: 100,
        currency: 'eur',
        successUrl: SUCCESS_URL,
        cancelUrl: CANCEL_URL,
        expiresAt: new Date(Date.now() + 60_000).toISOString(),
        metadata: {},
        idempotencyKey: randomUUID(),
      }),
      slow.retrieveCheckout(paid.id),
      slow.expireCheckout(paid.id),
      slow.refund({ checkoutId: paid.id, idempotencyKey: randomUUID() }),
    ]);
    assert.ok(Date.now() - started < 1500, 'each call was cut off at the timeout, not retried');
    for (const outcome of outcomes) {
      assert.equal(outcome.status, 'rejected');
      await rejectsWith(Promise.reject(outcome.reason), 'PROVIDER_TIMEOUT');
    }
    emulator.setBehaviour('normal');

    // A provider failure is retried for a create and a refund: they carry idempotency keys.
    emulator.setBehaviour('fail', 1);
    const idempotencyKey = randomUUID();
    const created = await checkout({ idempotencyKey });
    const attempts = emulator.requests().filter((call) => call.idempotencyKey === idempotencyKey);
    assert.equal(attempts.length, 2);
    emulator.setBehaviour('fail', 1);
    const refundKey = randomUUID();
    assert.equal(
      (await provider.refund({ checkoutId: paid.id, idempotencyKey: refundKey })).checkoutId,
      paid.id,
    );
    assert.equal(emulator.requests().filter((call) => call.idempotencyKey === refundKey).length, 2);
    assert.equal((await provider.retrieveCheckout(created.id)).status, 'open');
  });
});

describe('Payment-Signature verification', () => {
  const body = '{"id":"evt_1","type":"checkout.completed"}';
  const now = 1_900_000_000;
  const sign = (timestamp: number, secret = WEBHOOK_SECRET, payload = body) =>
    paymentSignatureHeader(secret, payload, timestamp);
  const v1 = (header: string) => header.split(',v1=')[1]!;

  test('the signature of this body within five minutes, either way, is ok', () => {
    assert.equal(verifyPaymentSignature(sign(now), body, WEBHOOK_SECRET, now), 'ok');
    assert.equal(verifyPaymentSignature(sign(now - 300), body, WEBHOOK_SECRET, now), 'ok');
    assert.equal(verifyPaymentSignature(sign(now + 300), body, WEBHOOK_SECRET, now), 'ok');
    assert.equal(verifyPaymentSignature(sign(now), Buffer.from(body), WEBHOOK_SECRET, now), 'ok');
    assert.equal(
      verifyPaymentSignature(`t=${now},v1=${v1(sign(now)).toUpperCase()}`, body, WEBHOOK_SECRET, now),
      'ok',
    );
    assert.equal(verifyPaymentSignature(sign(now - 60), body, WEBHOOK_SECRET, now, 30), 'stale');
  });

  test('an authentic delivery older (or newer) than the tolerance is stale', () => {
    assert.equal(verifyPaymentSignature(sign(now - 301), body, WEBHOOK_SECRET, now), 'stale');
    assert.equal(verifyPaymentSignature(sign(now + 301), body, WEBHOOK_SECRET, now), 'stale');
  });

  test('a tampered body, another secret or a moved timestamp is a mismatch, checked before staleness', () => {
    assert.equal(verifyPaymentSignature(sign(now), `${body} `, WEBHOOK_SECRET, now), 'mismatch');
    assert.equal(
      verifyPaymentSignature(sign(now), body.replace('completed', 'expired'), WEBHOOK_SECRET, now),
      'mismatch',
    );
    assert.equal(
      verifyPaymentSignature(sign(now, 'whsec_another_secret_x'), body, WEBHOOK_SECRET, now),
      'mismatch',
    );
    assert.equal(
      verifyPaymentSignature(`t=${now},v1=${v1(sign(now - 600))}`, body, WEBHOOK_SECRET, now),
      'mismatch',
    );
    assert.equal(
      verifyPaymentSignature(sign(now - 600, 'whsec_another_secret_x'), body, WEBHOOK_SECRET, now),
      'mismatch',
    );
  });

  test('several v1 entries (a secret being rotated): any one matching is enough; other schemes are ignored', () => {
    const old = v1(sign(now, 'whsec_the_old_secret_1'));
    const current = v1(sign(now));
    assert.equal(verifyPaymentSignature(`t=${now},v1=${old},v1=${current}`, body, WEBHOOK_SECRET, now), 'ok');
    assert.equal(verifyPaymentSignature(`t=${now},v1=${current},v1=${old}`, body, WEBHOOK_SECRET, now), 'ok');
    assert.equal(verifyPaymentSignature(`t=${now}, v0=abc, v1=${current}`, body, WEBHOOK_SECRET, now), 'ok');
    assert.equal(verifyPaymentSignature(`t=${now},v1=${old}`, body, WEBHOOK_SECRET, now), 'mismatch');
  });

  test('anything not shaped t=<seconds>,v1=<64 hex> is malformed', () => {
    const good = v1(sign(now));
    for (const header of [
      undefined,
      '',
      'garbage',
      `v1=${good}`,
      `t=${now}`,
      `t=${now},v0=${good}`,
      `t=soon,v1=${good}`,
      `t=-5,v1=${good}`,
      `t=${now},t=${now},v1=${good}`,
      `t=${now},v1=${good.slice(1)}`,
      `t=${now},v1=${good.slice(1)}z`,
      `t=${now},=x,v1=${good}`,
      `t=${now},v1=${good},${'x'.repeat(2048)}=1`,
    ]) {
      assert.equal(verifyPaymentSignature(header, body, WEBHOOK_SECRET, now), 'malformed', String(header));
    }
  });

  test('events the service does not act on parse as ignored; a foreign body parses as nothing', () => {
    assert.deepEqual(
      parsePaymentEvent(
        JSON.stringify({
          id: 'evt_9',
          object: 'event',
          type: 'payout.paid',
          created: now,
          account: 'acct_1',
          data: { object: {} },
        }),
      ),
      { id: 'evt_9', type: 'ignored', providerType: 'payout.paid' },
    );
    assert.equal(parsePaymentEvent('not json'), null);
    assert.equal(parsePaymentEvent('{"id":"evt_1"}'), null);
    assert.equal(
      parsePaymentEvent(
        JSON.stringify({
          id: 'e',
          type: 'checkout.completed',
          created: now,
          account: 'a',
          data: { object: { id: 'cs' } },
        }),
      ),
      null,
    );
  });
});

describe('payment webhooks in development and configuration', () => {
  test('npm start in development signs the emulator webhooks to PUBLIC_URL/api/payments/webhooks with PAYMENT_WEBHOOK_SECRET', async () => {
    const receiver = await startReceiver();
    const secret = 'whsec_development_secret_0123';
    const development = await startDevelopmentPayments(
      loadConfig({ NODE_ENV: 'development', PUBLIC_URL: receiver.url, PAYMENT_WEBHOOK_SECRET: secret }),
    );
    try {
      const { apiBase, secretKey, webhookSecret } = development.config.payment;
      assert.equal(webhookSecret, secret);
      const provider = createHttpPaymentProvider({
        apiBase: apiBase!,
        secretKey: secretKey!,
        timeoutMs: 2000,
      });
      const account = await provider.createAccount({ organisationId: 1, idempotencyKey: randomUUID() });
      await fetch(`${apiBase}/__admin/accounts/${account.id}/complete-onboarding`, { method: 'POST' });
      const created = await provider.createCheckout({
        accountId: account.id,
        amount: 500,
        currency: 'usd',
        successUrl: SUCCESS_URL,
        cancelUrl: CANCEL_URL,
        expiresAt: new Date(Date.now() + 60_000).toISOString(),
        metadata: { reservation_id: '1' },
        idempotencyKey: randomUUID(),
      });
      await visit(created.url);
      assert.equal(
        checkoutOf(verifiedEvent(receiver.received[0], secret), 'checkout.completed').id,
        created.id,
      );
      const other = receiver.received[0]!;
      assert.equal(
        verifyPaymentSignature(
          other.headers['payment-signature'] as string,
          other.body,
          WEBHOOK_SECRET,
          nowSeconds(),
        ),
        'mismatch',
      );
    } finally {
      for (const emulator of development.emulators) await emulator.close();
      await receiver.close();
    }
  });

  test('PAYMENT_WEBHOOK_SECRET: a development default, at least 16 characters, and set in production', () => {
    assert.ok(loadConfig({}).payment.webhookSecret.length >= 16);
    assert.equal(
      loadConfig({ PAYMENT_WEBHOOK_SECRET: 'w'.repeat(16) }).payment.webhookSecret,
      'w'.repeat(16),
    );
    assert.throws(() => loadConfig({ PAYMENT_WEBHOOK_SECRET: 'short' }), /PAYMENT_WEBHOOK_SECRET/);
    const production = {
      NODE_ENV: 'production',
      JWT_SECRET: 'j'.repeat(40),
      OAUTH_JWT_SECRET: 'o'.repeat(40),
      ENCRYPTION_KEY: Buffer.alloc(32, 1).toString('base64'),
      PAYMENT_API_BASE: 'https://payments.example',
      PAYMENT_SECRET_KEY: 'sk_live',
    };
    assert.throws(
      () => loadConfig(production),
      (error: unknown) =>
        error instanceof ConfigError &&
        error.message === 'Invalid environment variable PAYMENT_WEBHOOK_SECRET: must be set in production',
    );
    assert.equal(
      loadConfig({ ...production, PAYMENT_WEBHOOK_SECRET: 'whsec_live_0123456789' }).payment.webhookSecret,
      'whsec_live_0123456789',
    );
  });
});
