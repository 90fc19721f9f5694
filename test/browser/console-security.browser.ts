// Accounts in a real browser: sign up and verify the address from the mailed link (the mail
// catcher's copy), accept an invitation by email, two-factor set up with the QR code's secret
// and used to sign in (a computed code, then a recovery code), a passkey registered and used
// through a CDP virtual authenticator, a forgotten password reset from the mail, and another
// session ended from the Security page. axe-core at 360, 390 and 1280 px on each new screen.
// Run with `npm run test:browser -- test/browser/console-security.browser.ts`.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { TOTP } from 'otpauth';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { type MailCatcher, startMailCatcher } from '../../tools/emulators/mail/server.js';
import { createTestApp, freePort, type TestApp, uniqueEmail } from '../helpers/app.js';
import {
  assertAccessible,
  checkAtBothWidths,
  launchChromium,
  problemsOf,
  registerThroughPages as registerWithOrganisation,
} from '../helpers/browser.js';
import { as, expectStatus } from '../helpers/http.js';
import { memberWithRole, ownerWithOrganisation } from '../helpers/organisations.js';

const PASSWORD = 'a long enough password';

describe('account security (browser)', () => {
  let t: TestApp;
  let origin: string;
  let browser: Browser;
  let catcher: MailCatcher;

  before(async () => {
    catcher = await startMailCatcher();
    const port = await freePort();
    // A passkey's relying party is a host name: WebAuthn refuses IP addresses.
    origin = `http://localhost:${port}`;
    t = await createTestApp({
      PUBLIC_URL: origin,
      FRONTEND_URL: origin,
      SMTP_URL: catcher.smtpUrl,
      OUTBOX_POLL_MS: '100',
    });
    await t.app.listen({ port, host: '127.0.0.1' });
    browser = await launchChromium();
  });

  after(async () => {
    await browser?.close();
    await t?.close();
    await catcher?.close();
  });

  /** A page that records script errors and CSP refusals, in a context of its own. */
  async function openPage(): Promise<{ context: BrowserContext; page: Page; problems: string[] }> {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, locale: 'en-GB' });
    const page = await context.newPage();
    return { context, page, problems: problemsOf(page) };
  }

  /** The screen as it is now at 360, 390 and 1280 px: axe clean, no sideways scrolling. */
  async function checkScreen(page: Page, name: string) {
    await checkAtBothWidths(page, name);
    await page.setViewportSize({ width: 390, height: 800 });
    await assertAccessible(page, `${name} at 390 px`);
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(overflow <= 0, `${name} at 390 px: no sideways scrolling`);
    await page.setViewportSize({ width: 1280, height: 800 });
  }

  /**
   * The link to `path` (e.g. "/verify-email/") in the newest mail to `address`, once it has
   * come; never `replaced`, the link a newer mail is on its way to replace.
   */
  async function mailedLink(address: string, path: string, replaced?: string): Promise<string> {
    const pattern = new RegExp(`${origin.replace(/[.:/]/g, '\\$&')}${path}[A-Za-z0-9_-]+`);
    for (let attempt = 0; attempt < 100; attempt++) {
      await t.app.services.mail.drain();
      const mails = (await catcher.messages()).filter((m) => m.to.includes(address)).reverse();
      const link = mails.map((m) => pattern.exec(m.text ?? '')?.[0]).find(Boolean);
      if (link && link !== replaced) return link;
      await sleep(100);
    }
    throw new Error(`no mail to ${address} with a link to ${path}`);
  }

  async function signIn(page: Page, email: string, password: string) {
    await page.goto(`${origin}/app/sign-in`);
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  }

  async function registerThroughPages(page: Page, name: string): Promise<string> {
    const email = uniqueEmail('security');
    await page.goto(`${origin}/app/register`);
    await page.getByLabel('Your name').fill(name);
    await page.getByLabel('Email').fill(email);
    await page.getByLabel(/^Password/).fill(PASSWORD);
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.getByRole('heading', { name: 'Your organisations' }).waitFor();
    return email;
  }

  /** Signed in: the console's bar offers to sign out (sign-in returns to where the person was). */
  const signedIn = (page: Page) => page.getByRole('button', { name: 'Sign out' }).waitFor();

  const nav = (page: Page, name: string) =>
    page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name, exact: true }).click();

  test('sign up, verify the address from the mail, accept an invitation by email', async () => {
    const { context, page, problems } = await openPage();
    const email = await registerThroughPages(page, 'Carol Verified');
    const banner = page.getByRole('complementary', { name: 'Verify your address' });
    await banner.getByText('Check your mail').waitFor();
    await checkScreen(page, 'security-unverified-banner');

    // Invited by email before verifying: the invitation is not shown, the page says why.
    const alice = await ownerWithOrganisation(t.app, { name: 'Alice Studio' });
    expectStatus(
      await as(t.app, alice).post(`/api/organisations/${alice.organisationId}/users/assign`, {
        email,
        role: 'ADMIN',
      }),
      201,
    );
    await nav(page, 'Invitations');
    await page.getByText('show here once you have verified it').waitFor();
    assert.equal(await page.getByRole('list', { name: 'Open invitations' }).count(), 0);
    await checkScreen(page, 'security-invitations-unverified');

    // Resend, then the newest link verifies (once its mail has come: the first may be newest until then).
    const first = await mailedLink(email, '/verify-email/');
    await banner.getByRole('button', { name: 'Resend the link' }).click();
    await banner.getByText(`We sent a new link to ${email}.`).waitFor();
    const link = await mailedLink(email, '/verify-email/', first);
    await page.goto(link);
    await page.getByText('Your email address is verified.').waitFor();
    await checkScreen(page, 'security-verified');
    // The link works once.
    await page.reload();
    await page.getByRole('alert').waitFor();
    await page.getByRole('button', { name: 'Send a new link' }).waitFor();
    await checkScreen(page, 'security-verify-link-spent');

    // The mailed invitation's link: the list, accepted.
    await page.goto(`${origin}/app/invitations`);
    await page.getByRole('heading', { name: 'Invitations' }).waitFor();
    assert.equal(await banner.count(), 0);
    const list = page.getByRole('list', { name: 'Open invitations' });
    await list.getByText('Alice Studio').waitFor();
    await checkScreen(page, 'security-invitations');
    await list.getByRole('button', { name: 'Accept the invitation to Alice Studio' }).click();
    await page.getByText('You joined Alice Studio.').waitFor();
    await nav(page, 'Organisations');
    await page.locator('.org-list li', { hasText: 'Alice Studio' }).waitFor();
    assert.deepEqual(problems, []);
    await context.close();
  });

  /** A TOTP code the server has not seen yet: one step after `last`, waiting for the clock if it must. */
  async function freshCode(totp: TOTP, last: { step: number }): Promise<string> {
    for (;;) {
      const now = Math.floor(Date.now() / 30_000);
      const step = Math.max(last.step + 1, now - 1);
      // One step of drift either way; leave a second of margin before a step boundary.
      if (step <= now || (step === now + 1 && Date.now() % 30_000 < 29_000)) {
        last.step = step;
        return totp.generate({ timestamp: step * 30_000 });
      }
      await sleep(30_000 - (Date.now() % 30_000) + 100);
    }
  }

  test('two-factor: set up from the QR code page, sign in with a code and a recovery code, turn it off', async () => {
    const { context, page, problems } = await openPage();
    const email = await registerThroughPages(page, 'Tom Totp');
    await nav(page, 'Security');
    await page.getByRole('heading', { name: 'Security', level: 1 }).waitFor();
    await page.getByRole('button', { name: 'Set up two-factor' }).click();
    await page.getByRole('img', { name: /QR code/ }).waitFor();
    const secret = String(await page.locator('code.secret-text').textContent()).trim();
    await checkScreen(page, 'security-two-factor-setup');
    const totp = new TOTP({ secret, digits: 6, period: 30 });
    const last = { step: 0 };
    await page.getByLabel('Code from the app').fill(await freshCode(totp, last));
    await page.getByRole('button', { name: 'Turn on two-factor' }).click();
    const codes = page.locator('#recovery-codes code');
    await codes.first().waitFor();
    const recoveryCodes = await codes.allTextContents();
    assert.equal(recoveryCodes.length, 10);
    await checkScreen(page, 'security-recovery-codes');
    await page.getByRole('button', { name: 'I have stored them' }).click();
    await page.getByRole('button', { name: 'Turn off two-factor' }).waitFor();

    // Signing in asks for a code: a wrong one is refused in words, a computed one lets in.
    await page.getByRole('button', { name: 'Sign out' }).click();
    await signIn(page, email, PASSWORD);
    await page.getByRole('heading', { name: 'Two-factor authentication' }).waitFor();
    await checkScreen(page, 'security-second-step');
    await page.getByLabel('Code').fill('000000');
    await page.keyboard.press('Enter');
    await page.getByRole('alert').getByText('That code is not right').waitFor();
    await page.getByLabel('Code').fill(await freshCode(totp, last));
    await page.keyboard.press('Enter');
    await signedIn(page);

    // A recovery code, by keyboard alone.
    await page.getByRole('button', { name: 'Sign out' }).click();
    await signIn(page, email, PASSWORD);
    await page.getByRole('button', { name: 'Use a recovery code' }).focus();
    await page.keyboard.press('Enter');
    await page.getByLabel('Recovery code').focus();
    await page.keyboard.type(recoveryCodes[0]!);
    await page.keyboard.press('Enter');
    await signedIn(page);

    // The signed-in pages outside the console ask for it too (here a recovery code).
    const outside = await openPage();
    await outside.page.goto(`${origin}/calendar-sync`);
    await outside.page.locator('#view-signin').waitFor();
    await outside.page.getByLabel('Email').fill(email);
    await outside.page.getByLabel('Password').fill(PASSWORD);
    await outside.page.getByRole('button', { name: 'Sign in' }).click();
    const code = outside.page.getByLabel('Code of your authenticator app, or a recovery code');
    await code.waitFor();
    await checkScreen(outside.page, 'security-page-second-step');
    await code.fill(recoveryCodes[1]!);
    await outside.page.getByRole('button', { name: 'Verify' }).click();
    await outside.page.locator('#view-status').waitFor();
    assert.deepEqual(outside.problems, []);
    await outside.context.close();

    // Turned off with the password and a code.
    await nav(page, 'Security');
    const turnOff = page.getByRole('form', { name: 'Turn off two-factor' });
    await turnOff.getByLabel('Password').fill(PASSWORD);
    await turnOff.getByLabel('Code from the app').fill(await freshCode(totp, last));
    await turnOff.getByRole('button', { name: 'Turn off two-factor' }).click();
    await page.getByRole('button', { name: 'Set up two-factor' }).waitFor();
    assert.deepEqual(problems, []);
    await context.close();
  });

  /** Two-factor turned on through the Security page; answers the secret and the last step used. */
  async function turnOnTwoFactor(page: Page) {
    await nav(page, 'Security');
    await page.getByRole('button', { name: 'Set up two-factor' }).click();
    const secret = String(await page.locator('code.secret-text').textContent()).trim();
    const totp = new TOTP({ secret, digits: 6, period: 30 });
    const last = { step: 0 };
    await page.getByLabel('Code from the app').fill(await freshCode(totp, last));
    await page.getByRole('button', { name: 'Turn on two-factor' }).click();
    await page.getByRole('button', { name: 'I have stored them' }).click();
    return { totp, last };
  }

  test('requireTwoFactor: the owner turns it on once their own is on; a manager without it is told to set it up', async () => {
    const { context, page, problems } = await openPage();
    const owner = await registerWithOrganisation(page, origin, {
      name: 'Olga Owner',
      organisation: 'Strict salon',
    });
    // A manager of the owner's organisation, invited and accepted over the API.
    const login = await t.app.inject({
      method: 'POST',
      url: '/api/auth/login',
      payload: { email: owner.email, password: owner.password },
    });
    const token = login.json().accessToken as string;
    const auth = { authorization: `Bearer ${token}` };
    const organisations = await t.app.inject({ method: 'GET', url: '/api/organisations', headers: auth });
    const orgOwner = {
      ...owner,
      id: login.json().user.id as number,
      token,
      auth,
      response: login,
      organisationId: organisations.json()[0].id as number,
    };
    const manager = await memberWithRole(t.app, orgOwner, 'MANAGER');

    await nav(page, 'Profile');
    const setting = page.getByRole('form', { name: 'Two-factor for staff' });
    await setting.getByLabel('Require two-factor authentication of owners, admins and managers').check();
    await setting.getByRole('button', { name: 'Save two-factor setting' }).click();
    await setting.getByRole('alert').getByText('Turn on two-factor for your own account first').waitFor();
    await checkScreen(page, 'security-require-two-factor-refused');
    await turnOnTwoFactor(page);
    await nav(page, 'Profile');
    await setting.getByLabel('Require two-factor authentication of owners, admins and managers').check();
    await setting.getByRole('button', { name: 'Save two-factor setting' }).click();
    await setting.getByText('Saved.').waitFor();

    const other = await openPage();
    await signIn(other.page, manager.email, manager.password);
    await signedIn(other.page);
    await nav(other.page, 'Types');
    const refusal = other.page.getByRole('alert').filter({ hasText: 'requires two-factor' });
    await refusal.waitFor();
    await refusal.getByRole('link', { name: 'Set up two-factor' }).click();
    await other.page.getByRole('heading', { name: 'Security', level: 1 }).waitFor();
    assert.deepEqual(problems, []);
    await other.context.close();
    await context.close();
  });

  test('passkeys: register one with a virtual authenticator, sign in with it, delete it', async () => {
    const { context, page, problems } = await openPage();
    const cdp = await context.newCDPSession(page);
    await cdp.send('WebAuthn.enable');
    await cdp.send('WebAuthn.addVirtualAuthenticator', {
      options: {
        protocol: 'ctap2',
        transport: 'internal',
        hasResidentKey: true,
        hasUserVerification: true,
        isUserVerified: true,
      },
    });
    await registerThroughPages(page, 'Pia Passkey');
    await nav(page, 'Security');
    await page.getByLabel('Name of the new passkey (e.g. work laptop)').fill('Test laptop');
    await page.getByRole('button', { name: 'Add a passkey' }).click();
    const passkeys = page.getByRole('list', { name: 'Your passkeys' });
    await passkeys.getByText('Test laptop').waitFor();
    await checkScreen(page, 'security-passkeys');

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await checkScreen(page, 'security-sign-in');
    await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
    await signedIn(page);

    await nav(page, 'Security');
    await passkeys.getByText(/last used \d/).waitFor();
    await passkeys.getByRole('button', { name: 'Delete passkey Test laptop' }).click();
    await page.getByText('No passkeys yet.').waitFor();
    assert.deepEqual(problems, []);
    await context.close();
  });

  test('forgot password: the mailed link sets a new one, and the signed-in sessions end', async () => {
    const { context, page, problems } = await openPage();
    const email = await registerThroughPages(page, 'Fred Forgetful');
    const other = await openPage();
    await signIn(other.page, email, PASSWORD);
    await other.page.getByRole('heading', { name: 'Your organisations' }).waitFor();
    await page.getByRole('button', { name: 'Sign out' }).click();

    // From the sign-in page, by keyboard: the link, the address, Enter.
    await page.getByRole('link', { name: 'Forgot password?' }).focus();
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Forgot your password?' }).waitFor();
    await page.getByLabel('Email').focus();
    await page.keyboard.type(email);
    await page.keyboard.press('Enter');
    await page.getByText('If an account exists for that address').waitFor();
    await checkScreen(page, 'security-forgot');
    // An unknown address reads the same.
    await page.getByLabel('Email').fill(uniqueEmail('nobody'));
    await page.getByRole('button', { name: 'Send the link' }).click();
    await page.getByText('If an account exists for that address').waitFor();

    await page.goto(await mailedLink(email, '/reset-password/'));
    await page.getByRole('heading', { name: 'Set a new password' }).waitFor();
    await page.getByLabel('New password (at least 10 characters)').fill('the new long password');
    await page.getByLabel('New password again').fill('not the same password');
    await page.getByRole('button', { name: 'Set the new password' }).click();
    await page.getByText('The two passwords differ.').waitFor();
    await checkScreen(page, 'security-reset');
    await page.getByLabel('New password again').fill('the new long password');
    await page.getByRole('button', { name: 'Set the new password' }).click();
    await page.getByText('every session of your account was ended').waitFor();
    await page.getByRole('link', { name: 'Sign in with the new password' }).click();
    await signIn(page, email, 'the new long password');
    await signedIn(page);

    // The other browser's session ended with the reset: its next request signs it out.
    await nav(other.page, 'Security');
    await other.page.getByRole('heading', { name: 'Sign in' }).waitFor();
    assert.deepEqual(problems, []);
    await other.context.close();
    await context.close();
  });

  test('sessions: another device is listed and ended; it is signed out on its next request', async () => {
    const { context, page, problems } = await openPage();
    const email = await registerThroughPages(page, 'Sam Sessions');
    const other = await openPage();
    await signIn(other.page, email, PASSWORD);
    await other.page.getByRole('heading', { name: 'Your organisations' }).waitFor();

    await nav(page, 'Security');
    const sessions = page.getByRole('list', { name: 'Your sessions' });
    await sessions.getByText('This device').waitFor();
    assert.equal(await sessions.getByRole('listitem').count(), 2);
    await checkScreen(page, 'security-sessions');
    await sessions.getByRole('button', { name: /^End the session of / }).click();
    await page.getByText('Session ended.').waitFor();
    await page.waitForFunction(
      () => document.querySelectorAll('[aria-label="Your sessions"] li').length === 1,
    );

    await nav(other.page, 'Security');
    await other.page.getByRole('heading', { name: 'Sign in' }).waitFor();
    // The first stays signed in.
    await page.reload();
    await page.getByRole('heading', { name: 'Security', level: 1 }).waitFor();
    assert.deepEqual(problems, []);
    await other.context.close();
    await context.close();
  });
});
