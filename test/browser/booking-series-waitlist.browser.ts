// A weekly series and the waitlist on the booking page and the manage page, in a real browser
// (Debian's Chromium through playwright-core) against a listening app (SQLite): a customer
// checks a weekly series of 3 (a taken date is named, with the times free instead), books it,
// and sees 3 dates with their links; one date's link shows the series and cancels all of it.
// A customer whose time is taken joins its waitlist, sees the place in line at the manage link,
// gets the offer when the time frees and confirms it; another asks for the taken time through
// the page, then leaves the waitlist. axe-core at 360 and 1280 px on each new view.
// Run with `node scripts/run-browser-tests.mjs test/browser/booking-series-waitlist.browser.ts`
// after `npm run build:web`.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { localOf } from '../../frontend/src/lib/time.js';
import type { TestApp } from '../helpers/app.js';
import {
  type BrowserApp,
  checkAtBothWidths,
  dayOfferingTime,
  openVisitor,
  startBrowserApp,
} from '../helpers/browser.js';
import { createResource, createType } from '../helpers/catalogue.js';
import { as, expectStatus } from '../helpers/http.js';
import { type OrgOwner, ownerWithOrganisation } from '../helpers/organisations.js';

const VISITOR_ZONE = 'America/New_York';

describe('series and waitlist on the booking and manage pages (browser)', () => {
  let app: BrowserApp;
  let t: TestApp;
  let origin: string;
  let owner: OrgOwner;
  const slug = `studio-${process.pid}`;
  let classType: { id: number };
  let studio: { id: number };
  let court: { id: number };

  before(async () => {
    app = await startBrowserApp({ PUBLIC_RATE_LIMIT_MAX: '1000' });
    ({ t, origin } = app);
    owner = await ownerWithOrganisation(t.app, { name: 'Studio Nord', slug, timezone: 'Europe/Berlin' });
    classType = await createType(t.app, owner, {
      name: 'Weekly class',
      minBookingDuration: 60,
      recurringEnabled: true,
    });
    studio = await createResource(t.app, owner, { name: 'Studio', resourceTypeId: classType.id });
    const courtType = await createType(t.app, owner, {
      name: 'Tennis court',
      minBookingDuration: 60,
      waitlistEnabled: true,
    });
    court = await createResource(t.app, owner, { name: 'Court 1', resourceTypeId: courtType.id });
  });

  after(() => app?.close());

  /** A visitor in New York; requests anywhere but this app are refused and recorded. */
  const visitor = () =>
    openVisitor(app, { viewport: { width: 1280, height: 800 }, timezoneId: VISITOR_ZONE, locale: 'en-US' });

  /**
   * Picks the `index`th offered time of the first day (in the coming weeks) that offers that
   * many, of the type named `typeName`; answers its start.
   */
  async function pickTime(page: Page, typeName: string, index: number): Promise<string> {
    await page.goto(`${origin}/book/${slug}`);
    await page.getByRole('radio', { name: new RegExp(typeName) }).check();
    const times = await dayOfferingTime(page, index);
    const start = String(await times.nth(index).getAttribute('data-start'));
    await times.nth(index).click();
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByRole('heading', { name: 'Your details' }).waitFor();
    return start;
  }

  const hour = (start: string, hours = 1) => new Date(Date.parse(start) + hours * 3_600_000).toISOString();
  const publicJson = async (path: string, init?: RequestInit) => {
    const r = await fetch(`${origin}${path}`, init);
    assert.ok(r.ok, `${path}: ${r.status} ${await r.clone().text()}`);
    return r.json();
  };

  test('a weekly series of 3: a taken date named, the dates checked, booked with a link each; one link cancels the series', async () => {
    const { context, page, foreign, problems } = await visitor();
    const start = await pickTime(page, 'Weekly class', 2);
    await page.getByLabel('Your name').fill('Ada Lovelace');
    await page.getByLabel('Email').fill('ada@example.test');
    await page.getByLabel('How often').selectOption('weekly');
    await page.getByLabel(/Number of weeks/).fill('3');

    // Someone has the second week's time: the dry run names that date and books nothing.
    const preview = (await publicJson(`/api/public/organisations/${slug}/reservations?dryRun=true`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        resourceId: studio.id,
        startTime: start,
        endTime: hour(start),
        customer: { name: 'Probe', email: 'probe@example.test' },
        recurrence: ['RRULE:FREQ=WEEKLY;COUNT=3'],
      }),
    })) as { wouldSucceed: boolean; reservations: { startTime: string; endTime: string }[] };
    assert.equal(preview.wouldSucceed, true);
    const second = preview.reservations[1]!;
    const blocker = expectStatus(
      await as(t.app, owner).post('/api/reservations', {
        resourceId: studio.id,
        startTime: second.startTime,
        endTime: second.endTime,
        customer: { name: 'Someone Else', email: 'else@example.test' },
      }),
      201,
    );
    await page.getByRole('button', { name: 'Check the dates' }).click();
    const refusal = page.getByRole('alert');
    await refusal.getByText('One date does not fit, so nothing was booked:').waitFor();
    const secondWords = await page.evaluate(
      ([at, zone]) => {
        const d = new Date(at!);
        return new Intl.DateTimeFormat('en-US', { timeZone: zone, day: 'numeric', month: 'long' }).format(d);
      },
      [second.startTime, VISITOR_ZONE],
    );
    assert.match(String(await refusal.locator('ul.conflicts li').textContent()), new RegExp(secondWords));
    assert.equal(await refusal.locator('ul.conflicts li').count(), 1);
    await checkAtBothWidths(page, 'series-conflict');

    // The time is free again: the dates are listed, then booked.
    expectStatus(await as(t.app, owner).post(`/api/reservations/${blocker.id}/cancel`), 200);
    await page.getByRole('button', { name: 'Check the dates' }).click();
    await page.getByRole('heading', { name: 'Check the dates' }).waitFor();
    assert.equal(await page.locator('ol.series-dates li').count(), 3);
    assert.ok(await page.getByText('Weekly class, every week, 3 times.', { exact: false }).isVisible());
    await checkAtBothWidths(page, 'series-preview');
    await page.getByRole('button', { name: 'Book the series' }).click();
    await page.getByRole('heading', { name: 'Your series is booked' }).waitFor();
    assert.ok(
      await page
        .getByText(/each one manages its own date .* and can also cancel the whole series/)
        .isVisible(),
    );
    const links = page.getByRole('link', { name: /^Manage / });
    assert.equal(await links.count(), 3);
    const hrefs = await links.evaluateAll((as) => as.map((a) => a.getAttribute('href') ?? ''));
    for (const href of hrefs) assert.match(href, new RegExp(`^${origin}/manage/[A-Za-z0-9_-]+$`));
    assert.equal(new Set(hrefs).size, 3, 'a link per date');
    await checkAtBothWidths(page, 'series-booked');
    const tokens = hrefs.map((h) => h.split('/').at(-1)!);
    const booked = (await publicJson(`/api/public/reservations/${tokens[0]}/series`)) as {
      reservations: { status: string; startTime: string }[];
    };
    assert.deepEqual(
      booked.reservations.map((r) => [Date.parse(r.startTime), r.status]),
      preview.reservations.map((r) => [Date.parse(r.startTime), 'confirmed']),
    );

    // The second date's link: the series' dates, this one marked; cancel them all.
    await page.goto(hrefs[1]!);
    await page.getByRole('heading', { name: 'Every date of this series' }).waitFor();
    const dates = page.locator('.series ol.series-dates li');
    assert.equal(await dates.count(), 3);
    assert.match(String(await dates.nth(1).textContent()), /\(this booking\)/);
    assert.equal(await page.locator('.series li[aria-current="true"]').count(), 1);
    await checkAtBothWidths(page, 'manage-series');
    await page.getByRole('button', { name: 'Cancel the whole series' }).click();
    await page.getByRole('heading', { name: 'Cancel every date of this series?' }).waitFor();
    await checkAtBothWidths(page, 'manage-series-cancel');
    await page.getByRole('button', { name: 'Yes, cancel the series' }).click();
    await page.getByText('Status: Cancelled').waitFor();
    await page.locator('.series li', { hasText: 'Confirmed' }).first().waitFor({ state: 'detached' });
    assert.equal(await page.locator('.series li', { hasText: 'Cancelled' }).count(), 3);
    assert.equal(await page.getByRole('button', { name: 'Cancel the whole series' }).count(), 0);
    for (const token of tokens)
      assert.equal(
        ((await publicJson(`/api/public/reservations/${token}`)) as { status: string }).status,
        'cancelled',
      );

    assert.deepEqual(foreign, [], 'no third-party requests');
    assert.deepEqual(problems, [], 'no script errors or CSP violations');
    await context.close();
  });

  test('a taken time: join its waitlist, see the place, another asks and leaves, the offer arrives and is confirmed', async () => {
    const { context, page, foreign, problems } = await visitor();
    const start = await pickTime(page, 'Tennis court', 1);
    await page.getByLabel('Your name').fill('Grace Hopper');
    await page.getByLabel('Email').fill('grace@example.test');
    // Someone takes the time before the hold.
    const blocker = expectStatus(
      await as(t.app, owner).post('/api/reservations', {
        resourceId: court.id,
        startTime: start,
        endTime: hour(start),
        customer: { name: 'Someone Else', email: 'else@example.test' },
      }),
      201,
    );
    await page.getByRole('button', { name: 'Confirm booking' }).click();
    await page.getByRole('alert').getByText('Sorry, that time is no longer free.').waitFor();
    const join = page.getByRole('button', { name: 'Join the waitlist for this time' });
    await checkAtBothWidths(page, 'waitlist-offer-to-join');
    await join.click();
    await page.getByRole('heading', { name: 'You are on the waitlist' }).waitFor();
    assert.ok(await page.getByText('You are first in line for this time.').isVisible());
    await checkAtBothWidths(page, 'waitlist-joined');
    const manageUrl = String(
      await page.getByRole('link', { name: 'Manage your waitlist place' }).getAttribute('href'),
    );
    assert.match(manageUrl, new RegExp(`^${origin}/manage/[A-Za-z0-9_-]+$`));
    const token = manageUrl.split('/').at(-1)!;
    const entry = (await publicJson(`/api/public/waitlist/${token}`)) as {
      status: string;
      startTime: string;
    };
    assert.equal(entry.status, 'waiting');
    assert.equal(Date.parse(entry.startTime), Date.parse(start), 'the time that was taken');

    // A second customer asks for a time through the page (a taken time is offered by no slot).
    const other = await visitor();
    await other.page.goto(`${origin}/book/${slug}`);
    await other.page.getByRole('radio', { name: /Tennis court/ }).check();
    await other.page.locator('button.time').first().waitFor();
    /** Asks for the time starting at `at` through the page's waitlist form. */
    async function ask(at: string) {
      await other.page.getByText('The time you want is taken? Join its waitlist').click();
      const [day, clock] = localOf(at, VISITOR_ZONE).split('T') as [string, string];
      await other.page.getByLabel('Day', { exact: true }).fill(day);
      await other.page.getByLabel('Time', { exact: true }).fill(clock);
    }
    // First a time that is free: there is nothing to wait for, it can be held instead.
    await ask(hour(start));
    await other.page.getByRole('button', { name: 'Wait for this time' }).click();
    await other.page.getByRole('heading', { name: 'Your details' }).waitFor();
    await other.page.getByLabel('Your name').fill('Alan Turing');
    await other.page.getByLabel('Email').fill('alan@example.test');
    await other.page.getByRole('button', { name: 'Join the waitlist', exact: true }).click();
    await other.page
      .getByRole('alert')
      .getByText('This time is free again, so there is no need to wait')
      .waitFor();
    assert.ok(
      await other.page.getByRole('alert').getByRole('button', { name: 'Book this time' }).isVisible(),
    );
    await other.page.getByRole('button', { name: 'Change' }).click();
    await other.page.locator('button.time').first().waitFor();
    await ask(start);
    await checkAtBothWidths(other.page, 'waitlist-ask');
    await other.page.getByRole('button', { name: 'Wait for this time' }).click();
    await other.page.getByRole('heading', { name: 'Your details' }).waitFor();
    assert.equal(await other.page.getByLabel('Your name').inputValue(), 'Alan Turing', 'details are kept');
    await other.page.getByRole('button', { name: 'Join the waitlist', exact: true }).click();
    await other.page.getByRole('heading', { name: 'You are on the waitlist' }).waitFor();
    assert.ok(await other.page.getByText('You are number 2 in line for this time.').isVisible());
    const otherUrl = String(
      await other.page.getByRole('link', { name: 'Manage your waitlist place' }).getAttribute('href'),
    );

    // The first customer's link: the place in line.
    await page.goto(manageUrl);
    await page.getByRole('heading', { name: 'Your waitlist place' }).waitFor();
    assert.ok(await page.getByText('Status: On the waitlist').isVisible());
    assert.ok(await page.getByText('You are first in line for this time.').isVisible());
    await checkAtBothWidths(page, 'waitlist-manage-waiting');

    // The second leaves, after a confirm step.
    await other.page.goto(otherUrl);
    await other.page.getByText('You are number 2 in line for this time.').waitFor();
    await other.page.getByRole('button', { name: 'Leave the waitlist' }).click();
    await other.page.getByRole('heading', { name: 'Leave the waitlist?' }).waitFor();
    await checkAtBothWidths(other.page, 'waitlist-manage-leave');
    await other.page.getByRole('button', { name: 'Yes, leave it' }).click();
    await other.page.getByText('Status: You left the waitlist').waitFor();
    assert.equal(await other.page.getByRole('button', { name: 'Leave the waitlist' }).count(), 0);
    const left = (await publicJson(`/api/public/waitlist/${otherUrl.split('/').at(-1)}`)) as {
      status: string;
    };
    assert.equal(left.status, 'left');
    assert.deepEqual(other.foreign, []);
    assert.deepEqual(other.problems, []);
    await other.context.close();

    // The time frees: the offer is a held reservation at the same link, confirmed there.
    expectStatus(await as(t.app, owner).post(`/api/reservations/${blocker.id}/cancel`), 200);
    await t.app.services.waitlist.processOffers();
    await page.reload();
    await page
      .getByText(/Good news from the waitlist: this time became free and is held for you until /)
      .waitFor();
    assert.ok(await page.getByText('Status: Held for you, not yet confirmed').isVisible());
    await checkAtBothWidths(page, 'waitlist-manage-offer');
    await page.getByRole('button', { name: 'Confirm booking' }).click();
    await page.getByText('Status: Confirmed').waitFor();
    assert.equal(await page.getByText(/Good news from the waitlist/).count(), 0);
    const confirmed = (await publicJson(`/api/public/reservations/${token}`)) as {
      status: string;
      startTime: string;
    };
    assert.equal(confirmed.status, 'confirmed');
    assert.equal(Date.parse(confirmed.startTime), Date.parse(start));
    await t.app.services.waitlist.processOffers();
    assert.equal(
      ((await publicJson(`/api/public/waitlist/${token}`)) as { status: string }).status,
      'accepted',
    );

    assert.deepEqual(foreign, [], 'no third-party requests');
    assert.deepEqual(problems, [], 'no script errors or CSP violations');
    await context.close();
  });
});
