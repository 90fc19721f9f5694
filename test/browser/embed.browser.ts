// The booking page embedded on another site (DECISIONS.md "Booking everywhere", issue 53), in
// Debian's Chromium: the service on `localhost`, host pages on 127.0.0.1 ports of their own (other
// origins). A host the organisation lists embeds the page with embed.js, the frame takes the page's
// height, a customer books in it and the host hears `reservation:created` (a message on its window
// and a DOM event); a host not listed gets no page in the frame (frame-ancestors) and hears nothing.
// Run with `npm run test:browser -- test/browser/embed.browser.ts` after a web build.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { freePort } from '../helpers/app.js';
import {
  assertAccessible,
  type BrowserApp,
  dayOfferingTime,
  problemsOf,
  registerThroughPages,
  startBrowserApp,
} from '../helpers/browser.js';
import { createResource, createType } from '../helpers/catalogue.js';
import { connectPayments, ownerWithOrganisation } from '../helpers/organisations.js';

/** A host site's page: some text, the snippet, and a record of what it heard. */
const hostPage = (service: string, slug: string) => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Host site</title></head>
<body>
<h1>Welcome to the host site</h1>
<script src="${service}/embed.js" data-slug="${slug}" async></script>
<p>Text after the booking page.</p>
<script>
  window.heard = [];
  window.addEventListener('message', (e) => {
    if (e.source === window) window.heard.push({ via: 'message', origin: e.origin, data: e.data });
  });
  for (const type of ['reservation:created', 'reservation:held', 'reservation:paid'])
    document.addEventListener(type, (e) => window.heard.push({ via: 'dom', type: e.type, detail: e.detail }));
