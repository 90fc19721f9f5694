// The public booking page and the manage page in a real browser (Debian's Chromium through
// playwright-core) against a listening app and the payment emulator: a customer books a paid
// time end to end (hold, the emulator's checkout, confirmation, .ics), then moves and cancels
// it from the manage link; a free type is booked in one step by keyboard alone at 360 px. axe-core checks
// every page at 360 and 1280 px; screenshots go to test-artifacts/screenshots/ (git-ignored).
// Run with `npm run test:browser`; the web app must be built (`npm install` or `npm run build:web`).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import ICAL from 'ical.js';
import type { TestApp } from '../helpers/app.js';
import {
  assertAccessible,
  type BrowserApp,
  checkAtBothWidths,
  dayOfferingTime,
  openVisitor,
  startBrowserApp,
} from '../helpers/browser.js';
import { createResource, createType } from '../helpers/catalogue.js';
import { as, expectStatus } from '../helpers/http.js';
import { connectPayments, type OrgOwner, ownerWithOrganisation } from '../helpers/organisations.js';

const LOGO = 'https://salon.example.com/logo.svg';
const LOGO_SVG =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 56 56"><rect width="56" height="56" rx="10" fill="#7c3aed"/></svg>';
const VIEWPORTS = { narrow: { width: 360, height: 780 }, wide: { width: 1280, height: 900 } };

