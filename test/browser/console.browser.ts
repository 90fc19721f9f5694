// The console (/app) in a real browser: a person registers, creates organisations and
// switches the active one, signs out and in again, and a reload resumes the session through
// the refresh cookie and its CSRF header. axe-core at 360 and 1280 px, screenshots under
// test-artifacts/screenshots/. Run with `npm run test:browser`.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { type TestApp, uniqueEmail } from '../helpers/app.js';
import { type BrowserApp, checkAtBothWidths, problemsOf, startBrowserApp } from '../helpers/browser.js';
import { as, expectStatus } from '../helpers/http.js';
import { ownerWithOrganisation } from '../helpers/organisations.js';

describe('console (browser)', () => {
  let app: BrowserApp;
  let t: TestApp;
  let origin: string;
  let browser: Browser;

  before(async () => {
    app = await startBrowserApp();
    ({ t, origin, browser } = app);
  });

  after(() => app?.close());

  test('register, create organisations, switch the active one; sign out and in; a reload keeps the session', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    const problems = problemsOf(page);
    const email = uniqueEmail('console');
    const password = 'a long enough password';

    await page.goto(`${origin}/app`);
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    assert.equal(new URL(page.url()).pathname, '/app/sign-in');
    await checkAtBothWidths(page, 'console-sign-in');
    await page.getByRole('link', { name: 'Create an account' }).click();
    await page.getByLabel('Your name').fill('Ute Owner');
    await page.getByLabel('Email').fill(email);
    // The API's refusal lands on its field, in its words.
    await page.getByLabel(/^Password/).fill('short');
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.locator('#e-password').waitFor();
    assert.match(String(await page.locator('#e-password').textContent()), /at least 10 characters/);
    await checkAtBothWidths(page, 'console-register-refused');
    await page.getByLabel(/^Password/).fill(password);
    await page.getByRole('button', { name: 'Create account' }).click();

    await page.getByRole('heading', { name: 'Your organisations' }).waitFor();
    await page.getByText('You do not belong to an organisation yet.').waitFor();
    await page.getByLabel('Name', { exact: true }).fill('Salon Ute');
    await page.getByLabel(/Booking page address/).fill(`salon-ute-${process.pid}`);
    await page.getByRole('button', { name: 'Create organisation' }).click();
    await page.getByText('Salon Ute', { exact: true }).waitFor();
    // The plan allows one owned organisation: a second is refused in words.
    await page.getByLabel('Name', { exact: true }).fill('Barber Two');
    await page.getByRole('button', { name: 'Create organisation' }).click();
    await page.getByRole('alert').waitFor();
    assert.equal(await page.locator('.org-list li').count(), 1);

    // Invited into another organisation (accepted over the API), the person switches to it.
    const other = await ownerWithOrganisation(t.app, { name: 'Barber Two' });
    const me = await (
      await fetch(`${origin}/api/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email, password }),
      })
    ).json();
    expectStatus(
      await as(t.app, other).post(`/api/organisations/${other.organisationId}/users/assign`, {
        userId: me.user.id,
        role: 'MANAGER',
      }),
      201,
    );
    const accepted = await fetch(`${origin}/api/organisations/${other.organisationId}/invitation/accept`, {
      method: 'POST',
      headers: { authorization: `Bearer ${me.accessToken}` },
    });
    assert.equal(accepted.status, 200);
    await page.reload();
    const second = page.locator('.org-list li', { hasText: 'Barber Two' });
    await second.waitFor();
    assert.equal(await page.locator('.org-list li', { hasText: 'Salon Ute' }).getByText('Active').count(), 1);
    await second.getByRole('button', { name: 'Make active' }).click();
    await second.getByText('Active').waitFor();
    await checkAtBothWidths(page, 'console-organisations');
    assert.equal(
      await page.getByRole('link', { name: `/book/salon-ute-${process.pid}` }).getAttribute('href'),
      `/book/salon-ute-${process.pid}`,
    );

    // A reload: the access token was in memory only; the refresh cookie and CSRF header bring it back.
    await page.reload();
    await page.getByRole('heading', { name: 'Your organisations' }).waitFor();
    await page.locator('.org-list li', { hasText: 'Barber Two' }).getByText('Active').waitFor();

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await page.reload();
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill('not the password');
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.getByRole('alert').waitFor();
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.getByRole('heading', { name: 'Your organisations' }).waitFor();
    // The heading renders before the list's query answers: wait for the list, then count it.
    await page.locator('.org-list li', { hasText: 'Barber Two' }).getByText('Active').waitFor();
    assert.equal(await page.locator('.org-list li').count(), 2);
    assert.deepEqual(problems, []);
    await context.close();
  });
});
