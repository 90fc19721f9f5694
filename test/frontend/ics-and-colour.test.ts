// The booking page's .ics file (frontend/src/lib/ics.ts), read back with a real iCalendar
// parser, and the readable text colour on an organisation's brand colour.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import ICAL from 'ical.js';
import { brandColours, contrast, normaliseHex } from '../../frontend/src/lib/colour.js';
import { icsOf } from '../../frontend/src/lib/ics.js';
import { reservationUid } from '../../src/modules/mail/calendar.js';

describe('the .ics of a reservation', () => {
  const manageUrl = `https://book.example/manage/${'t'.repeat(43)}`;
  const ics = icsOf({
    reservationId: 42,
    host: 'book.example',
    start: '2027-03-01T09:30:00+01:00',
    end: '2027-03-01T10:30:00+01:00',
    summary: 'Haircut, wash; and dry · Salon Ünter',
    description: `Change or cancel: ${manageUrl}`,
    url: manageUrl,
    stamp: '2027-02-01T12:00:00Z',
  });

  test('an iCalendar parser reads the event back: times in UTC, text unescaped', () => {
    const event = new ICAL.Event(new ICAL.Component(ICAL.parse(ics)).getFirstSubcomponent('vevent')!);
    assert.equal(event.uid, 'reservation-42@book.example');
    assert.equal(event.startDate.toJSDate().toISOString(), '2027-03-01T08:30:00.000Z');
    assert.equal(event.endDate.toJSDate().toISOString(), '2027-03-01T09:30:00.000Z');
    assert.equal(event.summary, 'Haircut, wash; and dry · Salon Ünter');
    assert.equal(event.description, `Change or cancel: ${manageUrl}`);
  });

  test("its UID is the one the reservation's mails carry: one calendar entry, which a cancellation removes", () => {
    const event = new ICAL.Component(ICAL.parse(ics)).getFirstSubcomponent('vevent')!;
    // The mail service writes reservationUid(id, the host name of PUBLIC_URL): the page, served
    // from that origin, passes its own host name, without the port the old page UID carried.
    assert.equal(
      event.getFirstPropertyValue('uid'),
      reservationUid(42, new URL('http://book.example:3000').hostname),
    );
  });

  test('CRLF lines of at most 75 octets', () => {
    assert.ok(ics.endsWith('\r\n'));
    const lines = ics.split('\r\n').slice(0, -1);
    assert.ok(
      lines.some((l) => l.startsWith(' ')),
      'the long description is folded',
    );
    for (const line of lines) assert.ok(Buffer.byteLength(line) <= 75, line);
    assert.ok(!/[^\r]\n/.test(ics), 'no bare LF');
  });
});

describe('brand colour', () => {
  test('hex colours only; the text on it keeps WCAG AA contrast', () => {
    assert.equal(normaliseHex('#ABC'), '#aabbcc');
    assert.equal(normaliseHex('red'), null);
    assert.equal(normaliseHex('url(x)'), null);
    for (const colour of ['#ffeb3b', '#0f766e', '#1d4ed8', '#f97316', '#ffffff', '#000000', null]) {
      const { brand, onBrand } = brandColours(colour);
      assert.ok(contrast(brand, onBrand) >= 4.5, `${colour}: ${onBrand} on ${brand}`);
    }
    assert.deepEqual(brandColours('not a colour'), { brand: '#0f766e', onBrand: '#ffffff' });
  });
});
