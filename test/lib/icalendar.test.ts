// The iCalendar text pieces the mail's invitation and the booking page's file share, read back
// with a real parser (ical.js): folding by octets never splits a character, escapes round-trip.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import ICAL from 'ical.js';
import { icsDocument, icsFold, icsParam, icsText, icsUtc } from '../../src/lib/icalendar.js';

/** One event whose summary and attendee name are `text`, parsed back. */
function readBack(text: string) {
  const document = icsDocument([
    'BEGIN:VCALENDAR',
    'VERSION:2.0',
    'PRODID:-//test//EN',
    'BEGIN:VEVENT',
    'UID:one@example.test',
    `DTSTAMP:${icsUtc('2027-03-01T09:30:00.123+01:00')}`,
    `SUMMARY:${icsText(text)}`,
    `ATTENDEE;CN=${icsParam(text)}:mailto:kim@example.test`,
    'END:VEVENT',
    'END:VCALENDAR',
  ]);
  const event = new ICAL.Component(ICAL.parse(document)).getFirstSubcomponent('vevent')!;
  return { document, event };
}

test('a line over 75 octets folds at a character boundary, however wide its characters', () => {
  for (const char of ['a', 'é', '€', '😀']) {
    const line = `SUMMARY:${char.repeat(100)}`;
    const folded = icsFold(line);
    const physical = folded.split('\r\n');
    assert.ok(physical.length > 1, `${char}: folded`);
    for (const [i, part] of physical.entries()) {
      assert.ok(Buffer.byteLength(part) <= 75, `${char}: ${Buffer.byteLength(part)} octets`);
      if (i > 0) assert.ok(part.startsWith(' '), 'a continuation starts with a space');
      // A split inside a character would leave a lone surrogate or a replacement character.
      assert.equal(Buffer.from(part).toString(), part);
    }
    assert.equal(folded.replaceAll('\r\n ', ''), line, 'unfolding gives the line back');
  }
  assert.equal(icsFold('SUMMARY:short'), 'SUMMARY:short');
  assert.equal(icsFold('X'.repeat(75)), 'X'.repeat(75), 'exactly 75 octets stays one line');
});

test('text and parameter values read back as written, through every character they escape', () => {
  const nasty = 'Kim, "the ^one"; back\\slash\nnew line\r\nand 😀 ünïcödé '.repeat(3);
  const { document, event } = readBack(nasty);
  assert.equal(event.getFirstPropertyValue('summary'), nasty.replace(/\r\n/g, '\n'));
  assert.equal(event.getFirstProperty('attendee')!.getParameter('cn'), nasty.replace(/\r\n/g, '\n'));
  assert.ok(document.endsWith('\r\n'));
  assert.ok(!/[^\r]\n/.test(document), 'no bare LF');
  assert.equal(event.getFirstPropertyValue('dtstamp')!.toString(), '2027-03-01T08:30:00Z');
});

test('a time it cannot read is refused, not written', () => {
  assert.equal(icsUtc('2027-03-01T09:30:00Z'), '20270301T093000Z');
  assert.throws(() => icsUtc('not a time'), { name: 'RangeError', message: 'Not a time: "not a time"' });
});
