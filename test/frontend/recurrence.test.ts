// The booking page's series logic (frontend/src/lib/recurrence.ts): the weekly rule, the weeks a
// customer may type, and a series' total price.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { parseWeeks, totalPrice, weeklyRecurrence } from '../../frontend/src/lib/recurrence.js';

describe('series on the booking page', () => {
  test('weekly, n times, is one RRULE with COUNT', () => {
    assert.deepEqual(weeklyRecurrence(6), ['RRULE:FREQ=WEEKLY;COUNT=6']);
  });

  test('the number of weeks is a whole number from 2 to 52', () => {
    assert.equal(parseWeeks('2'), 2);
    assert.equal(parseWeeks(' 52 '), 52);
    for (const bad of ['', '1', '53', '3.5', '-4', 'four', '1e1']) assert.equal(parseWeeks(bad), null, bad);
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
