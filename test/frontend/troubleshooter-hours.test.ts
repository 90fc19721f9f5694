// The troubleshooter's day (frontend/src/console/troubleshooter/hours.ts): its hours in the
// organisation's zone, 23 and 25 of them on the days the clocks change, and what each hour's
// cell shows of an explanation: free, or the first reason with the other codes once each.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { cellOf, hoursOf } from '../../frontend/src/console/troubleshooter/hours.js';

describe('troubleshooter hours', () => {
  test("a day's hours in its zone, from midnight to midnight", () => {
    const hours = hoursOf('2027-01-12', 'Europe/Berlin');
    assert.equal(hours.length, 24);
    assert.deepEqual(hours[0], { start: '2027-01-11T23:00:00.000Z', end: '2027-01-12T00:00:00.000Z' });
    assert.equal(hours.at(-1)?.end, '2027-01-12T23:00:00.000Z');
    assert.equal(hoursOf('2027-03-28', 'Europe/Berlin').length, 23);
    assert.equal(hoursOf('2027-10-31', 'Europe/Berlin').length, 25);
    for (const notADay of ['', '2027-02-30x', '2027-13-45'])
      assert.deepEqual(hoursOf(notADay, 'Europe/Berlin'), [], notADay);
  });

  test('a cell: free, or the first reason with the other codes once each', () => {
    assert.deepEqual(cellOf(undefined), { kind: 'unknown' });
    assert.deepEqual(cellOf({ resourceId: 1, bookable: true, reasons: [] }), { kind: 'free' });
    const reasons = [
      { code: 'BOOKED' as const, message: 'Taken by a reservation' },
      { code: 'BUFFER' as const, message: 'Within the buffer' },
      { code: 'BOOKED' as const, message: 'Taken by a reservation' },
      { code: 'BUFFER' as const, message: 'Within the buffer' },
    ];
    assert.deepEqual(cellOf({ resourceId: 1, bookable: false, reasons }), {
      kind: 'reason',
      code: 'BOOKED',
      message: 'Taken by a reservation',
      others: ['BUFFER'],
    });
  });
});
