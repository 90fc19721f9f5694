// The booking questions editor of a type's form (/app/types/new, type-questions.tsx) in a real
// browser: questions added with their key following the label, a select's repeated choice
// refused on its own field, one moved up, one removed, the type created with exactly those
// questions, and the stored key kept when its label changes on edit. axe-core at 360 and
// 1280 px, screenshots under test-artifacts/screenshots/. Run with `npm run test:browser`.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { createTestApp, freePort, type TestApp } from '../helpers/app.js';
import { checkAtBothWidths, launchChromium, problemsOf, registerThroughPages } from '../helpers/browser.js';

describe('console: booking questions editor (browser)', () => {
  let t: TestApp;
  let origin: string;
  let browser: Browser;
  const slug = `quiz-${process.pid}`;

  before(async () => {
    const port = await freePort();
    origin = `http://127.0.0.1:${port}`;
    t = await createTestApp({ PUBLIC_URL: origin, FRONTEND_URL: origin });
    await t.app.listen({ port, host: '127.0.0.1' });
    browser = await launchChromium();
  });

  after(async () => {
    await browser?.close();
    await t?.close();
  });

  const question = (page: Page, n: number) => page.locator('.question-list > li').nth(n - 1);
  const add = async (page: Page, label: string, kind?: string) => {
    const n = (await page.locator('.question-list > li').count()) + 1;
    await page.getByRole('button', { name: 'Add question' }).click();
    // By position, not `.last()`: the row stays this one as others are added.
    const row = question(page, n);
    await row.getByLabel(`Question ${n}`, { exact: true }).fill(label);
    if (kind) await row.getByLabel('Kind', { exact: true }).selectOption({ label: kind });
    return row;
  };
  /** The questions of the organisation's only type, as the booking page reads them. */
  const publishedQuestions = async () => {
    const response = await t.app.inject({ method: 'GET', url: `/api/public/organisations/${slug}` });
    assert.equal(response.statusCode, 200, response.body);
    return response.json().resourceTypes[0].questions;
  };

  test('add, refuse, reorder and remove questions; the type keeps exactly those', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, locale: 'en-GB' });
    const page = await context.newPage();
    const problems = problemsOf(page);
    await registerThroughPages(page, origin, { name: 'Quinn Owner', organisation: 'Quiz Rooms', slug });

    await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Types' }).click();
    await page.getByRole('link', { name: 'New type' }).click();
    await page.getByLabel('Name', { exact: true }).fill('Workshop');
    await page.getByText('No questions: customers give name and email only.').waitFor();

    const company = await add(page, 'Company name');
    assert.equal(
      await company.getByLabel('Key', { exact: true }).inputValue(),
      'companyName',
      'the key follows the label',
    );
    await company.getByLabel('Key', { exact: true }).fill('company');
    await company.getByLabel('Question 1', { exact: true }).fill('Company');
    assert.equal(
      await company.getByLabel('Key', { exact: true }).inputValue(),
      'company',
      'a key written by hand stays',
    );
    await company.getByLabel('Required', { exact: true }).check();

    const size = await add(page, 'Room size', 'Choice from a list');
    await size.getByLabel('Choices (one per line)', { exact: true }).fill('Small\nSmall');
    const rules = await add(page, 'House rules', 'Checkbox (yes or no)');
    await rules.getByLabel('Required (must be ticked)', { exact: true }).check();
    await add(page, 'Temporary');

    await page.getByRole('button', { name: 'Create type' }).click();
    const optionsError = page.locator('[id="e-questions.1.options"]');
    await optionsError.waitFor();
    // The server's words, or the console's own for them (frontend/src/api/errors.ts).
    assert.match(String(await optionsError.textContent()), /each listed once|must not repeat/);
    assert.equal(
      await size.getByLabel('Choices (one per line)', { exact: true }).getAttribute('aria-invalid'),
      'true',
    );
    await checkAtBothWidths(page, 'console-type-questions-refused');

    await size.getByLabel('Choices (one per line)', { exact: true }).fill('Small\nLarge\n');
    await page.getByRole('button', { name: 'Remove question 4' }).click();
    await page.getByRole('button', { name: 'Move question 3 up' }).click();
    assert.equal(
      await question(page, 2).getByLabel('Question 2', { exact: true }).inputValue(),
      'House rules',
    );
    assert.equal(await page.getByRole('button', { name: 'Move question 1 up' }).isDisabled(), true);
    await page.getByRole('button', { name: 'Create type' }).click();
    await page.locator('.record-list li', { hasText: 'Workshop' }).waitFor();

    assert.deepEqual(await publishedQuestions(), [
      { id: 'company', label: 'Company', kind: 'text', required: true },
      { id: 'houseRules', label: 'House rules', kind: 'checkbox', required: true },
      { id: 'roomSize', label: 'Room size', kind: 'select', required: false, options: ['Small', 'Large'] },
    ]);

    // On edit: the stored questions in order; a stored key stays when its label changes.
    await page
      .locator('.record-list li', { hasText: 'Workshop' })
      .getByRole('link', { name: 'Edit Workshop' })
      .click();
    assert.equal(
      await question(page, 3).getByLabel('Choices (one per line)', { exact: true }).inputValue(),
      'Small\nLarge',
    );
    await question(page, 1).getByLabel('Question 1', { exact: true }).fill('Organisation');
    assert.equal(await question(page, 1).getByLabel('Key', { exact: true }).inputValue(), 'company');
    await checkAtBothWidths(page, 'console-type-questions');
    await page.getByRole('button', { name: 'Save type' }).click();
    await page.locator('.record-list li', { hasText: 'Workshop' }).waitFor();
    const saved = await publishedQuestions();
    assert.deepEqual(saved[0], { id: 'company', label: 'Organisation', kind: 'text', required: true });
    assert.equal(saved.length, 3);
    assert.deepEqual(problems, []);
    await context.close();
  });
});
