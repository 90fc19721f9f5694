// Staff booking with a type's own customer fields and booking questions in a real browser
// (reservation-new.tsx, reservation-customer.tsx): each question asked by its kind, required
// ones unmarked and the others "(optional)"; a required question and a required field left
// empty refused on their own fields, nothing booked; then booked, the detail lists the answers
// under their questions' labels, and an answer whose question was removed since under its id.
// axe-core at 360 and 1280 px. Run with `npm run test:browser`.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { addDays } from '../../frontend/src/console/week.js';
import { dayKey } from '../../frontend/src/lib/time.js';
import {
  type BrowserApp,
  checkAtBothWidths,
  problemsOf,
  registerThroughPages,
  signedInApi,
  startBrowserApp,
} from '../helpers/browser.js';

const QUESTIONS = [
  { id: 'reason', label: 'What brings you in?', kind: 'text', required: true },
  { id: 'room', label: 'Room size', kind: 'select', required: true, options: ['Small', 'Large'] },
  { id: 'firstVisit', label: 'First visit', kind: 'checkbox', required: false },
  { id: 'history', label: 'Anything we should know', kind: 'textarea', required: false },
  { id: 'referral', label: 'How did you hear of us?', kind: 'text', required: false },
];

/** The detail's summary as term → description. */
const summaryOf = (page: Page) =>
  page.locator('dl.summary').evaluate((dl) => {
    const out: Record<string, string> = {};
    for (const dt of Array.from(dl.querySelectorAll('dt')))
      out[String(dt.textContent)] = String(dt.nextElementSibling?.textContent);
    return out;
  });

