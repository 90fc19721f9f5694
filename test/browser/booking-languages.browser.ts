// The customer pages in four languages and the customer's own time zone (DECISIONS.md "Booking
// everywhere"), in Debian's Chromium through playwright-core: `?lang=de` and a German browser
// both show German words and a German date, `?lang=xx` falls back without an error, the switcher
// changes the language, and an organisation's defaultLocale decides for a browser the pages do not
// speak (the payment return page too speaks the language asked for); a customer in America/New_York books a slot of a Europe/Berlin organisation in the weeks
// when only the US has changed its clocks, and the time shown is the time booked; each language's
// booking, confirmation and manage pages are axe clean at 390 px.
// Run with `npm run test:browser -- test/browser/booking-languages.browser.ts` after a web build.
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import {
  assertAccessible,
  type BrowserApp,
  NINE_TO_FIVE,
  openVisitor,
  SCREENSHOTS,
  startBrowserApp,
} from '../helpers/browser.js';
import { createResource, createType } from '../helpers/catalogue.js';
import { type OrgOwner, ownerWithOrganisation } from '../helpers/organisations.js';

const HOUR = 3_600_000;
const GERMAN_DATE =
  /^(Montag|Dienstag|Mittwoch|Donnerstag|Freitag|Samstag|Sonntag), \d{1,2}\. (Januar|Februar|März|April|Mai|Juni|Juli|August|September|Oktober|November|Dezember) \d{4}$/;

/** How far `zone`'s clock is ahead of UTC at `instant`, in hours ("GMT-4" is -4). */
function offsetHours(zone: string, instant: number): number {
  const name = new Intl.DateTimeFormat('en-US', { timeZone: zone, timeZoneName: 'shortOffset' })
    .formatToParts(new Date(instant))
    .find((p) => p.type === 'timeZoneName')!.value;
  const m = /GMT([+-]\d+)?(?::(\d+))?/.exec(name)!;
  return Number(m[1] ?? 0) + Math.sign(Number(m[1] ?? 0)) * (Number(m[2] ?? 0) / 60);
}

/**
 * The first day at least two days ahead on which New York is 5 hours behind Berlin, not 6 (the
 * US has changed its clocks, Europe not yet), and the day before that window (6 hours).
 */
function daylightSavingGap(now: number): { before: string; inGap: string } {
  for (let day = Math.floor(now / 86_400_000) + 2; ; day++) {
    const noon = day * 86_400_000 + 12 * HOUR;
    const gap = offsetHours('Europe/Berlin', noon) - offsetHours('America/New_York', noon);
    if (gap === 5) {
      const key = (t: number) => new Date(t).toISOString().slice(0, 10);
      return { before: key(noon - 86_400_000), inGap: key(noon) };
    }
  }
}