</script>
</body></html>`;

/** Serves the host page on 127.0.0.1:`port`; answers the server. */
async function hostSite(port: number, html: string): Promise<Server> {
  const server = createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(html);
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return server;
}

interface Heard {
  via: 'message' | 'dom';
  origin?: string;
  type?: string;
  data?: { type: string; reservation: Record<string, unknown> };
  detail?: Record<string, unknown>;
}

const heardBy = (page: Page) => page.evaluate(() => (window as unknown as { heard: Heard[] }).heard);

describe('the booking page embedded on another site (browser)', () => {
  let app: BrowserApp;
  const slug = `embedded-${process.pid}`;
  let listed: { server: Server; origin: string };
  let unlisted: { server: Server; origin: string };

  before(async () => {
    app = await startBrowserApp({}, { host: 'localhost', payments: true });
    const [listedPort, unlistedPort] = [await freePort(), await freePort()];
    const html = hostPage(app.origin, slug);
    listed = { server: await hostSite(listedPort, html), origin: `http://127.0.0.1:${listedPort}` };
    unlisted = { server: await hostSite(unlistedPort, html), origin: `http://127.0.0.1:${unlistedPort}` };
    const owner = await ownerWithOrganisation(app.t.app, {
      name: 'Embedded Studio',
      slug,
      timezone: 'Europe/Berlin',
      embedOrigins: [listed.origin],
    });
    const type = await createType(app.t.app, owner, { name: 'Consultation', minBookingDuration: 30 });
    await createResource(app.t.app, owner, { name: 'Desk', resourceTypeId: type.id });
    assert.equal((await connectPayments(app.t.app, owner)).status.providerConnectStatus, 'active');
    const paid = await createType(app.t.app, owner, {
      name: 'Portrait session',
      minBookingDuration: 60,
      pricingEnabled: true,
      paymentRequired: true,
      priceAmount: 4000,
      priceCurrency: 'eur',
    });
    await createResource(app.t.app, owner, { name: 'Studio A', resourceTypeId: paid.id });
  });

  after(async () => {
    listed?.server.close();
    unlisted?.server.close();
    await app?.close();
  });

  test('a listed site embeds the page, which takes its height; a booking in it is heard by the host', async () => {
    const context = await app.browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    const problems = problemsOf(page);
    await page.goto(listed.origin);
    // The frame stands where the script tag is: between the heading and the text after it.
    const order = await page.evaluate(() =>
      [...document.body.children].map((el) => el.tagName.toLowerCase()).filter((tag) => tag !== 'script'),
    );
    assert.deepEqual(order, ['h1', 'iframe', 'p']);
    const frame = page.frameLocator('iframe');
    await frame.getByRole('radio', { name: /Consultation/ }).check();

    // The frame is as tall as the page in it (no scroll bar inside, no gap below).
    const iframe = page.locator('iframe');
    const heights = async () => ({
      frame: (await iframe.boundingBox())?.height ?? 0,
      page: await frame.locator('body').evaluate((body) => body.getBoundingClientRect().height),
    });
    await page.waitForFunction(() => document.querySelector('iframe')?.style.height !== '640px');
    await assert.doesNotReject(async () => {
      for (let tries = 0; ; tries++) {
        const h = await heights();
        if (Math.abs(h.frame - Math.ceil(h.page)) <= 1) return;
        assert.ok(tries < 50, `frame ${h.frame} px, page ${h.page} px`);
        await page.waitForTimeout(100);
      }
    });

    const inFrame = page.frames().find((f) => f.url().startsWith(`${app.origin}/book/`));
    assert.ok(inFrame, 'the booking page is in the frame');
    const times = await dayOfferingTime(inFrame, 0);
    const start = String(await times.first().getAttribute('data-start'));
    await times.first().click();
    await frame.getByRole('button', { name: 'Continue' }).click();
    await frame.getByLabel('Your name').fill('Ada Lovelace');
    await frame.getByLabel('Email', { exact: true }).fill('ada@example.test');
    await frame.getByRole('button', { name: 'Confirm booking' }).click();
    await frame.getByRole('heading', { name: 'You are booked' }).waitFor();

    await page.waitForFunction(() => (window as unknown as { heard: Heard[] }).heard.length >= 2);
    const heard = await heardBy(page);
    const message = heard.find((h) => h.via === 'message' && h.data?.type === 'reservation:created');
    assert.ok(message?.data, JSON.stringify(heard));
    // Re-posted by embed.js on the host's own window: the host's origin, the four fields only.
    assert.equal(message.origin, listed.origin);
    const reservation = message.data.reservation;
    assert.deepEqual(Object.keys(reservation).sort(), ['endTime', 'id', 'startTime', 'status']);
    assert.equal(reservation.status, 'confirmed');
    assert.equal(Date.parse(String(reservation.startTime)), Date.parse(start));
    const dom = heard.find((h) => h.via === 'dom' && h.type === 'reservation:created');
    assert.deepEqual(dom?.detail, reservation);
    assert.equal(heard.filter((h) => h.data?.type?.startsWith('reservation:')).length, 1, 'heard once');

    assert.deepEqual(problems, []);
    await context.close();
  });

  test('a paid time in the frame: held, paid in a tab of its own, and the host hears each', async () => {
    const context = await app.browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    const problems = problemsOf(page);
    await page.goto(listed.origin);
    const frame = page.frameLocator('iframe');
    await frame.getByRole('radio', { name: /Portrait session/ }).check();
    const inFrame = page.frames().find((f) => f.url().startsWith(`${app.origin}/book/`));
    assert.ok(inFrame);
    const times = await dayOfferingTime(inFrame, 0);
    await times.first().click();
    await frame.getByRole('button', { name: 'Continue' }).click();
    await frame.getByLabel('Your name').fill('Grace Hopper');
    await frame.getByLabel('Email', { exact: true }).fill('grace@example.test');
    await frame.getByRole('button', { name: 'Hold this time' }).click();
    await frame.getByRole('heading', { name: 'Review and pay' }).waitFor();
    await page.waitForFunction(() => (window as unknown as { heard: Heard[] }).heard.length >= 2);
    const held = (await heardBy(page)).find((h) => h.via === 'message')?.data;
    assert.equal(held?.type, 'reservation:held');
    assert.equal(held.reservation.status, 'held');

    // The provider's checkout (and the way back) opens in a tab of its own; the frame stays.
    const [checkout] = await Promise.all([
      context.waitForEvent('page'),
      frame.getByRole('button', { name: 'Pay €40.00' }).click(),
    ]);
    // Back from the provider in that tab (which holds no manage token of the frame's: the page says where to look).
    await checkout.waitForURL(new RegExp(`^${app.origin}/payment/complete`));
    await frame.getByRole('heading', { name: 'You are booked' }).waitFor();
    await page.waitForFunction(() => (window as unknown as { heard: Heard[] }).heard.length >= 4);
    const paid = (await heardBy(page)).filter((h) => h.via === 'message').at(-1)?.data;
    assert.equal(paid?.type, 'reservation:paid');
    assert.equal(paid.reservation.id, held.reservation.id);
    assert.equal(paid.reservation.status, 'confirmed');
    assert.deepEqual(problems, []);
    await context.close();
  });

  test('the console’s Embed screen: the snippet to paste, the sites (a refused line named), the language', async () => {
    const context = await app.browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    const problems = problemsOf(page);
    const ownSlug = `console-embed-${process.pid}`;
    await registerThroughPages(page, app.origin, { name: 'Eve', organisation: 'Eve’s Shop', slug: ownSlug });
    await page.getByRole('link', { name: 'Embed', exact: true }).click();
    await page.getByRole('heading', { name: 'Embed the booking page' }).waitFor();
    assert.equal(
      await page.locator('#embed-snippet').textContent(),
      `<script src="${app.origin}/embed.js" data-slug="${ownSlug}" async></script>`,
    );
    const origins = page.getByLabel('Origins, one a line (at most 10)');
    await origins.fill('https://Shop.Example.com\nhttp://shop.example.com\nhttps://shop.example.com/book');
    await page.getByRole('button', { name: 'Save sites' }).click();
    const refused = page.getByRole('alert');
    await refused.getByText(/^Line 2 \(http:\/\/shop\.example\.com\): must be an https origin/).waitFor();
    assert.ok(await refused.getByText(/^Line 3 .*: must be an origin without a path/).isVisible());
    await assertAccessible(page, 'embed screen with refusals');
    await origins.fill('https://Shop.Example.com\nhttp://localhost:5173');
    await page.getByRole('button', { name: 'Save sites' }).click();
    await page.getByRole('status').getByText('Saved.').waitFor();
    assert.equal(await origins.inputValue(), 'https://shop.example.com\nhttp://localhost:5173');
    const booking = await fetch(`${app.origin}/book/${ownSlug}`);
    assert.match(
      String(booking.headers.get('content-security-policy')),
      /frame-ancestors https:\/\/shop\.example\.com http:\/\/localhost:5173;/,
    );
    await assertAccessible(page, 'embed screen saved');
    await page.getByLabel('Booking page and customer mails').selectOption({ label: 'Deutsch' });
    await page.getByRole('button', { name: 'Save language' }).click();
    await page.getByRole('status').filter({ hasText: 'Saved.' }).nth(1).waitFor();
    const shown = await fetch(`${app.origin}/api/public/organisations/${ownSlug}`);
    const { organisation } = (await shown.json()) as { organisation: { defaultLocale: string } };
    assert.equal(organisation.defaultLocale, 'de');
    assert.deepEqual(problems, []);
    await context.close();
  });

  test('a site not listed gets no booking page in its frame and hears nothing', async () => {
    const context = await app.browser.newContext();
    const page = await context.newPage();
    const refusals: string[] = [];
    page.on('console', (m) => {
      if (/frame-ancestors/.test(m.text())) refusals.push(m.text());
    });
    const bookingLoaded: string[] = [];
    page.on('response', (r) => {
      if (new URL(r.url()).pathname === `/book/${slug}`)
        bookingLoaded.push(String(r.headers()['content-security-policy']));
    });
    await page.goto(unlisted.origin);
    await page.waitForFunction(() => document.querySelector('iframe') !== null);
    for (let tries = 0; refusals.length === 0; tries++) {
      assert.ok(tries < 50, 'the browser refuses the frame');
      await page.waitForTimeout(100);
    }
    assert.match(refusals[0]!, new RegExp(`frame-ancestors ${listed.origin.replaceAll('.', '\\.')}`));
    assert.ok(!bookingLoaded[0]?.includes(unlisted.origin), 'the page does not name this site');
    // No document of the service runs in the frame: nothing there to talk to, nothing heard.
    assert.equal(
      page.frames().some((f) => f.url().startsWith(`${app.origin}/book/`) && f !== page.mainFrame()),
      false,
    );
    await page.waitForTimeout(300);
    assert.equal(
      await page.locator('iframe').evaluate((el) => (el as HTMLIFrameElement).style.height),
      '640px',
    );
    assert.deepEqual(await heardBy(page), []);
    await context.close();
  });
});
