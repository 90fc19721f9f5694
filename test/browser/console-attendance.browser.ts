// Attendance on the console's reservation detail (reservation-attendance.tsx) in a real browser:
// a reservation not yet started offers no marking; once started (its times moved into the past
// in the database), staff mark it no-show, then attended, and the customer's counts follow.
// And a type's reminders set in its editor, a bad one refused on the field. axe-core at 360 and
// 1280 px. Run with `npm run test:browser`.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  type BrowserApp,
  checkAtBothWidths,
  problemsOf,
  registerThroughPages,
  signedInApi,
  startBrowserApp,
} from '../helpers/browser.js';

describe('console: attendance (browser)', () => {
  let app: BrowserApp;

  before(async () => {
    app = await startBrowserApp();
  });
  after(() => app?.close());

  test('staff mark a started reservation no-show, then attended; the counts follow', async () => {
    const { browser, origin, t } = app;
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, locale: 'en-GB' });
    const page = await context.newPage();
    const problems = problemsOf(page);
    const person = await registerThroughPages(page, origin, {
      name: 'Ola Owner',
      organisation: 'Studio Ola',
    });
    const api = await signedInApi(origin, person);
    const type = await api('POST', '/api/resource-types', { name: 'Lesson' });
    const room = await api('POST', '/api/resources', { name: 'Room', resourceTypeId: type.id });
    const start = new Date(Date.now() + 2 * 86_400_000);
    start.setUTCHours(10, 0, 0, 0);
    const customer = { name: 'Pia Kunde', email: 'pia@example.test' };
    const booked = await api('POST', '/api/reservations', {
      resourceId: room.id,
      startTime: start.toISOString(),
      endTime: new Date(start.getTime() + 3_600_000).toISOString(),
      customer,
    });

    await page.goto(`${origin}/app/reservations/${booked.id}`);
    await page.getByRole('heading', { name: 'Attendance' }).waitFor();
    assert.match(String(await page.locator('#reservation-attendance').textContent()), /^Not marked/);
    assert.equal(await page.getByRole('button', { name: 'Mark no-show' }).count(), 0, 'not before the start');

    // Its hour as if it had passed.
    await t.db.kysely
      .updateTable('reservations')
      .set({ startTime: new Date(Date.now() - 3_600_000).toISOString(), endTime: new Date().toISOString() })
      .where('id', '=', booked.id)
      .execute();
    await page.reload();
    await page.getByRole('button', { name: 'Mark no-show' }).click();
    const line = page.locator('#reservation-attendance');
    await line.getByText('this customer: 0 attended, 1 no-show').waitFor();
    assert.match(String(await line.textContent()), /^No-show/);
    await checkAtBothWidths(page, 'console-attendance');
    await page.getByRole('button', { name: 'Mark attended' }).click();
    await line.getByText('this customer: 1 attended, 0 no-show').waitFor();
    assert.match(String(await line.textContent()), /^Attended/);
    assert.equal((await api('GET', `/api/reservations/${booked.id}`)).attendance, 'attended');
    assert.deepEqual(problems, []);
    await context.close();
  });

  test("a type's reminders are set in its editor; one out of range is refused on the field", async () => {
    const { browser, origin } = app;
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, locale: 'en-GB' });
    const page = await context.newPage();
    const problems = problemsOf(page);
    const person = await registerThroughPages(page, origin, {
      name: 'Rea Owner',
      organisation: 'Studio Rea',
    });
    const api = await signedInApi(origin, person);
    const type = await api('POST', '/api/resource-types', { name: 'Class' });
    await page.goto(`${origin}/app/types/${type.id}`);
    const reminders = page.getByLabel(/^Reminder mails/);
    await reminders.fill('60, 5');
    await page.getByRole('button', { name: 'Save type' }).click();
    await page.getByText('Enter 15 or more.').waitFor();
    await checkAtBothWidths(page, 'console-type-reminders-refused');
    await reminders.fill('60, 1440');
    await page.getByRole('button', { name: 'Save type' }).click();
    await page.waitForURL(`${origin}/app/types`);
    const saved = (await api('GET', `/api/resource-types/${type.id}`)).reminders;
    assert.deepEqual(saved, [{ minutesBefore: 1440 }, { minutesBefore: 60 }]);
    await page.goto(`${origin}/app/types/${type.id}`);
    assert.equal(await page.getByLabel(/^Reminder mails/).inputValue(), '1440, 60');
    assert.deepEqual(problems, []);
    await context.close();
  });
});
