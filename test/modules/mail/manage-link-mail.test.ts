// Customer mails carry the manage link, one mail per outcome (DECISIONS.md "Pages people live
// in"): through HTTP, the real outbox and mail drain, SMTP to the bundled catcher, and the
// payment emulator. The token a mail carries opens the manage API; it is stored only sealed,
// so it is in no column of the database and no privacy export.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { CaughtMessage, MailCatcher } from '../../../tools/emulators/mail/server.js';
import { startMailCatcher } from '../../../tools/emulators/mail/server.js';
import { type PaymentEmulator, startPaymentEmulator } from '../../../tools/emulators/payment/server.js';
import { createTestApp, type TestApp, uniqueEmail } from '../../helpers/app.js';
import { at, futureMonday } from '../../helpers/booking.js';
import { createResource, createType } from '../../helpers/catalogue.js';
import { as, expectStatus } from '../../helpers/http.js';
import { type OrgOwner, ownerWithOrganisation } from '../../helpers/organisations.js';
import { columnsContaining, PRIVACY, parseExport } from '../../helpers/privacy.js';

const SECRET = 'sk_test_manage_link_mail_0123';
const WEBHOOK_SECRET = 'whsec_manage_link_mail_0123456789';
const MANAGE_LINK = /^Manage your booking: http:\/\/frontend\.test\/manage\/([A-Za-z0-9_-]{43})$/m;

/** A line of a mail's text, exactly. */
const line = (text: string) => new RegExp(`^${text.replace(/[()+.]/g, '\\$&')}$`, 'm');

/** The manage token a mail's text links to; null when it carries none. */
const tokenIn = (message: CaughtMessage | undefined) => MANAGE_LINK.exec(message?.text ?? '')?.[1] ?? null;

/** `2 March 2027, 10:00 (UTC)`, as the mails write an instant in a UTC organisation. */
function utcInstant(iso: string): string {
  const at = new Date(iso);
  const day = new Intl.DateTimeFormat('en-GB', {
    day: 'numeric',
    month: 'long',
    year: 'numeric',
    timeZone: 'UTC',
  }).format(at);
  return `${day}, ${iso.slice(11, 16)} (UTC)`;
}