describe('console: staff booking with booking questions (browser)', () => {
  let app: BrowserApp;
  let origin: string;
  let browser: Browser;

  before(async () => {
    app = await startBrowserApp();
    ({ origin, browser } = app);
  });

  after(() => app?.close());

  test('questions asked by kind, refused on their field, answers listed under their labels', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, locale: 'en-GB' });
    const page = await context.newPage();
    const problems = problemsOf(page);
    const person = await registerThroughPages(page, origin, {
      name: 'Dora Desk',
      organisation: 'Clinic Dora',
    });
    const api = await signedInApi(origin, person);
    const type = await api('POST', '/api/resource-types', {
      name: 'Consultation',
      minBookingDuration: 30,
      customerInfoFields: ['licencePlate'],
      questions: QUESTIONS,
    });
    await api('POST', '/api/resources', { name: 'Room A', resourceTypeId: type.id });
    const zone = (await api('GET', '/api/organisations'))[0].timezone;

    await page
      .getByRole('navigation', { name: 'Console' })
      .getByRole('link', { name: 'Reservations' })
      .click();
    await page.getByRole('link', { name: 'New booking' }).click();
    await page.getByRole('heading', { name: 'New booking' }).waitFor();
    await page.getByLabel('Type', { exact: true }).selectOption({ label: 'Consultation' });
    await page.getByLabel('Day', { exact: true }).fill(addDays(dayKey(Date.now(), zone), 1));
    const firstFree = page.locator('#f-startTime option:not([value=""])').first();
    await firstFree.waitFor({ state: 'attached' });
    const start = String(await firstFree.getAttribute('value'));
    await page.getByLabel('Time', { exact: true }).selectOption(start);

    // Each question by its kind; required ones unmarked, the others "(optional)".
    const questions = page.getByRole('group', { name: "Consultation's questions" });
    const reason = questions.getByLabel('What brings you in?', { exact: true });
    const room = questions.getByLabel('Room size', { exact: true });
    const firstVisit = questions.getByLabel('First visit (optional)', { exact: true });
    const history = questions.getByLabel('Anything we should know (optional)', { exact: true });
    const referral = questions.getByLabel('How did you hear of us? (optional)', { exact: true });
    const plate = page.getByLabel('Licence plate', { exact: true });
    assert.deepEqual(
      await Promise.all(
        [reason, room, firstVisit, history, referral, plate].map((control) =>
          control.evaluate((el) => `${el.tagName.toLowerCase()} ${el.getAttribute('type') ?? ''}`.trim()),
        ),
      ),
      ['input text', 'select', 'input checkbox', 'textarea', 'input text', 'input text'],
    );
    assert.deepEqual(
      await Promise.all(
        [reason, room, firstVisit, history, plate].map((c) =>
          c.evaluate((el) => (el as HTMLInputElement).required),
        ),
      ),
      [true, true, false, false, true],
    );
    assert.deepEqual(await room.locator('option').allTextContents(), ['Choose one', 'Small', 'Large']);

    // The required question and the type's own field left empty: refused on each, nothing booked.
    await page.getByLabel('Name', { exact: true }).fill('Pia Phone');
    await page.getByLabel('Email', { exact: true }).fill('pia@example.test');
    await room.selectOption('Large');
    await firstVisit.check();
    await history.fill('Knee surgery in 2020\nNo allergies');
    await referral.fill('A friend');
    await page.getByRole('button', { name: 'Book it' }).click();
    const reasonError = page.locator('[id="e-customer.answers.reason"]');
    await reasonError.waitFor();
    assert.ok(String(await reasonError.textContent()).trim(), 'the refusal has words');
    assert.equal(await reason.getAttribute('aria-invalid'), 'true');
    assert.equal(await reason.getAttribute('aria-describedby'), 'e-customer.answers.reason');
    assert.equal(await plate.getAttribute('aria-invalid'), 'true');
    assert.equal(await page.locator('[id="e-customer.licencePlate"]').count(), 1);
    assert.equal(await room.getAttribute('aria-invalid'), null, 'an answered question is not refused');
    await page.getByRole('alert').getByText('Please check the highlighted fields.').waitFor();
    assert.equal((await api('GET', '/api/reservations')).items.length, 0);
    await checkAtBothWidths(page, 'console-answers-refused');

    await reason.fill('Back pain');
    await plate.fill('B-AB 123');
    await page.getByRole('button', { name: 'Book it' }).click();
    await page.getByRole('heading', { name: /^Reservation [A-Z0-9]{8}$/ }).waitFor();
    await page.locator('dl.summary dt', { hasText: 'What brings you in?' }).waitFor();
    const id = Number(new URL(page.url()).pathname.split('/').at(-1));
    const booked = await api('GET', `/api/reservations/${id}`);
    assert.equal(booked.startTime, new Date(start).toISOString());
    assert.equal(booked.customer.licencePlate, 'B-AB 123');
    assert.deepEqual(booked.customer.answers, {
      reason: 'Back pain',
      room: 'Large',
      firstVisit: true,
      history: 'Knee surgery in 2020\nNo allergies',
      referral: 'A friend',
    });
    const summary = await summaryOf(page);
    assert.deepEqual(
      [
        summary.Customer,
        summary['Licence plate'],
        summary['What brings you in?'],
        summary['Room size'],
        summary['First visit'],
        summary['Anything we should know'],
        summary['How did you hear of us?'],
      ],
      [
        'Pia Phone',
        'B-AB 123',
        'Back pain',
        'Large',
        'Yes',
        'Knee surgery in 2020\nNo allergies',
        'A friend',
      ],
    );
    await checkAtBothWidths(page, 'console-answers-detail');

    // A question removed since: its answer stays, under its id.
    await api('PATCH', `/api/resource-types/${type.id}`, {
      questions: QUESTIONS.filter((q) => q.id !== 'referral'),
    });
    await page.reload();
    // Once the type is read: before it, no answer is listed under a guess.
    await page.locator('dl.summary dt', { hasText: 'What brings you in?' }).waitFor();
    const after = await summaryOf(page);
    assert.equal(after.referral, 'A friend');
    assert.equal(after['How did you hear of us?'], undefined);
    assert.equal(after['What brings you in?'], 'Back pain');
    assert.deepEqual(problems, []);
    await context.close();
  });
});
