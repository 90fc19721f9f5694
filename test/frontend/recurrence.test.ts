// The booking page's series logic (frontend/src/lib/recurrence.ts): the weekly rule, the weeks a
// customer may type, the occurrences a refusal names, and a series' total price.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { conflictsOf, parseWeeks, totalPrice, weeklyRecurrence } from '../../frontend/src/lib/recurrence.js';

describe('series on the booking page', () => {
  test('weekly, n times, is one RRULE with COUNT', () => {
    assert.deepEqual(weeklyRecurrence(6), ['RRULE:FREQ=WEEKLY;COUNT=6']);
  });

  test('the number of weeks is a whole number from 2 to 52', () => {
    assert.equal(parseWeeks('2'), 2);
    assert.equal(parseWeeks(' 52 '), 52);
    for (const bad of ['', '1', '53', '3.5', '-4', 'four', '1e1']) assert.equal(parseWeeks(bad), null, bad);
  });

  test('conflicts come from an error envelope or a dry run refusal, by start; anything else is none', () => {
    const later = {
      startTime: '2027-03-15T09:00:00.000Z',
      endTime: '2027-03-15T10:00:00.000Z',
      alternatives: [
        { startTime: '2027-03-15T11:00:00.000Z', endTime: '2027-03-15T12:00:00.000Z', resourceId: 4 },
      ],
    };
    const earlier = { startTime: '2027-03-08T09:00:00.000Z', endTime: '2027-03-08T10:00:00.000Z' };
    const envelope = {
      success: false,
      error: { code: 'SLOT_UNAVAILABLE', message: 'x', conflicts: [later, earlier] },
    };
    assert.deepEqual(conflictsOf(envelope), [{ ...earlier, alternatives: [] }, later]);
    assert.deepEqual(
      conflictsOf({ wouldSucceed: false, error: { code: 'SLOT_UNAVAILABLE', conflicts: [later] } }),
      [later],
    );
    assert.deepEqual(conflictsOf({ error: { code: 'SLOT_UNAVAILABLE', alternatives: [] } }), []);
    assert.deepEqual(conflictsOf({ error: { conflicts: [{ startTime: 3 }] } }), []);
    assert.deepEqual(conflictsOf(undefined), []);
  });

  test('a series costs the sum of its occurrences; none when a price is missing or currencies differ', () => {
    const at = (priceAmount: number | null, priceCurrency: string | null) => ({ priceAmount, priceCurrency });
    assert.deepEqual(totalPrice([at(2500, 'eur'), at(2500, 'EUR'), at(2000, 'eur')]), {
      amount: 7000,
      currency: 'eur',
    });
    assert.equal(totalPrice([at(null, null), at(null, null)]), null);
    assert.equal(totalPrice([at(2500, 'eur'), at(null, 'eur')]), null);
    assert.equal(totalPrice([at(2500, 'eur'), at(2500, 'usd')]), null);
    assert.equal(totalPrice([]), null);
  });
});
