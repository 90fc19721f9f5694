// The pieces of iCalendar (RFC 5545) text that one fixed-shape VEVENT needs, written by hand:
// the booking mail's invitation (one a booking) and the booking page's "add to calendar" file
// each write one event of a handful of properties. ical-generator 10.2 (the last that runs on
// Node 20) allocates a TextEncoder for every character it folds: about 400 µs an invitation
// here, a sixth of a mail's cost. It still writes the feeds, whose zones and recurrence rules
// are its real work. Pure, without Node built-ins: the pages import it too.

/** TEXT values escape backslash, semicolon, comma and line breaks (RFC 5545 3.3.11). */
export const icsText = (value: string): string =>
  value.replace(/[\\;,]|\r\n|\r|\n/g, (match) =>
    match === '\\' || match === ';' || match === ',' ? `\\${match}` : '\\n',
  );

/** A parameter value, quoted, with caret, quote and line breaks caret-encoded (RFC 6868). */
export const icsParam = (value: string): string =>
  `"${value.replace(/\^|"|\r\n|\r|\n/g, (match) => (match === '^' ? '^^' : match === '"' ? "^'" : '^n'))}"`;

/** An instant as a UTC DATE-TIME, `20270301T093000Z`; a time it cannot read is refused, never written as nonsense. */
export function icsUtc(instant: string): string {
  const at = new Date(instant);
  if (Number.isNaN(at.getTime())) throw new RangeError(`Not a time: ${JSON.stringify(instant)}`);
  return `${at.toISOString().replace(/[-:]/g, '').slice(0, 15)}Z`;
}

const MAX_OCTETS = 75;

/** A content line folded at 75 octets of UTF-8 (RFC 5545 3.1), continuations starting with a space; never inside a character. */
export function icsFold(line: string): string {
  // Most lines are short ASCII: nothing to count.
  if (line.length <= MAX_OCTETS && !/[^ -~\t]/.test(line)) return line;
  let folded = '';
  let octets = 0;
  for (const char of line) {
    const code = char.codePointAt(0)!;
    const size = code < 0x80 ? 1 : code < 0x800 ? 2 : code < 0x10000 ? 3 : 4;
    if (octets + size > MAX_OCTETS) {
      folded += '\r\n ';
      octets = 1;
    }
    folded += char;
    octets += size;
  }
  return folded;
}

/** Content lines as a document: each folded and ended by CRLF. */
export const icsDocument = (lines: readonly string[]): string => `${lines.map(icsFold).join('\r\n')}\r\n`;

/**
 * A reservation's one calendar UID, the same in its mails' invitations and in the booking
 * page's .ics (one entry, which a cancellation removes): `reservation-<id>@<host>`, where host
 * is the host name (no port) of the service's own address, at which its pages are served too.
 */
export function reservationUid(reservationId: number, host: string): string {
  return `reservation-${reservationId}@${host}`;
}
