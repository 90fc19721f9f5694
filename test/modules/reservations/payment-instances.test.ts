import assert from 'node:assert/strict';
import { after, afterEach, before, describe, mock, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import type { Db } from '../../../src/db/database.js';
import { type PaymentEmulator, startPaymentEmulator } from '../../../tools/emulators/payment/server.js';
import { paymentSignatureHeader } from '../../../tools/emulators/payment/webhooks.js';
import { twoInstances } from '../../helpers/app.js';
import { at, customer, futureMonday } from '../../helpers/booking.js';
import { createResource, createType } from '../../helpers/catalogue.js';
import { as, expectError, expectStatus } from '../../helpers/http.js';
import { type OrgOwner, ownerWithOrganisation, withApiKey } from '../../helpers/organisations.js';

const SECRET = 'sk_test_payment_instances_0123';
const WEBHOOK_SECRET = 'whsec_payment_instances_0123456789';
const WEBHOOKS = '/api/payments/webhooks';

// Two instances on one PostgreSQL database, each listening on loopback: the PostgreSQL pass
// of the suite (npm run test:pg) runs this. Both live in this process, so one fake clock
// (Date under mock.timers) is the clock of both and of the emulator.
if (process.env.TEST_DATABASE_URL)
  describe('payment across two instances on PostgreSQL', () => {
    let emulator: PaymentEmulator;
    let first: FastifyInstance;
    let second: FastifyInstance;
    let urls: string[];
    let db: Db;
    let close: () => Promise<void>;
    let owner: OrgOwner;
    before(async () => {
      emulator = await startPaymentEmulator({ secretKey: SECRET, webhookSecret: WEBHOOK_SECRET });
      ({ first, second, db, urls, close } = await twoInstances(
        {
          JOB_QUEUE: 'auto',
          PAYMENT_API_BASE: emulator.url,
          PAYMENT_SECRET_KEY: SECRET,
          PAYMENT_WEBHOOK_SECRET: WEBHOOK_SECRET,
        },
        { listen: true },
      ));
      emulator.setWebhookUrl(`${urls[0]}${WEBHOOKS}`);
      owner = await ownerWithOrganisation(first, { timezone: 'UTC' });
      owner = await withApiKey(first, owner);
      const base = `/api/organisations/${owner.organisationId}/payment`;
      const link = expectStatus(await as(first, owner).post(`${base}/onboarding-link`), 200);
      assert.equal((await fetch(link.url, { redirect: 'manual' })).status, 302);
      assert.equal(
        expectStatus(await as(second, owner).get(`${base}/status`), 200).providerConnectStatus,
        'active',
      );
    });
    after(async () => {
      await close();
      await emulator.close();
    });
    afterEach(async () => {
      mock.timers.reset();
      await emulator.releaseWebhooks();
      await emulator.settled();
    });

    async function paidSlots(hours: number[], paymentWindowMinutes = 30) {
      const type = await createType(first, owner, {
        pricingEnabled: true,
        paymentRequired: true,
        priceAmount: 1999,
        priceCurrency: 'usd',
        paymentWindowMinutes,
      });
      const room = await createResource(first, owner, { name: 'Shared', resourceTypeId: type.id });
      const mon = futureMonday();
      return hours.map((hour) => ({
        resourceId: room.id,
        startTime: at(mon, hour),
        endTime: at(mon, hour + 1),
      }));
    }
    const stored = (id: number) =>
      db.kysely
        .selectFrom('reservations')
        .select(['status', 'paymentStatus', 'paymentRefundId'])
        .where('id', '=', id)
        .executeTakeFirstOrThrow();
    /** Delivers one event body to one instance over real HTTP, freshly signed as the provider does. */
    const deliverTo = async (url: string, body: string) => {
      const response = await fetch(`${url}${WEBHOOKS}`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'payment-signature': paymentSignatureHeader(WEBHOOK_SECRET, body),
        },
        body,
      });
      return { status: response.status, body: (await response.json()) as { duplicate?: boolean } };
    };

    test('a completed event delivered to either instance, or to both at once, confirms once', async () => {
      const slots = await paidSlots([9, 10, 11, 12, 13]);
      const booked = [];
      for (const [i, slot] of slots.entries())
        booked.push(
          expectStatus(
            await as(i % 2 ? second : first, owner).post('/api/reservations', { customer, ...slot }),
            201,
          ),
        );
      emulator.holdWebhooks();
      for (const reservation of booked)
        assert.equal((await fetch(reservation.payment.checkoutUrl, { redirect: 'manual' })).status, 302);
      const events = emulator
        .events()
        .filter((e) => e.type === 'checkout.completed')
        .slice(-booked.length);
      assert.equal(events.length, booked.length);

      // Every event to both instances at the same moment: each applied exactly once.
      const answers = await Promise.all(
        events.flatMap((event) => urls.map((url) => deliverTo(url, event.body))),
      );
      assert.ok(
        answers.every((a) => a.status === 200),
        JSON.stringify(answers),
      );
      assert.equal(answers.filter((a) => a.body.duplicate === false).length, events.length);
      for (const reservation of booked) {
        assert.deepEqual(await stored(reservation.id), {
          status: 'confirmed',
          paymentStatus: 'paid',
          paymentRefundId: null,
        });
        const seen = expectStatus(await as(second, owner).get(`/api/reservations/${reservation.id}`), 200);
        assert.equal(seen.payment.status, 'paid');
      }
      // The provider's own (late) deliveries change nothing either.
      const deliveries = await emulator.releaseWebhooks();
      assert.ok(deliveries.every((d) => d.status === 200));
      assert.equal(emulator.requests().filter((r) => r.path === '/v1/refunds').length, 0);
    });

    test('late money and a booking of the same time on the other instance: exactly one gets it', async () => {
      const start = Date.now();
      mock.timers.enable({ apis: ['Date'], now: start });
      const [slot] = await paidSlots([15], 5);
      const late = expectStatus(await as(first, owner).post('/api/reservations', { customer, ...slot }), 201);
      emulator.holdWebhooks();
      await fetch(late.payment.checkoutUrl, { redirect: 'manual' });
      const [event] = emulator
        .events()
        .filter((e) => e.type === 'checkout.completed')
        .slice(-1);
      mock.timers.setTime(start + 301_000);
      const [money, taker] = await Promise.all([
        deliverTo(urls[0]!, event!.body),
        as(second, owner).post('/api/reservations/holds', {
          customer: { name: 'Other', email: 'other@example.test' },
          ...slot,
        }),
      ]);
      assert.equal(money.status, 200);
      const after = await stored(late.id);
      if (taker.statusCode === 201) {
        assert.deepEqual(after, {
          status: 'expired',
          paymentStatus: 'refunded',
          paymentRefundId: after.paymentRefundId,
        });
        assert.ok(after.paymentRefundId);
      } else {
        expectError(taker, 409, 'SLOT_UNAVAILABLE');
        assert.deepEqual(after, { status: 'confirmed', paymentStatus: 'paid', paymentRefundId: null });
      }
      const keeping = await db.kysely
        .selectFrom('reservations')
        .select('id')
        .where('resourceId', '=', late.resourceId)
        .where('status', 'in', ['held', 'confirmed'])
        .execute();
      assert.equal(keeping.length, 1, 'one reservation keeps the time');
    });
  });