describe('customer mails: the manage link, one mail per outcome', () => {
  let t: TestApp;
  let catcher: MailCatcher;
  let emulator: PaymentEmulator;
  let owner: OrgOwner;
  let room: { id: number };
  let paidRoom: { id: number };
  let classRoom: { id: number };
  const slug = `mails-${process.pid}`;
  const mon = futureMonday();
  let hour = 0;
  /** A free hour of the week on `resourceId`, each test its own. */
  const nextSlot = (resourceId: number) => {
    const start = 8 + (hour % 10) + 24 * Math.floor(hour / 10);
    hour += 1;
    return { resourceId, startTime: at(mon, start), endTime: at(mon, start + 1) };
  };
  const customerOf = (name: string) => ({ name, email: uniqueEmail(name.toLowerCase()) });

  before(async () => {
    catcher = await startMailCatcher();
    emulator = await startPaymentEmulator({ secretKey: SECRET, webhookSecret: WEBHOOK_SECRET });
    t = await createTestApp({
      SMTP_URL: catcher.smtpUrl,
      PUBLIC_RATE_LIMIT_MAX: '1000',
      PAYMENT_API_BASE: emulator.url,
      PAYMENT_SECRET_KEY: SECRET,
      PAYMENT_WEBHOOK_SECRET: WEBHOOK_SECRET,
      PAYMENT_TIMEOUT_MS: '5000',
    });
    const address = await t.app.listen({ port: 0, host: '127.0.0.1' });
    emulator.setWebhookUrl(`${address}/api/payments/webhooks`);
    owner = await ownerWithOrganisation(t.app, { name: 'Mail Studio', slug, timezone: 'UTC' });
    const base = `/api/organisations/${owner.organisationId}/payment`;
    const link = expectStatus(await as(t.app, owner).post(`${base}/onboarding-link`), 200);
    assert.equal((await fetch(link.url, { redirect: 'manual' })).status, 302);
    const payments = expectStatus(await as(t.app, owner).get(`${base}/status`), 200);
    assert.equal(payments.providerConnectStatus, 'active');
    const free = await createType(t.app, owner, { name: 'Lesson' });
    room = await createResource(t.app, owner, { name: 'Room', resourceTypeId: free.id });
    const paid = await createType(t.app, owner, {
      name: 'Massage',
      pricingEnabled: true,
      paymentRequired: true,
      priceAmount: 2500,
      priceCurrency: 'eur',
    });
    paidRoom = await createResource(t.app, owner, { name: 'Table', resourceTypeId: paid.id });
    const waited = await createType(t.app, owner, { name: 'Class', waitlistEnabled: true });
    classRoom = await createResource(t.app, owner, { name: 'Class room', resourceTypeId: waited.id });
  });
  after(async () => {
    await t?.close();
    await catcher?.close();
    await emulator?.close();
  });

  const post = (url: string, payload?: Record<string, unknown>) =>
    t.app.inject({ method: 'POST', url, ...(payload ? { payload } : {}) });
  const publicPost = (path: string, payload: Record<string, unknown>) =>
    post(`/api/public/organisations/${slug}/${path}`, payload);
  const manage = (token: string, action = '') =>
    action
      ? post(`/api/public/reservations/${token}/${action}`)
      : t.app.inject({ method: 'GET', url: `/api/public/reservations/${token}` });
  /** Every mail sent so far to `email`, oldest first, once the drain has sent what is due. */
  async function mailsTo(email: string): Promise<CaughtMessage[]> {
    await t.app.services.mail.drain();
    return (await catcher.messages()).filter((message) => message.envelope.to.includes(email));
  }

  test('a free booking sends one confirmation, whose manage link opens the booking', async () => {
    const customer = customerOf('Ada');
    const booked = expectStatus(await publicPost('reservations', { ...nextSlot(room.id), customer }), 201);
    assert.equal(booked.status, 'confirmed');
    const mails = await mailsTo(customer.email);
    assert.deepEqual(
      mails.map((m) => m.subject),
      [`Mail Studio: your booking on ${utcInstant(booked.startTime).split(',')[0]} is confirmed`],
    );
    const token = tokenIn(mails[0]);
    assert.equal(token, booked.manageToken, 'the link the answer showed once');
    assert.match(String(mails[0]?.html), /<a href="http:\/\/frontend\.test\/manage\/[A-Za-z0-9_-]{43}"/);
    const managed = expectStatus(await manage(token!), 200);
    assert.deepEqual([managed.id, managed.status], [booked.id, 'confirmed']);
    assert.deepEqual(await columnsContaining(t.db, token!), [], 'the token is stored nowhere in plain text');
    const stored = await t.db.kysely
      .selectFrom('reservations')
      .select(['manageTokenSealed'])
      .where('id', '=', booked.id)
      .executeTakeFirstOrThrow();
    assert.match(String(stored.manageTokenSealed), /^v1\./, 'sealed beside its hash');
    assert.deepEqual(
      await columnsContaining(t.db, String(stored.manageTokenSealed)),
      ['reservations.manage_token_sealed'],
      'and in that column only: no event carries it',
    );
  });

  test('a hold confirmed at its manage link sends only the confirmation; a hold let go sends nothing', async () => {
    const customer = customerOf('Hal');
    const held = expectStatus(await publicPost('holds', { ...nextSlot(room.id), customer }), 201);
    assert.equal(held.status, 'held');
    assert.deepEqual(await mailsTo(customer.email), [], 'no mail for a hold');
    expectStatus(await manage(held.manageToken, 'confirm'), 200);
    const mails = await mailsTo(customer.email);
    assert.deepEqual(
      mails.map((m) => [m.subject?.endsWith('is confirmed'), tokenIn(m)]),
      [[true, held.manageToken]],
    );

    const other = customerOf('Ivy');
    const dropped = expectStatus(await publicPost('holds', { ...nextSlot(room.id), customer: other }), 201);
    expectStatus(await manage(dropped.manageToken, 'cancel'), 200);
    assert.deepEqual(await mailsTo(other.email), [], 'nothing to tell of a hold let go');
  });

  test('a paid hold: one "complete your payment" naming its deadline, then one confirmation', async () => {
    const customer = customerOf('Pat');
    const held = expectStatus(await publicPost('holds', { ...nextSlot(paidRoom.id), customer }), 201);
    const waiting = expectStatus(await manage(held.manageToken, 'confirm'), 200);
    assert.equal(waiting.status, 'pending_payment');
    const [payment, ...rest] = await mailsTo(customer.email);
    assert.deepEqual(rest, [], 'one mail while the payment is due');
    assert.match(String(payment?.subject), /^Mail Studio: complete your payment to confirm your booking on /);
    const deadline = utcInstant(waiting.payment.expiresAt);
    assert.match(String(payment?.text), line(`Pay by: ${deadline}`));
    assert.ok(String(payment?.text).includes(`until ${deadline}`), 'the words name the deadline too');
    assert.ok(String(payment?.text).includes(`Pay now: ${waiting.payment.checkoutUrl}`));
    assert.equal(tokenIn(payment), held.manageToken);

    assert.equal((await fetch(waiting.payment.checkoutUrl, { redirect: 'manual' })).status, 302);
    assert.equal(expectStatus(await manage(held.manageToken), 200).status, 'confirmed');
    const mails = await mailsTo(customer.email);
    assert.deepEqual(
      mails.map((m) => [
        /complete your payment/.test(m.subject ?? ''),
        /is confirmed$/.test(m.subject ?? ''),
      ]),
      [
        [true, false],
        [false, true],
      ],
      'exactly two mails, in order',
    );
    assert.equal(tokenIn(mails[1]), held.manageToken);
    assert.deepEqual(await columnsContaining(t.db, held.manageToken), []);
  });

  test('a paid booking in one step: the same two mails; its cancellation a third, saying the money went back', async () => {
    const customer = customerOf('Quinn');
    const booked = expectStatus(
      await publicPost('reservations', { ...nextSlot(paidRoom.id), customer }),
      201,
    );
    assert.equal(booked.status, 'pending_payment');
    const first = await mailsTo(customer.email);
    assert.deepEqual(
      first.map((m) => [/complete your payment/.test(m.subject ?? ''), tokenIn(m)]),
      [[true, booked.manageToken]],
    );
    assert.match(String(first[0]?.text), line(`Pay by: ${utcInstant(booked.payment.expiresAt)}`));
    await fetch(booked.payment.checkoutUrl, { redirect: 'manual' });
    const mails = await mailsTo(customer.email);
    assert.equal(mails.length, 2);
    assert.match(String(mails[1]?.subject), /is confirmed$/);

    // Cancelled at its link: one mail, saying the money went back, with the link still.
    expectStatus(await manage(booked.manageToken, 'cancel'), 200);
    const [, , cancellation, ...rest] = await mailsTo(customer.email);
    assert.deepEqual(rest, []);
    assert.match(String(cancellation?.subject), /is cancelled$/);
    assert.match(String(cancellation?.text), /^Your payment has been refunded in full\.$/m);
    assert.equal(tokenIn(cancellation), booked.manageToken);
  });

  test('a walk-in booked by staff gets a link of its own, only by mail; it is in no export, and a row without a sealed token mails none', async () => {
    const customer = customerOf('Walk');
    const booked = expectStatus(
      await as(t.app, owner).post('/api/reservations', { ...nextSlot(room.id), customer }),
      201,
    );
    assert.equal(booked.manageToken, undefined, 'staff see no token');
    const [confirmation] = await mailsTo(customer.email);
    const token = tokenIn(confirmation);
    assert.ok(token, 'the confirmation carries a manage link');
    assert.equal(expectStatus(await manage(token), 200).id, booked.id);
    assert.deepEqual(await columnsContaining(t.db, token), []);
    const exported = await t.app.inject({ method: 'GET', url: `${PRIVACY}/export`, headers: owner.auth });
    const doc = parseExport(exported);
    assert.ok(
      doc.data.reservations.some((r: { id: number }) => r.id === booked.id),
      'the export has it',
    );
    assert.equal(exported.body.includes(token), false, 'but not its token');

    // A reservation stored before tokens were sealed: its mails carry no link, and still go.
    await t.db.kysely
      .updateTable('reservations')
      .set({ manageTokenSealed: null })
      .where('id', '=', booked.id)
      .execute();
    expectStatus(await as(t.app, owner).post(`/api/reservations/${booked.id}/cancel`), 200);
    const mails = await mailsTo(customer.email);
    assert.deepEqual(
      mails.map((m) => [m.subject?.replace(/ on .* is /, ' is '), tokenIn(m)]),
      [
        ['Mail Studio: your booking is confirmed', token],
        ['Mail Studio: your booking is cancelled', null],
      ],
    );
    assert.doesNotMatch(String(mails[1]?.text), /Manage your booking/);
  });

  test("a waitlist offer mails the entry's manage link and its deadline; confirming it there mails the confirmation", async () => {
    const slot = nextSlot(classRoom.id);
    const first = customerOf('First');
    const booked = expectStatus(
      await as(t.app, owner).post('/api/reservations', { ...slot, customer: first }),
      201,
    );
    const waiter = customerOf('Wendy');
    const entry = expectStatus(await publicPost('waitlist', { ...slot, customer: waiter }), 201);
    expectStatus(await as(t.app, owner).post(`/api/reservations/${booked.id}/cancel`), 200);
    await t.app.services.waitlist.processOffers();
    const [offer, ...more] = await mailsTo(waiter.email);
    assert.deepEqual(more, [], 'one mail: the offer, not its hold');
    assert.match(String(offer?.subject), /^Mail Studio: a time you waited for is free on /);
    assert.equal(tokenIn(offer), entry.manageToken);
    const held = expectStatus(await manage(entry.manageToken), 200);
    assert.equal(held.status, 'held');
    assert.match(String(offer?.text), line(`Confirm by: ${utcInstant(held.expiresAt)}`));

    expectStatus(await manage(entry.manageToken, 'confirm'), 200);
    const mails = await mailsTo(waiter.email);
    assert.deepEqual(
      mails.map((m) => tokenIn(m)),
      [entry.manageToken, entry.manageToken],
    );
    assert.match(String(mails[1]?.subject), /is confirmed$/);
    assert.deepEqual(await columnsContaining(t.db, entry.manageToken), []);
    // The first customer's booking was cancelled: that is their second mail.
    assert.deepEqual(
      (await mailsTo(first.email)).map((m) => /is (confirmed|cancelled)$/.exec(m.subject ?? '')?.[1]),
      ['confirmed', 'cancelled'],
    );
  });
});
