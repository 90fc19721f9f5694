// The manage link a customer mail carries, opened in a real browser (Debian's Chromium through
// playwright-core) against a listening app, the bundled mail catcher and the payment emulator:
// a free booking's confirmation and a paid booking's "complete your payment" each link to the
// manage page, which shows that booking (and, unpaid, its payment). The bookings are made
// through the public API the booking page calls, so this file tests the mails and the manage
// page, whatever the booking page's steps. Run with `npm run test:browser`.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { type MailCatcher, startMailCatcher } from '../../tools/emulators/mail/server.js';
import type { TestApp } from '../helpers/app.js';
import { at, futureMonday } from '../helpers/booking.js';
import { assertAccessible, type BrowserApp, problemsOf, startBrowserApp } from '../helpers/browser.js';
import { createResource, createType } from '../helpers/catalogue.js';
import { connectPayments, ownerWithOrganisation } from '../helpers/organisations.js';

describe('the manage link of a customer mail (browser)', () => {
  let app: BrowserApp;
  let t: TestApp;
  let catcher: MailCatcher;
  let origin: string;
  let browser: Browser;
  const slug = `mailed-${process.pid}`;
  const mon = futureMonday();
  let desk: { id: number };
  let table: { id: number };

  before(async () => {
    catcher = await startMailCatcher();
    app = await startBrowserApp({ SMTP_URL: catcher.smtpUrl }, { payments: true });
    ({ t, origin, browser } = app);
    const owner = await ownerWithOrganisation(t.app, { name: 'Studio Mira', slug, timezone: 'UTC' });
    await connectPayments(t.app, owner);
    const free = await createType(t.app, owner, { name: 'Consultation' });
    desk = await createResource(t.app, owner, { name: 'Desk', resourceTypeId: free.id });
    const paid = await createType(t.app, owner, {
      name: 'Massage',
      pricingEnabled: true,
      paymentRequired: true,
      priceAmount: 4000,
      priceCurrency: 'eur',
    });
    table = await createResource(t.app, owner, { name: 'Table', resourceTypeId: paid.id });
  });

  after(async () => {
    await app?.close();
    await catcher?.close();
  });

  /** Books through the public API as the booking page does; answers the booking. */
  async function book(path: 'reservations' | 'holds', resourceId: number, hour: number, email: string) {
    const response = await fetch(`${origin}/api/public/organisations/${slug}/${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        resourceId,
        startTime: at(mon, hour),
        endTime: at(mon, hour + 1),
        customer: { name: 'Noor Haddad', email },
      }),
    });
    assert.equal(response.status, 201, await response.clone().text());
    return (await response.json()) as { id: number; reference: string; manageToken: string };
  }

  /** The only mail to `email`, once the drain has sent it; answers the manage link it carries. */
  async function manageLinkMailedTo(email: string, subject: RegExp): Promise<string> {
    await t.app.services.mail.drain();
    const mails = (await catcher.messages()).filter((m) => m.envelope.to.includes(email));
    assert.equal(mails.length, 1, `one mail to ${email}`);
    assert.match(String(mails[0]?.subject), subject);
    const href = /<a href="([^"]+\/manage\/[^"]+)"/.exec(String(mails[0]?.html))?.[1];
    assert.ok(href, 'the mail has a manage link');
    return href;
  }

  test("a free booking's confirmation links to the manage page showing it", async () => {
    const booked = await book('reservations', desk.id, 9, 'noor@example.test');
    const href = await manageLinkMailedTo('noor@example.test', /is confirmed$/);
    assert.equal(href, `${origin}/manage/${booked.manageToken}`);

    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    const problems = problemsOf(page);
    await page.goto(href);
    await page.getByText('Status: Confirmed').waitFor();
    assert.ok(await page.getByText(booked.reference).isVisible(), 'its reference');
    // The service's name comes with the organisation's catalogue, read beside the booking.
    await page.getByText('Consultation').first().waitFor();
    assert.ok(await page.getByRole('button', { name: 'Cancel booking' }).isVisible());
    await assertAccessible(page, 'manage page from the confirmation mail');
    assert.deepEqual(problems, []);
    await context.close();
  });

  test('a paid hold\'s "complete your payment" links to the manage page, which offers the payment', async () => {
    const held = await book('holds', table.id, 11, 'omar@example.test');
    const confirmed = await fetch(`${origin}/api/public/reservations/${held.manageToken}/confirm`, {
      method: 'POST',
    });
    assert.equal(confirmed.status, 200);
    const { payment } = (await confirmed.json()) as { payment: { checkoutUrl: string } };
    const href = await manageLinkMailedTo('omar@example.test', /complete your payment/);
    assert.equal(href, `${origin}/manage/${held.manageToken}`);

    const context = await browser.newContext({ viewport: { width: 360, height: 780 } });
    const page = await context.newPage();
    const problems = problemsOf(page);
    await page.goto(href);
    await page.getByText('Status: Waiting for payment').waitFor();
    assert.ok(await page.getByText(held.reference).isVisible());
    assert.equal(await page.getByRole('link', { name: 'Pay now' }).getAttribute('href'), payment.checkoutUrl);
    await assertAccessible(page, 'manage page from the payment mail');
    assert.deepEqual(problems, []);
    await context.close();
  });
});
