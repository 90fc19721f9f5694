// The MIME message the sender's thread writes for nodemailer to send as it is: read back by
// mailparser (the parser the mail catcher uses), every header and part as given, no header a
// value can smuggle in, lines short enough for SMTP, and a boundary no part can contain.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { simpleParser } from 'mailparser';
import type { CalendarPart } from '../../../src/modules/mail/calendar.js';
import { composeMessage } from '../../../src/modules/mail/mime.js';

const calendar: CalendarPart = {
  method: 'REQUEST',
  filename: 'invite.ics',
  content: 'BEGIN:VCALENDAR\r\nVERSION:2.0\r\nSUMMARY:Lesson at Zürich\r\nEND:VCALENDAR\r\n',
};

const headerNames = (raw: string) =>
  raw
    .slice(0, raw.indexOf('\r\n\r\n'))
    .split('\r\n')
    .filter((line) => !/^[ \t]/.test(line))
    .map((line) => line.slice(0, line.indexOf(':')));

test('a booking mail reads back as written: headers, text, HTML, the invitation twice', async () => {
  const text = 'Hello Kim,\n\nStudio "Zürich" has confirmed your booking.\n-- \nStudio · Zürich';
  const html = '<p>Hello Kim, <b>Studio "Zürich"</b> has confirmed your booking.</p>';
  const { envelope, raw } = composeMessage({
    from: { name: 'Studio "Zürich"', address: 'bookings@service.example' },
    to: 'kim@example.test',
    replyTo: 'hello@studio.example',
    subject: 'Studio Zürich: your booking on 1 December 2026 is confirmed',
    messageId: '<b-1@service.example>',
    text,
    html,
    calendar,
  });
  assert.deepEqual(envelope, { from: 'bookings@service.example', to: ['kim@example.test'] });
  const parsed = await simpleParser(raw);
  assert.equal(parsed.subject, 'Studio Zürich: your booking on 1 December 2026 is confirmed');
  assert.deepEqual(parsed.from?.value, [{ name: 'Studio "Zürich"', address: 'bookings@service.example' }]);
  assert.equal(parsed.to && !Array.isArray(parsed.to) && parsed.to.text, 'kim@example.test');
  assert.equal(parsed.replyTo?.text, 'hello@studio.example');
  assert.equal(parsed.messageId, '<b-1@service.example>');
  assert.ok(parsed.date instanceof Date && Math.abs(parsed.date.getTime() - Date.now()) < 60_000);
  assert.equal(parsed.headers.get('mime-version'), '1.0');
  assert.equal(parsed.text, text);
  assert.equal(parsed.html, html);
  const [part, file, ...others] = parsed.attachments;
  assert.equal(others.length, 0);
  assert.equal(part?.contentType, 'text/calendar');
  assert.equal(part?.content.toString('utf8'), calendar.content);
  assert.match(raw, /\r\nContent-Type: text\/calendar; charset=utf-8; method=REQUEST\r\n/);
  assert.equal(file?.contentType, 'application/ics');
  assert.equal(file?.filename, 'invite.ics');
  assert.equal(file?.contentDisposition, 'attachment');
  assert.equal(file?.content.toString('utf8'), calendar.content);
});

test('a line break in a header value adds no header', async () => {
  const { raw } = composeMessage({
    from: { name: 'Studio\r\nBcc: thief@example.test', address: 'bookings@service.example' },
    to: 'kim@example.test',
    subject: 'Confirmed\r\nBcc: thief@example.test\nX-Evil: 1',
    text: 'x',
  });
  assert.deepEqual(headerNames(raw), [
    'From',
    'To',
    'Subject',
    'Message-ID',
    'Date',
    'MIME-Version',
    'Content-Type',
    'Content-Transfer-Encoding',
  ]);
  const parsed = await simpleParser(raw);
  assert.equal(parsed.bcc, undefined);
  assert.equal(parsed.headers.get('x-evil'), undefined);
  assert.match(String(parsed.subject), /^Confirmed\s+Bcc: thief@example\.test\s+X-Evil: 1$/);
});

test('long headers and long lines are folded, and read back whole', async () => {
  const name = `Ateliér ${'Zürich '.repeat(20)}`.trim();
  const subject = `${'A very long subject with ümlauts '.repeat(6)}end`;
  const text = `${'x'.repeat(300)}\n.a line that starts with a dot\nFrom the start, a line\ntrailing spaces   \n${'€'.repeat(120)}`;
  const { raw } = composeMessage({
    from: { name, address: 'bookings@service.example' },
    to: 'kim@example.test',
    subject,
    text,
    html: `<p>${'y'.repeat(500)}</p>`,
    calendar: { ...calendar, content: `${calendar.content}${'DESCRIPTION:'.padEnd(74, 'z')}\r\n` },
  });
  const longest = Math.max(...raw.split('\r\n').map((line) => line.length));
  assert.ok(longest <= 78, `a line of ${longest} characters`);
  assert.doesNotMatch(raw.replace(/\r\n/g, ''), /[\r\n]/, 'every line ends in CRLF');
  const parsed = await simpleParser(raw);
  assert.equal(parsed.from?.value[0]?.name, name);
  assert.equal(parsed.subject, subject);
  assert.equal(parsed.text, text);
  assert.equal(parsed.html, `<p>${'y'.repeat(500)}</p>`);
});

test('no part can contain the boundary, whatever its text', async () => {
  const first = composeMessage({ to: 'kim@example.test', from: 'a@service.example', text: 'a', html: 'b' });
  const boundary = /boundary="([^"]+)"/.exec(first.raw)?.[1];
  assert.ok(boundary?.startsWith('=_'));
  // Text that writes out boundaries, this message's kind included, reads back as text.
  const text = `--${boundary}\n--=_x_1--\n=_`;
  const { raw } = composeMessage({ to: 'kim@example.test', from: 'a@service.example', text, html: text });
  const parsed = await simpleParser(raw);
  assert.equal(parsed.text, text);
  assert.equal(parsed.html, text);
  assert.notEqual(/boundary="([^"]+)"/.exec(raw)?.[1], boundary, 'a boundary of its own each message');
});

test('words alone are one part; no words at all are an empty text', async () => {
  const alone = composeMessage({ to: 'kim@example.test', from: 'a@service.example', text: 'only this' });
  assert.doesNotMatch(alone.raw, /multipart/);
  assert.match(alone.raw, /\r\nContent-Type: text\/plain; charset=utf-8\r\n/);
  assert.equal((await simpleParser(alone.raw)).text, 'only this');
  // No Message-ID given: one is made at the sender's domain.
  assert.match(alone.raw, /\r\nMessage-ID: <[0-9a-f-]{36}@service\.example>\r\n/);
  const empty = await simpleParser(composeMessage({ to: 'kim@example.test', from: 'a@service.example' }).raw);
  assert.equal(empty.text ?? '', '');
});
