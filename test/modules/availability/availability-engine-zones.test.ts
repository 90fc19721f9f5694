import assert from 'node:assert/strict';
import { test } from 'node:test';
import { openIntervals, shiftSlots } from '../../../src/modules/availability/engine.js';
import * as reference from './availability-reference/engine.js';

// The engine memoises luxon's local-day steps across requests. Zones whose clocks change
// at or near midnight, by half an hour, or at odd offsets are where a shared day could
// answer differently from the frozen reference engine: both must agree on every range.
const ZONES = [
  'America/Santiago',
  'America/Havana',
  'Asia/Beirut',
  'Africa/Cairo',
  'Asia/Tehran',
  'Australia/Lord_Howe',
  'Pacific/Chatham',
  'America/St_Johns',
  'Europe/Dublin',
  'Asia/Kolkata',
];
const everyDay = (openTime: string, closeTime: string) =>
  [0, 1, 2, 3, 4, 5, 6].map((dayOfWeek) => ({ dayOfWeek, openTime, closeTime }));
const HOURS = [
  everyDay('00:00', '24:00'),
  everyDay('00:30', '23:30'),
  [1, 3, 5].map((dayOfWeek) => ({ dayOfWeek, openTime: '01:00', closeTime: '02:30' })),
];
const SHIFTS = [
  [0, 2, 4, 6].map((dayOfWeek) => ({
    dayOfWeek,
    slots: [
      { startTime: '00:00', endTime: '01:00' },
      { startTime: '23:00', endTime: '24:00' },
    ],
  })),
];

test('memoised local days answer exactly what the reference engine answers, across clock changes', () => {
  let seed = 20261125;
  const random = () => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed / 2147483648;
  };
  const from = Date.parse('2024-01-01T00:00:00Z');
  for (let i = 0; i < 6000; i++) {
    const zone = ZONES[i % ZONES.length]!;
    // Whole minutes over four years, ranges from one minute to five days.
    const start = from + Math.floor(random() * 4 * 365 * 1440) * 60_000;
    const range = { start, end: start + 60_000 + Math.floor(random() * 5 * 1440) * 60_000 };
    const hours = HOURS[i % HOURS.length]!;
    assert.deepEqual(
      openIntervals(hours, zone, range),
      reference.openIntervals(hours, zone, range),
      `${zone} ${new Date(range.start).toISOString()}`,
    );
    const shifts = SHIFTS[0]!;
    assert.deepEqual(shiftSlots(shifts, zone, range), reference.shiftSlots(shifts, zone, range));
  }
});
