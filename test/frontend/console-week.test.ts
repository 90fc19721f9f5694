// The console's calendar arithmetic (frontend/src/console/week.ts): the week view groups
// reservations by their day in the organisation's zone, and a reschedule typed as a wall-clock
// time in that zone becomes the right instant across daylight-saving changes. The refusal
// summary (console/ui.tsx) is rendered server-side: no browser needed.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { ApiError } from '../../frontend/src/api/client.js';
import { Field, FormError } from '../../frontend/src/console/ui.js';
import { addDays, byDayOfWeek, mondayOf, weekDays, weekRange } from '../../frontend/src/console/week.js';
import { instantOf, localOf } from '../../frontend/src/lib/time.js';

describe('console week', () => {
  test('a week starts on Monday, across a month and a year', () => {
    assert.equal(mondayOf('2027-03-03'), '2027-03-01');
    assert.equal(mondayOf('2027-03-01'), '2027-03-01');
    assert.equal(mondayOf('2027-03-07'), '2027-03-01');
    assert.equal(mondayOf('2027-01-01'), '2026-12-28');
    assert.deepEqual(weekDays('2026-12-28'), [
      '2026-12-28',
      '2026-12-29',
      '2026-12-30',
      '2026-12-31',
      '2027-01-01',
      '2027-01-02',
      '2027-01-03',
    ]);
    assert.equal(addDays('2027-03-01', -7), '2027-02-22');
  });

  test('the range asked for covers the week in every zone', () => {
    assert.deepEqual(weekRange('2027-03-01'), {
      from: '2027-02-28T10:00:00.000Z',
      to: '2027-03-08T14:00:00.000Z',
    });
  });

  test("reservations fall on their day in the organisation's zone, in order; others are left out", () => {
    const items = [
      { id: 1, startTime: '2027-03-01T23:30:00Z' }, // Tuesday 00:30 in Berlin, Monday in New York
      { id: 2, startTime: '2027-03-01T08:00:00Z' },
      { id: 3, startTime: '2027-02-28T23:00:00Z' }, // Monday 00:00 in Berlin, Sunday before in New York
      { id: 4, startTime: '2027-03-07T23:30:00Z' }, // the next Monday in Berlin
    ];
    const berlin = byDayOfWeek(items, '2027-03-01', 'Europe/Berlin');
    assert.deepEqual(
      berlin.get('2027-03-01')!.map((i) => i.id),
      [3, 2],
    );
    assert.deepEqual(
      berlin.get('2027-03-02')!.map((i) => i.id),
      [1],
    );
    assert.equal([...berlin.values()].flat().length, 3);
    const newYork = byDayOfWeek(items, '2027-03-01', 'America/New_York');
    assert.deepEqual(
      newYork.get('2027-03-01')!.map((i) => i.id),
      [2, 1],
    );
    assert.deepEqual(
      newYork.get('2027-03-07')!.map((i) => i.id),
      [4],
    );
    assert.equal(newYork.size, 7);
  });

  test('a wall-clock time in a zone is its instant, and back', () => {
    assert.equal(instantOf('2027-03-01T09:30', 'Europe/Berlin'), '2027-03-01T08:30:00.000Z');
    assert.equal(instantOf('2027-07-01T09:30', 'Europe/Berlin'), '2027-07-01T07:30:00.000Z');
    assert.equal(instantOf('2027-07-01T09:30', 'America/New_York'), '2027-07-01T13:30:00.000Z');
    assert.equal(instantOf('2027-07-01T09:30', 'Asia/Kolkata'), '2027-07-01T04:00:00.000Z');
    assert.equal(instantOf('2027-07-01T09:30', 'UTC'), '2027-07-01T09:30:00.000Z');
    assert.equal(localOf('2027-03-01T08:30:00.000Z', 'Europe/Berlin'), '2027-03-01T09:30');
    assert.equal(localOf('2027-07-01T04:00:00Z', 'Asia/Kolkata'), '2027-07-01T09:30');
    assert.equal(instantOf('not a time', 'UTC'), null);
    assert.equal(instantOf('', 'UTC'), null);
  });

  test('daylight saving: a skipped time lands after the gap, a repeated one on its first pass', () => {
    // Berlin skips 02:00-03:00 on 28 March 2027 and repeats 02:00-03:00 on 31 October 2027.
    assert.equal(instantOf('2027-03-28T01:30', 'Europe/Berlin'), '2027-03-28T00:30:00.000Z');
    assert.equal(instantOf('2027-03-28T02:30', 'Europe/Berlin'), '2027-03-28T01:30:00.000Z');
    assert.equal(localOf('2027-03-28T01:30:00.000Z', 'Europe/Berlin'), '2027-03-28T03:30');
    assert.equal(instantOf('2027-03-28T03:30', 'Europe/Berlin'), '2027-03-28T01:30:00.000Z');
    assert.equal(instantOf('2027-10-31T02:30', 'Europe/Berlin'), '2027-10-31T00:30:00.000Z');
    assert.equal(instantOf('2027-10-31T03:30', 'Europe/Berlin'), '2027-10-31T02:30:00.000Z');
  });
});

describe('console forms', () => {
  const refusal = (paths: string[]) =>
    new ApiError(
      400,
      'VALIDATION_FAILED',
      'Invalid body',
      paths.map((path) => ({ path, message: `bad ${path}` })),
    );

  test('a field shows its message, tied to the input for screen readers', () => {
    const html = renderToStaticMarkup(
      createElement(Field, {
        name: 'bookingRules.minNoticeMinutes',
        label: 'Minimum notice',
        value: '-1',
        error: 'Too small',
        onChange: () => {},
      }),
    );
    assert.match(html, /<label for="f-bookingRules.minNoticeMinutes">Minimum notice<\/label>/);
    assert.match(html, /aria-invalid="true"/);
    assert.match(html, /aria-describedby="e-bookingRules.minNoticeMinutes"/);
    assert.match(html, /<p class="field-error" id="e-bookingRules.minNoticeMinutes">Too small<\/p>/);
  });

  test('the summary points at the fields when the form shows them all, and names the others', () => {
    const onForm = renderToStaticMarkup(
      createElement(FormError, { error: refusal(['body.name']), shown: ['name'] }),
    );
    assert.match(onForm, /Please check the highlighted fields/);
    assert.doesNotMatch(onForm, /bad body.name/);
    const elsewhere = renderToStaticMarkup(
      createElement(FormError, { error: refusal(['body.schedulePolicy']), shown: ['name'] }),
    );
    // A field the form does not show is named in words, never by its raw path and validator text.
    assert.match(elsewhere, /Schedule policy: /);
    assert.doesNotMatch(elsewhere, /bad body.schedulePolicy|body\.schedulePolicy/);
    const conflict = renderToStaticMarkup(
      createElement(FormError, {
        error: new ApiError(409, 'CONFLICT', 'A resource type with this name already exists'),
        shown: ['name'],
      }),
    );
    assert.match(conflict, /role="alert"/);
    assert.match(conflict, /already exists/);
  });
});
