// What the slot picker MCP App offers and says (frontend/src/mcp-apps/slot-picker): the slots
// of each availability answer, grouped by day in the person's zone, the booking's outcome, and
// the words in the host's language.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { bookingArguments, outcomeOf } from '../../frontend/src/mcp-apps/slot-picker/booking.js';
import { byDay, offeredSlots, personZone, timeRange } from '../../frontend/src/mcp-apps/slot-picker/slots.js';
import { wordsFor } from '../../frontend/src/mcp-apps/slot-picker/words.js';

const window = (start: string, end: string) => ({ start, end, freeLanes: 1, totalLanes: 1 });

describe('slot picker: the offered slots', () => {
  test('shifts mode: the available slots as they are, by start', () => {
    const slots = offeredSlots({
      resourceId: 7,
      timezone: 'Europe/Berlin',
      availabilityMode: 'shifts',
      slots: [
        { start: '2027-03-01T10:00:00Z', end: '2027-03-01T11:00:00Z', available: true },
        { start: '2027-03-01T08:00:00Z', end: '2027-03-01T09:00:00Z', available: true },
        { start: '2027-03-01T09:00:00Z', end: '2027-03-01T10:00:00Z', available: false },
      ],
    });
    assert.deepEqual(
      slots.map((slot) => [slot.start, slot.target]),
      [
        ['2027-03-01T08:00:00Z', { resourceId: 7 }],
        ['2027-03-01T10:00:00Z', { resourceId: 7 }],
      ],
    );
  });

  test('continuous mode: each window cut into whole hours', () => {
    const slots = offeredSlots({
      resourceId: 7,
      availabilityMode: 'continuous',
      windows: [window('2027-03-01T08:00:00Z', '2027-03-01T10:30:00Z')],
    });
    assert.deepEqual(
      slots.map((slot) => [slot.start, slot.end]),
      [
        ['2027-03-01T08:00:00.000Z', '2027-03-01T09:00:00.000Z'],
        ['2027-03-01T09:00:00.000Z', '2027-03-01T10:00:00.000Z'],
      ],
    );
  });

  test("a type's answer: the pool books the type, each resource itself", () => {
    const slots = offeredSlots({
      resourceTypeId: 3,
      bookingMode: 'BOTH',
      pool: {
        availabilityMode: 'continuous',
        windows: [window('2027-03-01T08:00:00Z', '2027-03-01T09:00:00Z')],
      },
      resources: [
        {
          resourceId: 9,
          availabilityMode: 'continuous',
          windows: [window('2027-03-01T12:00:00Z', '2027-03-01T13:00:00Z')],
        },
      ],
    });
    assert.deepEqual(
      slots.map((slot) => [slot.target, slot.place]),
      [
        [{ resourceTypeId: 3 }, 'Any resource'],
        [{ resourceId: 9 }, 'Resource 9'],
      ],
    );
  });

  test('an explanation: the asked time on each bookable resource; without the arguments, nothing', () => {
    const explanation = {
      bookable: true,
      resources: [
        { resourceId: 4, bookable: false, reasons: [{ code: 'BOOKED', message: 'Booked' }] },
        { resourceId: 5, bookable: true, reasons: [] },
      ],
    };
    const asked = { startTime: '2027-03-01T08:00:00Z', endTime: '2027-03-01T09:00:00Z', resourceTypeId: 2 };
    assert.deepEqual(offeredSlots(explanation, asked), [
      { start: asked.startTime, end: asked.endTime, target: { resourceId: 5 }, place: 'Resource 5' },
    ]);
    assert.deepEqual(offeredSlots(explanation), []);
    assert.deepEqual(offeredSlots('not an answer'), []);
  });

  test("grouped by day in the person's zone, times in it", () => {
    const slots = offeredSlots({
      resourceId: 1,
      slots: [
        { start: '2027-03-01T03:00:00Z', end: '2027-03-01T04:00:00Z', available: true },
        { start: '2027-03-01T15:00:00Z', end: '2027-03-01T16:00:00Z', available: true },
      ],
    });
    const zone = 'America/New_York';
    const days = byDay(slots, zone, 'en-GB');
    assert.deepEqual(
      days.map((day) => [day.key, day.label, day.slots.map((slot) => timeRange(slot, zone, 'en-GB'))]),
      [
        ['2027-02-28', 'Sunday 28 February', ['22:00–23:00']],
        ['2027-03-01', 'Monday 1 March', ['10:00–11:00']],
      ],
    );
    assert.equal(personZone('Asia/Tokyo'), 'Asia/Tokyo');
    assert.equal(personZone('Not/AZone'), Intl.DateTimeFormat().resolvedOptions().timeZone);
  });
});

describe('slot picker: booking', () => {
  const slot = { start: 'S', end: 'E', target: { resourceTypeId: 3 }, place: 'Any resource' };

  test('the booking tool gets the target, the times and the customer in the person zone', () => {
    assert.deepEqual(bookingArguments(slot, { name: 'Ada', email: 'ada@example.test' }, 'Europe/Paris'), {
      resourceTypeId: 3,
      startTime: 'S',
      endTime: 'E',
      customer: { name: 'Ada', email: 'ada@example.test', timeZone: 'Europe/Paris' },
    });
  });

  test('its answer: booked, waiting for approval, or why not', () => {
    assert.deepEqual(
      outcomeOf({ structuredContent: { id: 1, reference: 'AB12CD34', status: 'pending_payment' } }),
      {
        kind: 'booked',
        reference: 'AB12CD34',
        status: 'pending_payment',
      },
    );
    const approval = { id: 2, status: 'pending', expiresAt: 'X', approveUrl: 'https://svc.test/approvals/2' };
    assert.deepEqual(outcomeOf({ structuredContent: { approvalRequired: true, approval } }), {
      kind: 'approval',
      approveUrl: approval.approveUrl,
    });
    const refused = { error: { code: 'SLOT_UNAVAILABLE', message: 'The time is taken' } };
    assert.deepEqual(outcomeOf({ isError: true, structuredContent: refused }), {
      kind: 'error',
      code: 'SLOT_UNAVAILABLE',
      message: 'The time is taken',
    });
    assert.equal(outcomeOf({ isError: true }).kind, 'error');
  });
});

describe("slot picker: the host's language", () => {
  test('its words in the language the host names, by its base; English for one the pages do not speak', () => {
    assert.equal(wordsFor('de-AT')('title'), 'Zeit wählen');
    assert.equal(wordsFor('fr')('zone', { zone: 'Europe/Paris' }), 'Horaires en Europe/Paris');
    assert.equal(wordsFor('es_419')('status.pending_payment'), 'pago pendiente');
    assert.equal(wordsFor('ja-JP')('title'), 'Pick a time');
    assert.equal(wordsFor('de')('refusal.SLOT_UNAVAILABLE'), 'Dieser Termin ist nicht mehr frei.');
    assert.equal(
      wordsFor('de')('refusal.BOOKING_RULE_VIOLATED', { defaultValue: 'Book at least 2 hours ahead' }),
      'Book at least 2 hours ahead',
      "a refusal the catalogue does not word keeps the service's message",
    );
    assert.equal(
      wordsFor(undefined)('booked', { reference: 'AB12CD34', status: 'confirmed' }),
      'Booked: reference AB12CD34 (confirmed).',
    );
  });
});
