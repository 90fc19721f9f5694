// The booking page's time-zone logic (frontend/src/lib/time.ts) and how a day's slots render
// (frontend/src/components/TimeList.tsx, server-rendered here: no browser needed).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { TimeList } from '../../frontend/src/components/TimeList.js';
import {
  bookableTimes,
  dayKey,
  formatTime,
  monthGrid,
  monthRange,
  timesByDay,
  zoneChoices,
} from '../../frontend/src/lib/time.js';
import { inLanguage } from '../helpers/i18n.js';

const NOW = Date.parse('2027-03-01T00:00:00Z');

describe('bookable times', () => {
  test('a free window offers starts on a grid of the duration, 30 minutes at most, that fit whole', () => {
    const times = bookableTimes(
      {
        resourceId: 7,
        windows: [{ start: '2027-03-01T09:00:00Z', end: '2027-03-01T11:00:00Z', freeLanes: 1 }],
      },
      60,
      NOW,
    );
    assert.deepEqual(
      times.map((t) => [t.start, t.end, t.resourceId]),
      [
        ['2027-03-01T09:00:00.000Z', '2027-03-01T10:00:00.000Z', 7],
        ['2027-03-01T09:30:00.000Z', '2027-03-01T10:30:00.000Z', 7],
        ['2027-03-01T10:00:00.000Z', '2027-03-01T11:00:00.000Z', 7],
      ],
    );
    const short = bookableTimes(
      { windows: [{ start: '2027-03-01T09:02:00Z', end: '2027-03-01T10:05:00Z', freeLanes: 2 }] },
      20,
      NOW,
    );
    assert.deepEqual(
      short.map((t) => t.start.slice(11, 16)),
      ['09:20', '09:40'],
      'starts on the 20-minute grid of the hour; 10:00 would end past the window',
    );
    const odd = bookableTimes(
      { windows: [{ start: '2027-03-01T09:02:00Z', end: '2027-03-01T10:00:00Z', freeLanes: 1 }] },
      25,
      NOW,
    );
    assert.deepEqual(
      odd.map((t) => t.start.slice(11, 16)),
      ['09:05', '09:30'],
      'a step that does not divide the hour: on five minutes',
    );
  });

  test('free windows that touch are one stretch: a booking may run across the split', () => {
    const times = bookableTimes(
      {
        windows: [
          { start: '2027-03-01T08:00:00Z', end: '2027-03-01T09:00:00Z', freeLanes: 2 },
          { start: '2027-03-01T09:00:00Z', end: '2027-03-01T10:00:00Z', freeLanes: 1 },
          { start: '2027-03-01T10:00:00Z', end: '2027-03-01T11:00:00Z', freeLanes: 0 },
          { start: '2027-03-01T11:00:00Z', end: '2027-03-01T12:00:00Z', freeLanes: 2 },
        ],
      },
      60,
      NOW,
    );
    assert.deepEqual(
      times.map((t) => t.start.slice(11, 16)),
      ['08:00', '08:30', '09:00', '11:00'],
    );
  });

  test('full windows, taken slots and past times are not offered', () => {
    const times = bookableTimes(
      {
        windows: [{ start: '2027-03-01T09:00:00Z', end: '2027-03-01T10:00:00Z', freeLanes: 0 }],
        slots: [
          { start: '2027-02-28T09:00:00Z', end: '2027-02-28T10:00:00Z', available: true },
          { start: '2027-03-02T09:00:00Z', end: '2027-03-02T10:00:00Z', available: false },
          { start: '2027-03-02T10:00:00Z', end: '2027-03-02T11:00:00Z', available: true },
        ],
      },
      60,
      NOW,
    );
    assert.deepEqual(
      times.map((t) => t.start),
      ['2027-03-02T10:00:00.000Z'],
    );
  });

  test('a type answer: the pool first, then each resource; a start free on several is offered once', () => {
    const times = bookableTimes(
      {
        pool: { slots: [{ start: '2027-03-01T10:00:00Z', end: '2027-03-01T11:00:00Z', available: true }] },
        resources: [
          {
            resourceId: 3,
            slots: [
              { start: '2027-03-01T10:00:00Z', end: '2027-03-01T11:00:00Z', available: true },
              { start: '2027-03-01T08:00:00Z', end: '2027-03-01T09:00:00Z', available: true },
            ],
          },
        ],
      },
      60,
      NOW,
    );
    assert.deepEqual(
      times.map((t) => [t.start.slice(11, 16), t.resourceId]),
      [
        ['08:00', 3],
        ['10:00', null],
      ],
    );
  });
});