describe('customer pages in four languages and the customer zone (browser)', () => {
  let app: BrowserApp;
  let owner: OrgOwner;
  const slug = `sprachen-${process.pid}`;
  const typeName = 'Beratung';

  before(async () => {
    app = await startBrowserApp();
    owner = await ownerWithOrganisation(app.t.app, { name: 'Praxis Mitte', slug, timezone: 'Europe/Berlin' });
    const type = await createType(app.t.app, owner, {
      name: typeName,
      minBookingDuration: 60,
      schedulePolicy: { operatingHours: NINE_TO_FIVE },
    });
    await createResource(app.t.app, owner, { name: 'Raum 1', resourceTypeId: type.id });
  });

  after(() => app?.close());

  /** The manage link's reservation, as the API answers it. */
  async function reservationAt(manageUrl: string) {
    const token = new URL(manageUrl).pathname.split('/').at(-1);
    const r = await fetch(`${app.origin}/api/public/reservations/${token}`);
    assert.equal(r.status, 200);
    return (await r.json()) as { startTime: string; customer: Record<string, unknown> };
  }

  /** Chooses the type, then the first free day's first time, and goes on to the details. */
  async function toDetails(page: Page, continueLabel: string) {
    await page.getByRole('radio', { name: new RegExp(typeName) }).check();
    await page.locator('button.time').first().click();
    await page.locator('.actions.sticky button.primary', { hasText: continueLabel }).click();
    await page.locator('#details-heading').waitFor();
  }

  test('?lang=de and a German browser show German words and a German date; ?lang=xx falls back', async () => {
    const english = await openVisitor(app, { locale: 'en-US', timezoneId: 'Europe/Berlin' });
    await english.page.goto(`${app.origin}/book/${slug}?lang=de`);
    await english.page.getByRole('heading', { name: 'Was möchten Sie buchen?' }).waitFor();
    assert.equal(await english.page.evaluate(() => document.documentElement.lang), 'de');
    await english.page.getByRole('radio', { name: new RegExp(typeName) }).check();
    await english.page.getByRole('heading', { name: 'Wann?' }).waitFor();
    assert.match(String(await english.page.locator('#times-heading').textContent()), GERMAN_DATE);
    assert.ok(await english.page.getByText('Zeiten angezeigt in').isVisible());

    // An unknown language is passed over: the browser's (English) decides, and nothing fails.
    await english.page.goto(`${app.origin}/book/${slug}?lang=xx`);
    await english.page.getByRole('heading', { name: 'What would you like to book?' }).waitFor();
    assert.equal(await english.page.evaluate(() => document.documentElement.lang), 'en');

    // The switcher: French, kept in the address.
    await english.page.getByLabel('Language').selectOption('fr');
    await english.page.getByRole('heading', { name: 'Que souhaitez-vous réserver ?' }).waitFor();
    assert.equal(new URL(english.page.url()).searchParams.get('lang'), 'fr');
    assert.deepEqual(english.problems, []);
    await english.context.close();

    const german = await openVisitor(app, { locale: 'de-DE', timezoneId: 'Europe/Berlin' });
    await german.page.goto(`${app.origin}/book/${slug}?lang=xx`);
    await german.page.getByRole('heading', { name: 'Was möchten Sie buchen?' }).waitFor();
    await german.page.getByRole('radio', { name: new RegExp(typeName) }).check();
    assert.match(String(await german.page.locator('#times-heading').textContent()), GERMAN_DATE);
    assert.ok(await german.page.getByRole('button', { name: 'Nächster Monat' }).isVisible());
    // Only the chosen language's words were loaded.
    const catalogues = await german.page.evaluate(() =>
      performance
        .getEntriesByType('resource')
        .map((e) => new URL(e.name).pathname)
        .map((path) => /^\/assets\/pages-(\w+)-[\w-]+\.js$/.exec(path)?.[1])
        .filter(Boolean),
    );
    assert.deepEqual(catalogues, ['de']);
    assert.deepEqual(german.problems, []);
    await german.context.close();
  });

  test("a browser the pages do not speak gets the organisation's default language; the payment return speaks too", async () => {
    const spanishSlug = `idiomas-${process.pid}`;
    const spanish = await ownerWithOrganisation(app.t.app, {
      name: 'Clínica Sol',
      slug: spanishSlug,
      timezone: 'Europe/Madrid',
      defaultLocale: 'es',
    });
    const type = await createType(app.t.app, spanish, { name: 'Consulta', minBookingDuration: 30 });
    await createResource(app.t.app, spanish, { name: 'Sala', resourceTypeId: type.id });
    const { context, page, problems } = await openVisitor(app, { locale: 'ja-JP', timezoneId: 'Asia/Tokyo' });
    await page.goto(`${app.origin}/book/${spanishSlug}`);
    await page.getByRole('heading', { name: '¿Qué desea reservar?' }).waitFor();
    assert.equal(await page.evaluate(() => document.documentElement.lang), 'es');
    // The same browser on the German organisation's page: its default is en.
    await page.goto(`${app.origin}/book/${slug}`);
    await page.getByRole('heading', { name: 'What would you like to book?' }).waitFor();
    await page.goto(`${app.origin}/payment/cancelled?reservation=1&lang=de`);
    await page.getByRole('heading', { name: 'Zahlung nicht abgeschlossen' }).waitFor();
    assert.ok(await page.getByLabel('Sprache').isVisible());
    assert.deepEqual(problems, []);
    await context.close();
  });

  test('a customer in New York books a Berlin slot while only the US has changed its clocks: the time shown is the time booked', async () => {
    const { before: dayBefore, inGap } = daylightSavingGap(Date.now());
    const { context, page, problems } = await openVisitor(app, {
      locale: 'en-US',
      timezoneId: 'America/New_York',
    });
    await page.goto(`${app.origin}/book/${slug}`);
    await page.getByRole('radio', { name: new RegExp(typeName) }).check();
    // The page names both zones: the customer's, detected, and the organisation's.
    assert.equal(await page.getByLabel('Times shown in').inputValue(), 'America/New_York');
    await page.getByText('The organisation is in Europe/Berlin.').waitFor();

    const day = (key: string) => page.locator(`button.day[data-day="${key}"]`);
    /** Turns the months on until `key` is in the one shown, then opens that day. */
    const openDay = async (key: string) => {
      for (let turns = 0; (await day(key).count()) === 0; turns++) {
        assert.ok(turns < 24, `${key} within two years`);
        await page.getByRole('button', { name: 'Next month' }).click();
      }
      await day(key).click();
    };
    // Berlin opens at 09:00: 03:00 in New York with both on winter time, 04:00 once the US changed.
    await openDay(dayBefore);
    assert.equal(await page.locator('button.time').first().textContent(), '03:00 AM');
    await openDay(inGap);
    const first = page.locator('button.time').first();
    const shown = String(await first.textContent());
    assert.equal(shown, '04:00 AM');
    await first.click();
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByLabel('Your name').fill('Ada Lovelace');
    await page.getByLabel('Email').fill('ada@example.test');
    await page.getByRole('button', { name: 'Confirm booking' }).click();
    await page.getByRole('heading', { name: 'You are booked' }).waitFor();
    const manageUrl = String(await page.locator('a.manage-link').getAttribute('href'));
    const booked = await reservationAt(manageUrl);

    // What was shown, read back in New York's offset that day (UTC-4), is the instant booked ...
    const [, hh, mm] = /^(\d\d):(\d\d) AM$/.exec(shown)!;
    const shownInstant =
      Date.parse(`${inGap}T${hh}:${mm}:00Z`) -
      offsetHours('America/New_York', Date.parse(`${inGap}T12:00:00Z`)) * HOUR;
    assert.equal(booked.startTime, new Date(shownInstant).toISOString());
    // ... which is 09:00 in Berlin (still UTC+1).
    assert.equal(booked.startTime, `${inGap}T08:00:00.000Z`);
    assert.equal(booked.customer.timeZone, 'America/New_York');
    assert.equal(booked.customer.locale, 'en');
    // The confirmation says the same time, in the customer's zone.
    const when = String(await page.locator('.summary dd').nth(1).textContent());
    assert.match(when, /4:00 AM – 05:00 AM \(America\/New York\)/);
    assert.deepEqual(problems, []);
    await context.close();
  });

  for (const [language, words] of [
    ['en', { continue: 'Continue', book: 'Confirm booking', name: 'Your name' }],
    ['de', { continue: 'Weiter', book: 'Buchung bestätigen', name: 'Ihr Name' }],
    ['fr', { continue: 'Continuer', book: 'Confirmer la réservation', name: 'Votre nom' }],
    ['es', { continue: 'Continuar', book: 'Confirmar la reserva', name: 'Su nombre' }],
  ] as const) {
    test(`in ${language}: the booking, confirmation and manage pages are axe clean at 390 px`, async () => {
      const { context, page, problems } = await openVisitor(app, {
        viewport: { width: 390, height: 844 },
        locale: 'en-GB',
        timezoneId: 'Europe/Berlin',
      });
      await page.goto(`${app.origin}/book/${slug}?lang=${language}`);
      await page.locator('#what-heading').waitFor();
      assert.equal(await page.evaluate(() => document.documentElement.lang), language);
      await page.getByRole('radio', { name: new RegExp(typeName) }).check();
      await page.locator('button.time').first().waitFor();
      await assertAccessible(page, `${language}: choosing a time`);
      mkdirSync(SCREENSHOTS, { recursive: true });
      await page.screenshot({ path: join(SCREENSHOTS, `booking-${language}-390.png`), fullPage: true });
      await toDetails(page, words.continue);
      await assertAccessible(page, `${language}: the details`);
      await page.getByLabel(words.name).fill('Grace Hopper');
      await page.locator('#f-email').fill(`grace-${language}@example.test`);
      await page.getByRole('button', { name: words.book }).click();
      await page.locator('#done-heading').waitFor();
      await assertAccessible(page, `${language}: the confirmation`);
      const manageUrl = String(await page.locator('a.manage-link').getAttribute('href'));
      assert.equal((await reservationAt(manageUrl)).customer.locale, language);
      // The manage link keeps the language asked for.
      assert.equal(new URL(manageUrl, app.origin).searchParams.get('lang'), language);
      await page.locator('a.manage-link').click();
      await page.locator('.summary').waitFor();
      assert.equal(await page.evaluate(() => document.documentElement.lang), language);
      await assertAccessible(page, `${language}: the manage page`);
      await page.screenshot({ path: join(SCREENSHOTS, `manage-${language}-390.png`), fullPage: true });
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      assert.ok(overflow <= 0, `${language}: no sideways scrolling at 390 px`);
      assert.deepEqual(problems, []);
      await context.close();
    });
  }
});
