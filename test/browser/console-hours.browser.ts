// Hours per type in the console, in a real browser: the owner reads a resource's schedule on
// the Profile, sets a holiday on its type (a date refused on its field first, then saved), sees
// the type's preview say "Closed" on that date without a reload, finds the Profile's resource
// schedule already saying so when navigating back (it once stayed stale for half a minute), and
// the booking page offers nothing on that day while the days around it stay bookable. axe at
// 360 and 1280 px. Run with `npm run test:browser -- test/browser/console-hours.browser.ts`.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { addDays } from '../../frontend/src/console/week.js';
import { dayKey, formatDay } from '../../frontend/src/lib/time.js';
import type { TestApp } from '../helpers/app.js';
import {
  type BrowserApp,
  checkAtBothWidths,
  NINE_TO_FIVE,
  problemsOf,
  registerThroughPages,
  startBrowserApp,
} from '../helpers/browser.js';

const ZONE = 'Europe/Berlin';
describe('console hours (browser)', () => {
  let app: BrowserApp;
  let t: TestApp;
  let origin: string;
  let browser: Browser;

  before(async () => {
    app = await startBrowserApp();
    ({ t, origin, browser } = app);
  });

  after(() => app?.close());

  const nav = (page: Page, name: string) =>
    page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name }).click();

  test('a holiday on a type: refused date, saved, previews updated without reload, no slot that day', async () => {
    const context = await browser.newContext({
      viewport: { width: 1280, height: 800 },
      timezoneId: ZONE,
      locale: 'en-GB',
    });
    const page = await context.newPage();
    const problems = problemsOf(page);
    const slug = `hours-${process.pid}`;
    const { email, password } = await registerThroughPages(page, origin, {
      name: 'Hana Hours',
      organisation: 'Hana Nails',
      slug,
    });

    // A type open 09:00-17:00 every day and one resource of it, through the API.
    const login = await t.app.inject({
      method: 'POST',
      url: '/api/auth/login',
      payload: { email, password },
    });
    const auth = { authorization: `Bearer ${login.json().accessToken}` };
    const type = await t.app.inject({
      method: 'POST',
      url: '/api/resource-types',
      headers: auth,
      payload: { name: 'Manicure', minBookingDuration: 60, schedulePolicy: { operatingHours: NINE_TO_FIVE } },
    });
    assert.equal(type.statusCode, 201, type.body);
    const desk = await t.app.inject({
      method: 'POST',
      url: '/api/resources',
      headers: auth,
      payload: { name: 'Desk 1', resourceTypeId: type.json().id },
    });
    assert.equal(desk.statusCode, 201, desk.body);
    const holiday = addDays(dayKey(Date.now(), ZONE), 3);

    // The Profile's resource schedule is read first (and kept by the page's cache).
    await nav(page, 'Profile');
    const resolved = page.locator('section', {
      has: page.getByRole('heading', { name: "A resource's schedule" }),
    });
    const resolvedDay = resolved.locator(`[data-date="${holiday}"] td`);
    assert.equal(await resolvedDay.textContent(), '09:00–17:00');

    // The type's page: its preview shows the day open; a holiday with no date is refused on its field.
    await nav(page, 'Types');
    await page.getByRole('link', { name: 'Edit Manicure' }).click();
    await page.getByRole('heading', { name: 'Hours of this type' }).waitFor();
    const preview = page.locator('section', {
      has: page.getByRole('heading', { name: 'The coming days for this type' }),
    });
    const previewDay = preview.locator(`[data-date="${holiday}"] td`);
    assert.equal(await previewDay.textContent(), '09:00–17:00');
    assert.ok(
      await page.getByLabel("Set this type's own opening hours (otherwise the organisation's)").isChecked(),
    );
    await page.getByRole('button', { name: 'Add a date' }).click();
    assert.ok(await page.getByLabel('Closed all day (date 1)').isChecked());
    await page.getByRole('button', { name: 'Save schedule' }).click();
    const dateField = page.getByLabel('Date 1', { exact: true });
    const dateError = page.locator(`[id="e-${await dateField.getAttribute('name')}"]`);
    await dateError.waitFor();
    // The words of the page's error table, or before it the service's own.
    assert.match(String(await dateError.textContent()), /Enter a date like|must be a date YYYY-MM-DD/);
    assert.equal(await dateField.getAttribute('aria-invalid'), 'true');
    await checkAtBothWidths(page, 'console-type-hours-refused');

    // The same date twice: the second is refused in words naming it; removed, the first saves.
    await dateField.fill(holiday);
    await page.getByRole('button', { name: 'Add a date' }).click();
    const second = page.getByLabel('Date 2', { exact: true });
    await second.fill(holiday);
    await page.getByRole('button', { name: 'Save schedule' }).click();
    const secondError = page.locator(`[id="e-${await second.getAttribute('name')}"]`);
    await secondError.waitFor();
    assert.equal(
      await secondError.textContent(),
      `${formatDay(holiday, 'en-GB')} is listed more than once: keep one of them.`,
    );
    assert.equal(await dateError.count(), 0);
    await page.getByRole('button', { name: 'Remove date 2' }).click();
    await page.getByRole('button', { name: 'Save schedule' }).click();
    await page.getByText('Schedule saved.').waitFor();
    await preview
      .locator(`[data-date="${holiday}"] td`, { hasText: 'Closed (date set by its type)' })
      .waitFor();
    assert.equal(
      await preview.locator(`[data-date="${addDays(holiday, 1)}"] td`).textContent(),
      '09:00–17:00',
    );
    await checkAtBothWidths(page, 'console-type-hours');
    const stored = await t.app.inject({
      method: 'GET',
      url: `/api/resource-types/${type.json().id}`,
      headers: auth,
    });
    assert.deepEqual(stored.json().schedulePolicy.dateOverrides, [{ date: holiday, closed: true }]);

    // Back on the Profile (no reload): the resource's schedule already shows the holiday.
    await nav(page, 'Profile');
    await resolved
      .locator(`[data-date="${holiday}"] td`, { hasText: 'Closed (date set by its type)' })
      .waitFor();

    // The booking page: nothing free on the holiday; the days around it are bookable.
    await page.goto(`${origin}/book/${slug}`);
    await page.locator('table[aria-busy="false"]').waitFor();
    if ((await page.locator(`button.day[data-day="${holiday}"]`).count()) === 0) {
      await page.getByRole('button', { name: 'Next month' }).click();
      await page.locator(`button.day[data-day="${holiday}"]`).waitFor();
    }
    // The month's answer is in once some day is free.
    await page.locator('button.day:enabled').first().waitFor();
    await page.locator('table[aria-busy="false"]').waitFor();
    const day = page.locator(`button.day[data-day="${holiday}"]`);
    assert.ok(await day.isDisabled(), 'the holiday offers nothing');
    assert.match(String(await day.getAttribute('aria-label')), /nothing free$/);
    const neighbours = [addDays(holiday, -1), addDays(holiday, 1)].map((d) =>
      page.locator(`button.day[data-day="${d}"]`),
    );
    let shown = 0;
    for (const neighbour of neighbours) {
      if ((await neighbour.count()) === 0) continue;
      shown += 1;
      assert.ok(await neighbour.isEnabled(), 'the days around the holiday are bookable');
    }
    assert.ok(shown > 0, 'a day beside the holiday is in the month shown');
    assert.deepEqual(problems, []);
    await context.close();
  });
});