describe('days and times in the visitor zone', () => {
  const late = { start: '2027-03-01T23:30:00Z', end: '2027-03-02T00:30:00Z', resourceId: 1 };
  const early = { start: '2027-03-02T04:30:00Z', end: '2027-03-02T05:30:00Z', resourceId: 1 };

  test('a time falls on the day it is in the chosen zone', () => {
    assert.equal(dayKey(late.start, 'UTC'), '2027-03-01');
    assert.equal(dayKey(late.start, 'Europe/Berlin'), '2027-03-02');
    assert.equal(dayKey(early.start, 'America/New_York'), '2027-03-01');
    assert.deepEqual([...timesByDay([late, early], 'Europe/Berlin').keys()], ['2027-03-02']);
    assert.deepEqual([...timesByDay([late, early], 'America/New_York').keys()], ['2027-03-01']);
    assert.deepEqual([...timesByDay([late, early], 'UTC').keys()], ['2027-03-01', '2027-03-02']);
  });

  test('times read in the zone, across a daylight-saving change', () => {
    assert.equal(formatTime(late.start, 'Europe/Berlin', 'en-GB'), '00:30');
    assert.equal(formatTime(late.start, 'Asia/Kolkata', 'en-GB'), '05:00');
    // Berlin moves to summer time on 28 March 2027: 08:00 UTC is 09:00 before, 10:00 after.
    assert.equal(formatTime('2027-03-27T08:00:00Z', 'Europe/Berlin', 'en-GB'), '09:00');
    assert.equal(formatTime('2027-03-29T08:00:00Z', 'Europe/Berlin', 'en-GB'), '10:00');
  });

  test('the day list renders each slot at its time in the zone', () => {
    const times = [
      { start: '2027-03-02T08:00:00Z', end: '2027-03-02T09:00:00Z', resourceId: 1 },
      { start: '2027-03-02T13:30:00Z', end: '2027-03-02T14:30:00Z', resourceId: 1 },
    ];
    const render = (zone: string) =>
      renderToStaticMarkup(
        inLanguage(
          'en',
          createElement(TimeList, {
            day: '2027-03-02',
            times,
            zone,
            selected: times[1]!.start,
            onSelect: () => {},
            locale: 'en-GB',
          }),
        ),
      );
    const labels = (html: string) => [...html.matchAll(/<button[^>]*>([^<]+)<\/button>/g)].map((m) => m[1]);
    assert.deepEqual(labels(render('Europe/Berlin')), ['09:00', '14:30']);
    assert.deepEqual(labels(render('America/Los_Angeles')), ['00:00', '05:30']);
    assert.deepEqual(labels(render('Asia/Tokyo')), ['17:00', '22:30']);
    const html = render('UTC');
    assert.match(html, /<h3 id="times-heading">Tuesday, 2 March 2027<\/h3>/);
    assert.match(html, /aria-pressed="true" data-start="2027-03-02T13:30:00Z"[^>]*>13:30</);
    assert.match(html, /aria-pressed="false" data-start="2027-03-02T08:00:00Z"[^>]*>08:00</);
    const empty = (language: 'en' | 'de') =>
      renderToStaticMarkup(
        inLanguage(
          language,
          createElement(TimeList, {
            day: '2027-03-02',
            times: [],
            zone: 'UTC',
            selected: null,
            onSelect: () => {},
            locale: language,
          }),
        ),
      );
    assert.match(empty('en'), /No free times on this day/);
    assert.match(empty('de'), /Dienstag, 2\. März 2027.*An diesem Tag sind keine Zeiten frei\./);
  });
});

describe('the month', () => {
  test('weeks start on Monday, days outside the month are blank', () => {
    const weeks = monthGrid({ year: 2027, month: 1 }); // February 2027 starts on a Monday
    assert.equal(weeks.length, 4);
    assert.deepEqual(weeks[0], [
      '2027-02-01',
      '2027-02-02',
      '2027-02-03',
      '2027-02-04',
      '2027-02-05',
      '2027-02-06',
      '2027-02-07',
    ]);
    const march = monthGrid({ year: 2027, month: 2 });
    assert.deepEqual(march[0]!.slice(0, 2), ['2027-03-01', '2027-03-02']);
    assert.deepEqual(march.at(-1), ['2027-03-29', '2027-03-30', '2027-03-31', null, null, null, null]);
  });

  test('the range asked covers the month in every zone, from now on, within the API limit', () => {
    const range = monthRange({ year: 2027, month: 2 }, Date.parse('2027-01-10T10:00:00Z'))!;
    assert.equal(range.from, '2027-02-28T10:00:00.000Z');
    assert.equal(range.to, '2027-04-01T14:00:00.000Z');
    assert.ok(Date.parse(range.to) - Date.parse(range.from) <= 62 * 86_400_000);
    const midMonth = monthRange({ year: 2027, month: 2 }, Date.parse('2027-03-15T10:20:30.400Z'))!;
    assert.equal(midMonth.from, '2027-03-15T10:20:00.000Z', 'from now, to the minute');
    assert.equal(monthRange({ year: 2027, month: 0 }, Date.parse('2027-03-15T00:00:00Z')), null);
  });

  test("the zone choices name each zone once, the visitor's and the organisation's included", () => {
    const zones = zoneChoices('UTC', 'UTC', 'Europe/Berlin');
    assert.equal(new Set(zones).size, zones.length);
    assert.ok(zones.includes('UTC'));
    assert.ok(zones.includes('Europe/Berlin'));
  });
});