describe('booking page and manage page (browser)', () => {
  let app: BrowserApp;
  let t: TestApp;
  let origin: string;
  let owner: OrgOwner;
  const slug = `salon-${process.pid}`;
  let paidType: { id: number };
  let freeType: { id: number };
  let chair: { id: number };

  before(async () => {
    app = await startBrowserApp({}, { payments: true });
    ({ t, origin } = app);

    owner = await ownerWithOrganisation(t.app, {
      name: 'Salon Ute',
      slug,
      timezone: 'Europe/Berlin',
      logoUrl: LOGO,
      publicBookingHeadline: 'Book your appointment',
      publicBookingDescription: 'Cuts and colour in the old town.',
    });
    expectStatus(
      await as(t.app, owner).patch(`/api/organisations/${owner.organisationId}/color`, { color: '#7c3aed' }),
      200,
    );
    const payments = (await connectPayments(t.app, owner)).status;
    assert.equal(payments.providerConnectStatus, 'active');
    paidType = await createType(t.app, owner, {
      name: 'Haircut',
      minBookingDuration: 60,
      pricingEnabled: true,
      paymentRequired: true,
      priceAmount: 2500,
      priceCurrency: 'eur',
      customerInfoFields: ['hairLength'],
    });
    chair = await createResource(t.app, owner, { name: 'Chair 1', resourceTypeId: paidType.id });
    freeType = await createType(t.app, owner, { name: 'Consultation', minBookingDuration: 30 });
    await createResource(t.app, owner, { name: 'Desk', resourceTypeId: freeType.id });
  });

  after(() => app?.close());

  /**
   * A visitor in New York (the salon is in Berlin). Requests anywhere but this app and the
   * payment provider are refused and recorded: the pages make no third-party requests.
   */
  async function visitor(viewport = VIEWPORTS.wide) {
    const { context, page, foreign, problems } = await openVisitor(app, {
      viewport,
      timezoneId: 'America/New_York',
      locale: 'en-US',
      acceptDownloads: true,
      stubs: { [LOGO]: { contentType: 'image/svg+xml', body: LOGO_SVG } },
    });
    const catalogueFetches: string[] = [];
    page.on('request', (r) => {
      if (new URL(r.url()).pathname === `/api/public/organisations/${slug}`) catalogueFetches.push(r.url());
    });
    return { context, page, foreign, problems, catalogueFetches };
  }

  const publicGet = async (token: string) => {
    const r = await fetch(`${origin}/api/public/reservations/${token}`);
    assert.equal(r.status, 200);
    return (await r.json()) as {
      id: number;
      status: string;
      startTime: string;
      endTime: string;
      payment: { status: string } | null;
    };
  };

  test('a paid time: hold, a refused time offered again, pay at the provider, confirmation, .ics, move, cancel', async () => {
    const { context, page, foreign, problems } = await visitor();
    await page.goto(`${origin}/book/${slug}`);
    await page.getByRole('heading', { level: 1, name: 'Book your appointment' }).waitFor();
    assert.ok(await page.getByText('Cuts and colour in the old town.').isVisible());
    // Brand colour on the page's buttons, set without inline styles.
    assert.equal(
      await page.evaluate(() =>
        getComputedStyle(document.documentElement).getPropertyValue('--brand').trim(),
      ),
      '#7c3aed',
    );

    await page.getByRole('radio', { name: /Haircut/ }).check();
    assert.ok(await page.getByText('€25.00').first().isVisible());
    // The visitor's zone by default, the organisation's named and one click away.
    assert.equal(await page.getByLabel('Times shown in').inputValue(), 'America/New_York');
    assert.ok(await page.getByText('The organisation is in Europe/Berlin.').isVisible());
    const times = page.locator('button.time');
    await times.first().waitFor();
    const firstNewYork = await times.first().textContent();
    await page.getByRole('button', { name: 'Show its times' }).click();
    assert.equal(await page.getByLabel('Times shown in').inputValue(), 'Europe/Berlin');
    // Late in Berlin's evening today offers one or two times: a day offering three.
    await dayOfferingTime(page, 2);
    await checkAtBothWidths(page, 'book-times');

    // Pick a time; someone else takes it before the hold: the refusal offers other times as buttons.
    const picked = times.nth(2);
    const start = String(await picked.getAttribute('data-start'));
    await picked.click();
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByRole('heading', { name: 'Your details' }).waitFor();
    await page.getByLabel('Your name').fill('Ada Lovelace');
    await page.getByLabel('Email').fill('ada@example.test');
    await page.getByLabel('Hair length').fill('short');
    const end = new Date(Date.parse(start) + 3_600_000).toISOString();
    const taken = await fetch(`${origin}/api/public/organisations/${slug}/holds`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        resourceId: chair.id,
        startTime: start,
        endTime: end,
        customer: { name: 'Someone Else', email: 'else@example.test', hairLength: 'long' },
      }),
    });
    assert.equal(taken.status, 201, await taken.clone().text());
    await page.getByRole('button', { name: 'Hold this time' }).click();
    const refusal = page.getByRole('alert');
    await refusal.getByText('Sorry, that time is no longer free.').waitFor();
    const alternatives = refusal.getByRole('button');
    assert.ok((await alternatives.count()) >= 1, 'alternatives are offered');
    await checkAtBothWidths(page, 'book-refused');
    await alternatives.first().click();

    // Held: review, then pay at the provider's page and come back to the manage page.
    await page.getByRole('heading', { name: 'Review and pay' }).waitFor();
    assert.ok(await page.getByText(/We are holding this time for you for \d+ more minutes/).isVisible());
    await checkAtBothWidths(page, 'book-review');
    await page.getByRole('button', { name: 'Pay €25.00' }).click();
    await page.waitForURL(/\/manage\//);
    await page.getByText('Thank you: your payment was received and your booking is confirmed.').waitFor();
    assert.ok(await page.getByText('Status: Confirmed').isVisible());
    const token = new URL(page.url()).pathname.split('/').at(-1)!;
    const paid = await publicGet(token);
    assert.equal(paid.status, 'confirmed');
    assert.equal(paid.payment?.status, 'paid');
    assert.notEqual(paid.startTime, start, 'the alternative, not the taken time');
    await checkAtBothWidths(page, 'manage-confirmed');

    // The .ics holds the booked time.
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('link', { name: 'Add to calendar (.ics)' }).click(),
    ]);
    assert.equal(download.suggestedFilename(), `booking-${paid.id}.ics`);
    const ics = readFileSync((await download.path())!, 'utf8');
    const event = new ICAL.Event(new ICAL.Component(ICAL.parse(ics)).getFirstSubcomponent('vevent')!);
    assert.equal(event.startDate.toJSDate().toISOString(), new Date(paid.startTime).toISOString());
    assert.equal(event.endDate.toJSDate().toISOString(), new Date(paid.endTime).toISOString());
    assert.equal(event.summary, 'Haircut · Salon Ute');
    assert.ok(String(event.description).includes(`/manage/${token}`));

    // Move it: pick another time in the manage page.
    await page.getByRole('button', { name: 'Change time' }).click();
    await page.getByRole('heading', { name: 'Pick a new time' }).waitFor();
    const newTimes = page.locator('button.time');
    await newTimes.first().waitFor();
    let target = newTimes.first();
    for (let i = 0; i < (await newTimes.count()); i++) {
      const s = await newTimes.nth(i).getAttribute('data-start');
      if (s && Date.parse(s) !== Date.parse(paid.startTime) && Date.parse(s) > Date.parse(paid.endTime)) {
        target = newTimes.nth(i);
        break;
      }
    }
    const newStart = String(await target.getAttribute('data-start'));
    await target.click();
    await checkAtBothWidths(page, 'manage-reschedule');
    await page.getByRole('button', { name: /^Move to / }).click();
    await page.getByRole('button', { name: 'Change time' }).waitFor();
    const moved = await publicGet(token);
    assert.equal(Date.parse(moved.startTime), Date.parse(newStart));
    assert.equal(moved.id, paid.id);
    assert.equal(moved.status, 'confirmed');

    // Cancel it: a paid booking is refunded.
    await page.getByRole('button', { name: 'Cancel booking' }).click();
    assert.ok(await page.getByText('Your payment will be refunded in full.').isVisible());
    await checkAtBothWidths(page, 'manage-cancel');
    await page.getByRole('button', { name: 'Yes, cancel it' }).click();
    await page.getByText('Status: Cancelled').waitFor();
    const cancelled = await publicGet(token);
    assert.equal(cancelled.status, 'cancelled');
    assert.equal(cancelled.payment?.status, 'refunded');
    await checkAtBothWidths(page, 'manage-cancelled');

    assert.ok(firstNewYork, 'times were shown in the visitor zone first');
    assert.deepEqual(foreign, [], 'no third-party requests');
    assert.deepEqual(problems, [], 'no script errors or CSP violations');
    await context.close();
  });

  test('a free time in one step by keyboard alone at 360 px: confirmation with the manage link', async () => {
    const { context, page, foreign, problems, catalogueFetches } = await visitor(VIEWPORTS.narrow);
    await page.goto(`${origin}/book/${slug}`);
    await page.getByRole('heading', { level: 1 }).waitFor();
    // The catalogue the HTML's Link header preloaded is the one the page used: one fetch, not two.
    assert.equal(catalogueFetches.length, 1);
    const press = (key: string) => page.keyboard.press(key);
    /** Tabs forward until the focused element matches, as a keyboard user would. */
    async function tabTo(match: (el: { tag: string; text: string; label: string }) => boolean, limit = 80) {
      for (let i = 0; i < limit; i++) {
        await press('Tab');
        const el = await page.evaluate(() => {
          const a = document.activeElement as HTMLElement | null;
          return {
            tag: a?.tagName.toLowerCase() ?? '',
            text: a?.textContent?.trim() ?? '',
            label:
              a?.getAttribute('aria-label') ?? (a as HTMLInputElement | null)?.labels?.[0]?.textContent ?? '',
          };
        });
        if (match(el)) return;
      }
      assert.fail('the element was never reached by Tab');
    }

    await tabTo((el) => el.tag === 'input' && /Haircut|Consultation/.test(el.label));
    // Radios: Space picks the focused one, arrow keys move the choice.
    const focusedLabel = async () =>
      page.evaluate(() => (document.activeElement as HTMLInputElement).labels?.[0]?.textContent ?? '');
    await press((await focusedLabel()).includes('Consultation') ? 'Space' : 'ArrowDown');
    assert.ok(await page.getByRole('radio', { name: /Consultation/ }).isChecked());
    await page.locator('button.time').first().waitFor();
    // The month grid is one tab stop; arrows move between free days; Enter picks.
    await tabTo((el) => el.tag === 'button' && /free times/.test(el.label));
    await press('ArrowRight');
    await press('Enter');
    await tabTo((el) => el.tag === 'button' && /^\d{1,2}:\d{2}/.test(el.text));
    const time = await page.evaluate(() => document.activeElement?.getAttribute('data-start'));
    await press('Enter');
    await tabTo((el) => el.text === 'Continue');
    await press('Enter');
    // Focus moves to the new step's heading; the fields follow in order.
    await page.getByRole('heading', { name: 'Your details' }).waitFor();
    await tabTo((el) => el.label === 'Your name');
    await page.keyboard.type('Grace Hopper');
    await press('Tab');
    await page.keyboard.type('grace@example.test');
    // A free type books in one step: no hold to review first.
    await tabTo((el) => el.text === 'Confirm booking');
    await press('Enter');
    await page.getByRole('heading', { name: 'You are booked' }).waitFor();
    await checkAtBothWidths(page, 'book-confirmed');
    const manage = await page.getByRole('link', { name: 'Manage your booking' }).getAttribute('href');
    assert.match(String(manage), new RegExp(`^${origin}/manage/[A-Za-z0-9_-]+$`));
    const booked = await publicGet(String(manage).split('/').at(-1)!);
    assert.equal(booked.status, 'confirmed');
    assert.equal(Date.parse(booked.startTime), Date.parse(String(time)));
    // Beside the .ics, the two web calendars' add-event forms, filled in with the booked time.
    const compact = (iso: string) => `${new Date(iso).toISOString().replace(/[-:]/g, '').slice(0, 15)}Z`;
    const google = String(
      await page.getByRole('link', { name: 'Add to Google Calendar' }).getAttribute('href'),
    );
    assert.ok(google.startsWith('https://calendar.google.com/calendar/render?action=TEMPLATE&'), google);
    assert.ok(google.includes(`&dates=${compact(booked.startTime)}%2F${compact(booked.endTime)}`), google);
    const outlook = String(await page.getByRole('link', { name: 'Add to Outlook' }).getAttribute('href'));
    const seconds = (iso: string) => encodeURIComponent(`${new Date(iso).toISOString().slice(0, 19)}Z`);
    assert.ok(
      outlook.startsWith('https://outlook.live.com/calendar/0/action/compose?rru=addevent&'),
      outlook,
    );
    assert.ok(outlook.includes(`&startdt=${seconds(booked.startTime)}&enddt=${seconds(booked.endTime)}`));
    assert.deepEqual(foreign, []);
    assert.deepEqual(problems, []);
    await context.close();
  });

  test('an unknown organisation and an unknown manage link say so in words', async () => {
    const { context, page } = await visitor(VIEWPORTS.narrow);
    await page.goto(`${origin}/book/no-such-salon`);
    await page.getByRole('heading', { name: 'Booking page not available' }).waitFor();
    assert.ok(await page.getByText(/could not find this page/).isVisible());
    await assertAccessible(page, 'unknown organisation');
    await page.goto(`${origin}/manage/not-a-token`);
    await page.getByRole('heading', { name: 'Booking not found' }).waitFor();
    await checkAtBothWidths(page, 'manage-unknown');
    await context.close();
  });
});
