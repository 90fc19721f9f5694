// Teams in the console, in a real browser: a pool type's assignment strategy and a resource's
// weight and daily cap set on their forms (a weight out of range refused at its field), a pool
// booking made in the console naming how its resource was picked; the troubleshooter, opened
// from the resources' list, showing a day hour by hour (a booked hour BOOKED, a closed one
// OUTSIDE_HOURS, the rest free) for one resource and for every resource of the type. axe at
// 360 and 1280 px. Run with `npm run test:browser -- test/browser/console-teams.browser.ts`.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { BrowserContext, Page } from 'playwright-core';
import { addDays } from '../../frontend/src/console/week.js';
import { dayKey, instantOf } from '../../frontend/src/lib/time.js';
import { uniqueEmail } from '../helpers/app.js';
import {
  type BrowserApp,
  checkAtBothWidths,
  type LooseApi,
  NINE_TO_FIVE,
  problemsOf,
  registerThroughPages,
  signedInApi,
  startBrowserApp,
} from '../helpers/browser.js';

const ZONE = 'Europe/Berlin';

describe('console teams (browser)', () => {
  let app: BrowserApp;
  let context: BrowserContext;
  let page: Page;
  let problems: string[];
  let zone: string;
  let api: LooseApi;
  // biome-ignore lint/suspicious/noExplicitAny: the API's answers are read loosely here
  let type: any;
  const tomorrow = () => addDays(dayKey(Date.now(), zone), 1);
  const at = (day: string, hhmm: string) => instantOf(`${day}T${hhmm}`, zone)!;
  const nav = (name: string) =>
    page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name, exact: true }).click();

  before(async () => {
    app = await startBrowserApp();
    context = await app.browser.newContext({
      viewport: { width: 1280, height: 800 },
      timezoneId: ZONE,
      locale: 'en-GB',
    });
    page = await context.newPage();
    problems = problemsOf(page);
    const person = await registerThroughPages(page, app.origin, {
      name: 'Tia Team',
      organisation: 'Team Co',
    });
    api = await signedInApi(app.origin, person);
    zone = (await api('GET', '/api/organisations'))[0].timezone;
    type = await api('POST', '/api/resource-types', {
      name: 'Consult',
      minBookingDuration: 60,
      bookingMode: 'POOL',
      schedulePolicy: { operatingHours: NINE_TO_FIVE },
    });
    await api('POST', '/api/resources', { name: 'Ana', resourceTypeId: type.id });
    await api('POST', '/api/resources', { name: 'Ben', resourceTypeId: type.id });
  });

  after(async () => {
    await context?.close();
    await app?.close();
  });

  test("a pool's strategy and a resource's weight and cap on their forms; a pool booking says how it was assigned", async () => {
    await nav('Types');
    await page.getByRole('link', { name: 'Edit Consult' }).click();
    const strategy = page.getByLabel('How a booking of any free one picks its resource');
    assert.equal(await strategy.inputValue(), 'first_free');
    await strategy.selectOption('round_robin');
    await checkAtBothWidths(page, 'console-teams-type');
    await page.getByRole('button', { name: 'Save type' }).click();
    await page.getByRole('heading', { name: 'Types' }).waitFor();
    assert.equal((await api('GET', `/api/resource-types/${type.id}`)).assignment, 'round_robin');

    // A weight out of range is refused at its field; then a weight and a daily cap are saved.
    await nav('Resources');
    await page.getByRole('link', { name: 'Edit Ana' }).click();
    const weight = page.getByLabel('Weight in a round robin pool (1 to 100)');
    assert.equal(await weight.inputValue(), '1');
    await weight.fill('500');
    await page.getByRole('button', { name: 'Save resource' }).click();
    await page.locator('#e-assignmentWeight').waitFor();
    assert.equal(await page.locator('#e-assignmentWeight').textContent(), 'Enter 100 or less.');
    assert.equal(await weight.getAttribute('aria-invalid'), 'true');
    await checkAtBothWidths(page, 'console-teams-resource-refused');
    await weight.fill('3');
    await page.getByLabel('Most bookings a day (empty: no limit)').fill('4');
    await page.getByRole('button', { name: 'Save resource' }).click();
    await page.getByRole('heading', { name: 'Resources' }).waitFor();
    const ana = (await api('GET', '/api/resources')).find((r: { name: string }) => r.name === 'Ana');
    assert.deepEqual([ana.assignmentWeight, ana.maxBookingsPerDay], [3, 4]);

    // A booking of any free one, from the console: its detail names the resource and the way.
    await nav('Reservations');
    await page.getByRole('link', { name: 'New booking' }).click();
    await page.getByLabel('Type', { exact: true }).selectOption({ label: 'Consult' });
    assert.equal(await page.getByLabel('Resource', { exact: true }).inputValue(), 'any');
    await page.getByLabel('Day', { exact: true }).fill(tomorrow());
    await page.getByLabel('Time', { exact: true }).selectOption(at(tomorrow(), '09:00'));
    await page.getByLabel('Name', { exact: true }).fill('Pooled Person');
    await page.getByLabel('Email', { exact: true }).fill(uniqueEmail('pooled'));
    await page.getByRole('button', { name: 'Book it' }).click();
    await page.getByRole('heading', { name: /^Reservation [A-Z0-9]{8}$/ }).waitFor();
    const id = Number(new URL(page.url()).pathname.split('/').at(-1));
    const booked = await api('GET', `/api/reservations/${id}`);
    assert.equal(booked.assignment.strategy, 'round_robin');
    const name = booked.assignment.resourceId === ana.id ? 'Ana' : 'Ben';
    const assigned = page.locator('dt', { hasText: 'Assigned' }).locator('xpath=following-sibling::dd[1]');
    assert.equal(await assigned.textContent(), `${name} (Round robin): ${booked.assignment.reason}`);
    await checkAtBothWidths(page, 'console-teams-pool-booking');
    assert.deepEqual(problems, []);
  });

  test('the troubleshooter: a booked hour BOOKED, a closed hour OUTSIDE_HOURS, by resource and by type', async () => {
    const day = addDays(tomorrow(), 1);
    // A pool booking at 14:00: the resource it went to is the one booked then.
    const booked = await api('POST', '/api/reservations', {
      resourceTypeId: type.id,
      startTime: at(day, '14:00'),
      endTime: at(day, '15:00'),
      customer: { name: 'Booked Person', email: uniqueEmail('booked') },
    });
    const resources = await api('GET', '/api/resources');
    const name = resources.find((r: { id: number }) => r.id === booked.assignment.resourceId).name;
    const other = name === 'Ana' ? 'Ben' : 'Ana';

    await nav('Resources');
    await page.getByRole('link', { name: `Why can’t ${name} be booked?` }).click();
    await page.getByRole('heading', { name: 'Why can’t this be booked?' }).waitFor();
    assert.equal(await page.title(), 'Why can’t this be booked? · Team Co · Console');
    assert.ok(await page.getByLabel(name, { exact: true }).isChecked());
    await page.getByLabel('Day', { exact: true }).fill(day);
    const grid = page.getByRole('region', { name: `The chosen resources on ${day}` });
    const cell = (hour: string, column = 1) =>
      grid
        .locator('tbody tr', { has: page.locator('th', { hasText: hour }) })
        .locator('td')
        .nth(column - 1);
    await cell('14:00–15:00').waitFor();
    assert.equal(await grid.locator('tbody tr').count(), 24);
    assert.deepEqual(await grid.locator('thead th').allTextContents(), ['Hour', name]);
    assert.equal(await cell('14:00–15:00').getAttribute('data-code'), 'BOOKED');
    assert.match(String(await cell('14:00–15:00').textContent()), /^BOOKED Taken by a reservation/);
    assert.equal(await cell('07:00–08:00').getAttribute('data-code'), 'OUTSIDE_HOURS');
    assert.match(String(await cell('07:00–08:00').textContent()), /^OUTSIDE_HOURS Outside the opening hours/);
    assert.equal(await cell('11:00–12:00').textContent(), 'Free');
    await checkAtBothWidths(page, 'console-teams-troubleshooter-resource');

    // Every resource of the type: the other one is free where this one is booked.
    await page.getByLabel('Every resource of a type').check();
    await page.getByLabel('Type', { exact: true }).selectOption({ label: 'Consult' });
    const typeGrid = page.getByRole('region', { name: `Every resource of Consult on ${day}` });
    await typeGrid.locator('thead th', { hasText: 'Ana' }).waitFor();
    assert.deepEqual(await typeGrid.locator('thead th').allTextContents(), ['Hour', 'Ana', 'Ben']);
    const row = typeGrid.locator('tbody tr', { has: page.locator('th', { hasText: '14:00–15:00' }) });
    const codes = await row.locator('td').evaluateAll((tds) => tds.map((td) => td.dataset.code));
    assert.deepEqual(codes, name === 'Ana' ? ['BOOKED', 'FREE'] : ['FREE', 'BOOKED'], `${other} is free`);
    await checkAtBothWidths(page, 'console-teams-troubleshooter-type');
    assert.deepEqual(problems, []);
  });

  test('a collective booking: several resources ticked, the times all are free, one reservation naming them all', async () => {
    const meeting = await api('POST', '/api/resource-types', {
      name: 'Meeting',
      minBookingDuration: 60,
      schedulePolicy: { operatingHours: NINE_TO_FIVE },
    });
    const desk = await api('POST', '/api/resource-types', { name: 'Desk time', minBookingDuration: 60 });
    const room = await api('POST', '/api/resources', { name: 'Room 1', resourceTypeId: meeting.id });
    const hana = await api('POST', '/api/resources', { name: 'Hana', resourceTypeId: meeting.id });
    await api('POST', '/api/resources', { name: 'Desk 9', resourceTypeId: desk.id });
    // Hana is taken at 09:00: the first time both are free is 10:00.
    const day = addDays(tomorrow(), 2);
    await api('POST', '/api/reservations', {
      resourceId: hana.id,
      startTime: at(day, '09:00'),
      endTime: at(day, '10:00'),
      customer: { name: 'Early Bird', email: uniqueEmail('early') },
    });

    // A fresh page: the types and resources made through the API since are read.
    await page.goto(`${app.origin}/app/reservations/new`);
    await page.getByLabel('Type', { exact: true }).selectOption({ label: 'Meeting' });
    await page.getByLabel('Resource', { exact: true }).selectOption({ label: 'Several resources together' });
    const group = page.getByRole('group', { name: 'Resources booked together (2 to 5)' });
    // Resources of the chosen type first, then the others; none of a type booked only by its pool.
    assert.deepEqual(await group.locator('label').allTextContents(), ['Room 1', 'Hana', 'Desk 9']);
    await group.getByLabel('Hana').check();
    await group.getByLabel('Room 1').check();
    await page.getByLabel('Day', { exact: true }).fill(day);
    const firstFree = page.locator('#f-startTime option:not([value=""])').first();
    await firstFree.waitFor({ state: 'attached' });
    assert.equal(await firstFree.getAttribute('value'), at(day, '10:00'));
    await page.getByLabel('Time', { exact: true }).selectOption(at(day, '10:00'));
    await page.getByLabel('Name', { exact: true }).fill('Team Meeting');
    await page.getByLabel('Email', { exact: true }).fill(uniqueEmail('meeting'));
    await checkAtBothWidths(page, 'console-teams-collective-form');

    // Room 1 is taken at 10:00 meanwhile: refused naming it and why, with times both are free.
    await api('POST', '/api/reservations', {
      resourceId: room.id,
      startTime: at(day, '10:00'),
      endTime: at(day, '11:00'),
      customer: { name: 'Quick Taker', email: uniqueEmail('quick') },
    });
    await page.getByRole('button', { name: 'Book it' }).click();
    await page.getByText('Not every resource of this booking is free at that time.').waitFor();
    assert.deepEqual(await page.locator('.busy-hosts li').allTextContents(), [
      'Room 1: Taken by a reservation',
    ]);
    await checkAtBothWidths(page, 'console-teams-collective-refused');
    // The nearest time both are free: 11:00 (at 09:00 Hana is booked).
    await page.locator('.alternatives button.time').first().click();
    await page.getByRole('heading', { name: /^Reservation [A-Z0-9]{8}$/ }).waitFor();
    assert.equal(await page.locator('#reservation-what').textContent(), 'Meeting · Hana · Room 1');
    const id = Number(new URL(page.url()).pathname.split('/').at(-1));
    const booked = await api('GET', `/api/reservations/${id}`);
    assert.deepEqual(booked.resourceIds, [hana.id, room.id]);
    assert.equal(booked.startTime, at(day, '11:00'));
    await checkAtBothWidths(page, 'console-teams-collective-detail');

    // Moved to 09:00, when Hana is booked: refused naming her; a time both are free moves both.
    await page.getByRole('button', { name: 'Reschedule' }).click();
    await page.getByLabel(/^New start/).fill(`${day}T09:00`);
    await page.getByRole('button', { name: 'Move it' }).click();
    const refusal = page.getByRole('alert');
    await refusal.getByText('Not every resource of this booking is free at that time.').waitFor();
    assert.deepEqual(await refusal.locator('.busy-hosts li').allTextContents(), [
      'Hana: Taken by a reservation',
    ]);
    await refusal.locator('button.time').first().click();
    await page.getByText('The reservation was moved.').waitFor();
    const moved = await api('GET', `/api/reservations/${id}`);
    assert.deepEqual(moved.resourceIds, [hana.id, room.id]);
    assert.ok(![at(day, '09:00'), at(day, '11:00')].includes(moved.startTime), moved.startTime);
    assert.equal(await page.locator('#reservation-what').textContent(), 'Meeting · Hana · Room 1');
    assert.deepEqual(problems, []);
  });
});
