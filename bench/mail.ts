// What a booking's confirmation mail costs the service's CPU, step by step, measured alone: the
// words rendered, the invitation written, the MIME message written (mime.ts), written and sent
// over the one SMTP connection the thread keeps (smtp-link.ts), and the whole path through the
// sender's thread (`sendAll`, groups of ten, as a drain sends them); for comparison, nodemailer
// composing the same message itself, and sending it over its pooled transport. Beside it, in the
// same run, a floor: nodemailer sending a one-line plain message over a pooled connection. The
// mail catcher runs in a process of its own at nice 10 (a deployment's SMTP server is another
// machine), so its work of receiving is not counted. CPU is the process's (every thread's), a
// mail's share after a warm-up.
// Run: npm run bench -- mail (BENCH_MAILS, default 2,000.)
import { loadavg } from 'node:os';
import { createTransport } from 'nodemailer';
import { bookingCalendar } from '../src/modules/mail/calendar.js';
import { composeMessage } from '../src/modules/mail/mime.js';
import type { MailCalendar } from '../src/modules/mail/schemas.js';
import { createSmtpLink } from '../src/modules/mail/smtp-link.js';
import { createSmtpSender, type SenderMessage } from '../src/modules/mail/smtp-sender.js';
import { type MailBody, renderMail } from '../src/modules/mail/templates.js';
import { startMailCatcher, stop } from './harness.js';

const MAILS = Number(process.env.BENCH_MAILS ?? 2_000);
const WARM_UP = 200;
const GROUP = 10;

const branding = {
  name: 'Studio Zürich',
  email: 'hello@studio.example',
  address: 'Bahnhofstrasse 1, 8001 Zürich',
  logoUrl: null,
  color: '#2563eb',
  timezone: 'Europe/Zurich',
};
const reservation = {
  id: 7,
  resourceTypeId: 1,
  status: 'confirmed' as const,
  startTime: '2026-12-01T09:00:00.000Z',
  endTime: '2026-12-01T10:00:00.000Z',
  customer: { name: 'Kim Example', email: 'kim@example.test' },
};
const body: MailBody = {
  template: 'booking_confirmation',
  input: { branding, reservation, serviceName: 'Lesson' },
};
const calendar: MailCalendar = {
  method: 'REQUEST',
  uid: 'reservation-7@service.example',
  sequence: 0,
  stamp: '2026-11-27T10:00:00.000Z',
  reservation,
  branding,
  serviceName: 'Lesson',
  organizerEmail: branding.email,
  attendeeEmail: reservation.customer.email,
};
let sent = 0;
/** The headers a drain gives each mail, a Message-ID of its own each time. */
function headers() {
  sent += 1;
  return {
    from: { name: branding.name, address: 'bookings@service.example' },
    to: reservation.customer.email,
    replyTo: branding.email,
    subject: 'Studio Zürich: your booking on 1 December 2026 is confirmed',
    messageId: `<bench-${process.pid}-${sent}@service.example>`,
  };
}

/** CPU µs of the whole process a call of `step`, after a warm-up. */
async function cpuPerCall(step: () => unknown, calls = MAILS): Promise<number> {
  for (let i = 0; i < WARM_UP; i++) await step();
  const before = process.cpuUsage();
  for (let i = 0; i < calls; i++) await step();
  const { user, system } = process.cpuUsage(before);
  return (user + system) / calls;
}

const catcher = await startMailCatcher();
try {
  const pooled = createTransport({ url: catcher.smtpUrl, pool: true });
  const buffered = createTransport({ streamTransport: true, buffer: true });
  const timeouts = { connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 30_000 };
  const sender = createSmtpSender({ url: catcher.smtpUrl, timeouts });
  const link = createSmtpLink({ url: catcher.smtpUrl, timeouts });
  const written = () => {
    const words = renderMail(body);
    return composeMessage({
      ...headers(),
      text: words.text,
      html: words.html,
      calendar: bookingCalendar(calendar),
    });
  };
  const byNodemailer = () => {
    const words = renderMail(body);
    return { ...headers(), text: words.text, html: words.html, icalEvent: bookingCalendar(calendar) };
  };
  const group = (): SenderMessage[] =>
    Array.from({ length: GROUP }, () => ({ ...headers(), body, calendar }));
  try {
    const floor = await cpuPerCall(() => pooled.sendMail({ ...headers(), text: 'x' }));
    const rows: Array<[string, number]> = [
      ['floor: nodemailer sends a one-line plain message (pooled SMTP)', floor],
      ['words rendered (text and HTML)', await cpuPerCall(() => renderMail(body))],
      ['invitation written (iCalendar)', await cpuPerCall(() => bookingCalendar(calendar))],
      ['message written (mime.ts), words and invitation', await cpuPerCall(written)],
      [
        'written and sent over the kept connection (smtp-link.ts)',
        await cpuPerCall(() => link.send(written())),
      ],
      [
        `through the sender's thread, groups of ${GROUP}`,
        (await cpuPerCall(() => sender.sendAll(group()), MAILS / GROUP)) / GROUP,
      ],
      ['for comparison: composed by nodemailer', await cpuPerCall(() => buffered.sendMail(byNodemailer()))],
      [
        'for comparison: composed by nodemailer and sent (pooled SMTP)',
        await cpuPerCall(() => pooled.sendMail(byNodemailer())),
      ],
    ];
    console.log(`mails ${MAILS} a step, Node ${process.version}, load average ${loadavg()[0]!.toFixed(1)}\n`);
    console.log('| step | CPU µs a mail | against the floor |\n|---|---|---|');
    for (const [step, us] of rows)
      console.log(`| ${step} | ${us.toFixed(0)} | ${(us / floor).toFixed(2)}x |`);
  } finally {
    pooled.close();
    link.close();
    await sender.close();
  }
} finally {
  await stop(catcher);
}
