// The booking and manage pages as people live in them (DECISIONS.md "Pages people live in"),
// in Debian's Chromium through playwright-core against a listening app and the payment
// emulator: a paid booking started on 127.0.0.1 ends on the confirmation with its manage link,
// then is moved and cancelled with the page saying what happened; a free type books in one
// click after the details, its optional phone left out; booking questions are asked with the
// right controls and exactly the required ones marked; a refused field is explained in words
// beside it; a hold that ran out stops being offered without a reload. axe-core checks each
// state at 360 and 1280 px (screenshots under test-artifacts/screenshots/).
// Run with `npm run test:browser -- test/browser/booking-pages.browser.ts` after a web build.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import type { TestApp } from '../helpers/app.js';
import { at, futureMonday, type Question } from '../helpers/booking.js';
import {
  type BrowserApp,
  checkAtBothWidths,
  dayOfferingTime,
  openVisitor,
  startBrowserApp,
} from '../helpers/browser.js';
import { createResource, createType } from '../helpers/catalogue.js';
import { connectPayments, type OrgOwner, ownerWithOrganisation } from '../helpers/organisations.js';

const QUESTIONS: Question[] = [
  { id: 'topic', label: 'What is it about?', kind: 'text', required: true },
  { id: 'details', label: 'Anything else we should know', kind: 'textarea', required: false },
  { id: 'invoiceEmail', label: 'Invoice email', kind: 'email', required: false },
  { id: 'mobile', label: 'Mobile for reminders', kind: 'phone', required: false },
  { id: 'level', label: 'Your level', kind: 'select', required: true, options: ['Beginner', 'Advanced'] },
  { id: 'rules', label: 'I accept the studio rules', kind: 'checkbox', required: true },
];

describe('booking and manage pages people live in (browser)', () => {
  let app: BrowserApp;
  let t: TestApp;
  /** Where the service says it is (PUBLIC_URL), and the other loopback name a visitor may type. */
  let home: string;
  let typed: string;
  let owner: OrgOwner;
  const slug = `studio-${process.pid}`;
  let paidChair: { id: number };
  let workshopId: number;

  before(async () => {
    app = await startBrowserApp({}, { payments: true, host: 'localhost' });
    ({ t, origin: home, loopback: typed } = app);

    owner = await ownerWithOrganisation(t.app, { name: 'Studio Süd', slug, timezone: 'Europe/Berlin' });
    const payments = (await connectPayments(t.app, owner)).status;
    assert.equal(payments.providerConnectStatus, 'active');
    const paidType = await createType(t.app, owner, {
      name: 'Portrait session',
      minBookingDuration: 60,
      pricingEnabled: true,
      paymentRequired: true,
      priceAmount: 4000,
      priceCurrency: 'eur',
    });
    paidChair = await createResource(t.app, owner, { name: 'Studio A', resourceTypeId: paidType.id });
    const call = await createType(t.app, owner, {
      name: 'Phone call',
      minBookingDuration: 30,
      customerInfoFields: ['phone'],
    });
    await createResource(t.app, owner, { name: 'Line 1', resourceTypeId: call.id });
    const workshop = await createType(t.app, owner, {
      name: 'Workshop',
      minBookingDuration: 60,
      questions: QUESTIONS,
    });
    await createResource(t.app, owner, { name: 'Room W', resourceTypeId: workshop.id });
    workshopId = workshop.id;
  });

  after(() => app?.close());

  /** A visitor; requests anywhere but this app (either loopback name) and the provider are refused. */
  async function visitor() {
    const { context, page, foreign, problems } = await openVisitor(app, {
      viewport: { width: 1280, height: 900 },
      timezoneId: 'Europe/Berlin',
      locale: 'en-GB',
    });
    const writes: string[] = [];
    page.on('request', (r) => {
      if (r.method() === 'POST') writes.push(new URL(r.url()).pathname);
    });
    return { context, page, foreign, writes, problems };
  }

  const publicGet = async (token: string) => {
    const r = await fetch(`${typed}/api/public/reservations/${token}`);
    assert.equal(r.status, 200);
    return (await r.json()) as {
      id: number;
      status: string;
      startTime: string;
      customer: Record<string, unknown>;
      payment: { status: string } | null;
    };
  };

  /** Opens the booking page, picks the type and the `index`th time of a day offering it, goes on. */
  async function toDetails(page: Page, typeName: string, index = 0) {
    await page.goto(`${home}/book/${slug}`);
    await page.getByRole('radio', { name: new RegExp(typeName) }).check();
    const times = await dayOfferingTime(page, index);
    const start = String(await times.nth(index).getAttribute('data-start'));
    await times.nth(index).click();
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByRole('heading', { name: 'Your details' }).waitFor();
    return start;
  }

  test('a paid booking started on 127.0.0.1 ends on the confirmation with its manage link; moved and cancelled, the page says so', async () => {
    const { context, page, foreign, problems } = await visitor();
    await page.goto(`${typed}/book/${slug}`);
    // One origin: the page moved to the service's own loopback name before anything was held.
    await page.waitForURL(`${home}/book/${slug}`);
    await page.getByRole('radio', { name: /Portrait session/ }).check();
    const times = await dayOfferingTime(page, 0);
    await times.first().click();
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByLabel('Your name').fill('Ada Lovelace');
    await page.getByLabel('Email', { exact: true }).fill('ada@example.test');
    await page.getByRole('button', { name: 'Hold this time' }).click();
    await page.getByRole('heading', { name: 'Review and pay' }).waitFor();
    await page.getByRole('button', { name: 'Pay €40.00' }).click();
    await page.waitForURL(new RegExp(`^${home}/manage/`));
    await page.getByText('Thank you: your payment was received and your booking is confirmed.').waitFor();
    const manage = page.getByRole('link', { name: 'Manage your booking' });
    assert.equal(await manage.getAttribute('href'), page.url(), 'the manage link is this page');
    const token = page.url().split('/').at(-1)!;
    const paid = await publicGet(token);
    assert.equal(paid.payment?.status, 'paid');
    await checkAtBothWidths(page, 'pages-paid-confirmed');

    // Moved: the page names the new time.
    await page.getByRole('button', { name: 'Change time' }).click();
    const newTimes = page.locator('button.time');
    await newTimes.first().waitFor();
    let target = newTimes.first();
    for (let i = 0; i < (await newTimes.count()); i++) {
      const s = await newTimes.nth(i).getAttribute('data-start');
      if (s && Date.parse(s) !== Date.parse(paid.startTime)) {
        target = newTimes.nth(i);
        break;
      }
    }
    const label = String(await target.textContent()).trim();
    await target.click();
    await page.getByRole('button', { name: /^Move to / }).click();
    const moved = page.getByRole('status').filter({ hasText: 'Your booking was moved to' });
    await moved.waitFor();
    assert.ok((await moved.textContent())?.includes(label), `the new time ${label} is named`);
    await checkAtBothWidths(page, 'pages-moved');

    // Cancelled: the page says the payment was refunded.
    await page.getByRole('button', { name: 'Cancel booking' }).click();
    await page.getByRole('button', { name: 'Yes, cancel it' }).click();
    await page
      .getByRole('status')
      .filter({ hasText: 'Your booking is cancelled. Your payment of €40.00 was refunded in full' })
      .waitFor();
    assert.equal((await publicGet(token)).payment?.status, 'refunded');
    await checkAtBothWidths(page, 'pages-cancelled-refunded');
    assert.deepEqual(foreign, []);
    assert.deepEqual(problems, []);
    await context.close();
  });

  test("the console's link to one type opens with that type chosen, the tab named by type and organisation", async () => {
    const { context, page, problems } = await visitor();
    await page.goto(`${home}/book/${slug}?type=${workshopId}`);
    const workshop = page.getByRole('radio', { name: /Workshop/ });
    await workshop.waitFor();
    assert.equal(await workshop.isChecked(), true);
    assert.equal(await page.getByRole('radio', { name: /Portrait session/ }).isChecked(), false);
    assert.match(await page.title(), /^Workshop · /);
    await page.goto(`${home}/book/${slug}`);
    await page.getByRole('radio', { name: /Workshop/ }).waitFor();
    assert.equal(
      await page.getByRole('radio', { name: /Workshop/ }).isChecked(),
      false,
      'no type without the link',
    );
    assert.deepEqual(problems, []);
    await context.close();
  });

  test('a free booking is one click after the details, its optional phone left out', async () => {
    const { context, page, writes, problems } = await visitor();
    const start = await toDetails(page, 'Phone call');
    const phone = page.getByLabel('Phone (optional)');
    assert.equal(await phone.getAttribute('required'), null, 'the phone the type lists stays optional');
    assert.equal(await phone.getAttribute('maxlength'), '50');
    assert.equal(await page.getByLabel('Your name').getAttribute('maxlength'), '200');
    assert.equal(await page.getByLabel('Notes (optional)').getAttribute('maxlength'), '2000');
    await page.getByLabel('Your name').fill('Grace Hopper');
    await page.getByLabel('Email', { exact: true }).fill('grace@example.test');
    writes.length = 0;
    await page.getByRole('button', { name: 'Confirm booking' }).click();
    await page.getByRole('heading', { name: 'You are booked' }).waitFor();
    assert.deepEqual(writes, [`/api/public/organisations/${slug}/reservations`], 'one request books it');
    const href = String(await page.getByRole('link', { name: 'Manage your booking' }).getAttribute('href'));
    assert.match(href, new RegExp(`^${home}/manage/[A-Za-z0-9_-]+$`));
    const booked = await publicGet(href.split('/').at(-1)!);
    assert.equal(booked.status, 'confirmed');
    assert.equal(Date.parse(booked.startTime), Date.parse(start));
    assert.equal(booked.customer.phone, undefined);
    await checkAtBothWidths(page, 'pages-free-booked');
    assert.deepEqual(problems, []);
    await context.close();
  });

  test('questions are asked with their own controls, exactly the required ones required; refusals in words beside the field', async () => {
    const { context, page, problems } = await visitor();
    await toDetails(page, 'Workshop');
    assert.equal(await page.getByRole('textbox', { name: 'What is it about?', exact: true }).count(), 1);
    const details = page.getByLabel('Anything else we should know (optional)');
    assert.equal(await details.evaluate((el) => el.tagName), 'TEXTAREA');
    assert.equal(await page.getByLabel('Invoice email (optional)').getAttribute('type'), 'email');
    assert.equal(await page.getByLabel('Mobile for reminders (optional)').getAttribute('type'), 'tel');
    assert.equal(await page.getByRole('combobox', { name: 'Your level' }).count(), 1);
    assert.equal(await page.getByRole('checkbox', { name: 'I accept the studio rules' }).count(), 1);
    const marks = await page.locator('form input, form select, form textarea').evaluateAll((all) =>
      all.map((el) => ({
        label: (el as HTMLInputElement).labels?.[0]?.textContent ?? '',
        required: (el as HTMLInputElement).required,
      })),
    );
    assert.deepEqual(
      marks.filter((m) => m.required).map((m) => m.label),
      ['Your name', 'Email', 'What is it about?', 'Your level', 'I accept the studio rules'],
    );
    for (const m of marks.filter((m) => !m.required)) assert.match(m.label, / \(optional\)$/, m.label);
    await checkAtBothWidths(page, 'pages-questions');

    // An address the browser takes and the service does not: words beside the field, not Zod's.
    await page.getByLabel('Your name').fill('Alan Turing');
    await page.getByLabel('Email', { exact: true }).fill('alan@example');
    await page.getByLabel('What is it about?').fill('Portraits in daylight');
    await page.getByRole('combobox', { name: 'Your level' }).selectOption('Advanced');
    await page.getByRole('checkbox', { name: 'I accept the studio rules' }).check();
    await page.getByLabel('Invoice email (optional)').fill('billing@example');
    await page.getByRole('button', { name: 'Confirm booking' }).click();
    const email = page.getByLabel('Email', { exact: true });
    const emailError = page.locator('#e-f-email');
    await emailError.waitFor();
    assert.equal(await emailError.textContent(), 'Enter an email address like name@example.com.');
    assert.equal(await email.getAttribute('aria-describedby'), 'e-f-email');
    assert.equal(await email.getAttribute('aria-invalid'), 'true');
    assert.ok(!/expected|received|Invalid/.test(await page.locator('main').innerText()));
    await checkAtBothWidths(page, 'pages-field-error');

    // The address mended, the invoice address is refused next: beside its question.
    await email.fill('alan@example.test');
    await page.getByRole('button', { name: 'Confirm booking' }).click();
    const invoiceError = page.locator('#e-q-invoiceEmail');
    await invoiceError.waitFor();
    assert.equal(await invoiceError.textContent(), 'Enter an email address like name@example.com.');
    assert.equal(await email.getAttribute('aria-invalid'), null);
    await page.getByLabel('Invoice email (optional)').fill('billing@example.test');
    await page.getByRole('button', { name: 'Confirm booking' }).click();
    await page.getByRole('heading', { name: 'You are booked' }).waitFor();
    const href = String(await page.getByRole('link', { name: 'Manage your booking' }).getAttribute('href'));
    const booked = await publicGet(href.split('/').at(-1)!);
    assert.deepEqual(booked.customer.answers, {
      topic: 'Portraits in daylight',
      invoiceEmail: 'billing@example.test',
      level: 'Advanced',
      rules: true,
    });
    assert.deepEqual(problems, []);
    await context.close();
  });

  test('a hold that ran out stops offering "Confirm and pay" without a reload', async () => {
    const monday = futureMonday();
    const hold = await fetch(`${typed}/api/public/organisations/${slug}/holds`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        resourceId: paidChair.id,
        startTime: at(monday, 20),
        endTime: at(monday, 21),
        customer: { name: 'Someone', email: 'someone@example.test' },
      }),
    });
    assert.equal(hold.status, 201, await hold.clone().text());
    const { id, manageToken } = (await hold.json()) as { id: number; manageToken: string };
    const { context, page, problems } = await visitor();
    await page.goto(`${home}/manage/${manageToken}`);
    await page.getByText('Status: Held for you, not yet confirmed').waitFor();
    await page.evaluate(() => Object.assign(window, { samePage: true }));
    // The hold runs out while the page is open.
    await t.db.kysely
      .updateTable('reservations')
      .set({ expiresAt: new Date(Date.now() - 60_000).toISOString() })
      .where('id', '=', id)
      .execute();
    await page.getByRole('button', { name: 'Confirm and pay' }).click();
    await page.getByRole('alert').getByText('The time we held for you has run out.').waitFor();
    await page.getByText(/^Status: Expired/).waitFor();
    assert.equal(await page.getByRole('button', { name: 'Confirm and pay' }).count(), 0);
    assert.equal(await page.getByText('Held for you, not yet confirmed').count(), 0);
    assert.equal(await page.evaluate(() => (window as unknown as { samePage?: boolean }).samePage), true);
    assert.ok(await page.getByRole('link', { name: 'Make a new booking' }).isVisible());
    await checkAtBothWidths(page, 'pages-hold-expired');
    assert.deepEqual(problems, []);
    await context.close();
  });
});
