// The SMTP sender's worker thread: what it sends arrives whole, a group goes in order with the
// server's refusal coming back with its code (the mail service tells a 5xx from a 4xx by it) and
// a hiccup ending the group, an unreachable server fails the send, and an open sender never
// keeps a process from exiting.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { SMTPServer } from 'smtp-server';
import { createSmtpSender } from '../../../src/modules/mail/smtp-sender.js';
import { type MailCatcher, startMailCatcher } from '../../../tools/emulators/mail/server.js';
import { eventually } from '../../helpers/wait.js';

const timeouts = { connectionTimeout: 2_000, greetingTimeout: 2_000, socketTimeout: 5_000 };
const SCHED_OTHER = 0;
const SCHED_IDLE = 5;

/**
 * Each thread's scheduling policy and nice value, from /proc/self/task/<tid>/stat: after the
 * name in parentheses, field 19 is the nice value and field 41 the policy.
 */
function threadStates() {
  return new Map(
    readdirSync('/proc/self/task').map((tid) => {
      const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      return [tid, { policy: Number(fields[38]), nice: Number(fields[16]) }];
    }),
  );
}

describe('SMTP sender', () => {
  let catcher: MailCatcher;
  before(async () => {
    catcher = await startMailCatcher();
  });
  after(() => catcher.close());
  /** Whether a message to `to` reached the catcher. */
  const arrived = async (to: string) =>
    (await catcher.messages()).some((message) => message.envelope.to[0] === to);

  test('a message with its calendar arrives as composed', async () => {
    const sender = createSmtpSender({ url: catcher.smtpUrl, timeouts });
    try {
      const outcomes = await sender.sendAll([
        {
          from: { name: 'Studio', address: 'bookings@example.test' },
          to: 'kim@example.test',
          subject: 'Booked ✓',
          text: 'See you',
          html: '<p>See you</p>',
          messageId: '<one@example.test>',
          calendar: {
            method: 'REQUEST',
            uid: 'reservation-7@example.test',
            sequence: 2,
            stamp: '2026-11-27T10:00:00.000Z',
            reservation: {
              id: 7,
              resourceTypeId: 1,
              status: 'confirmed',
              startTime: '2026-12-01T09:00:00.000Z',
              endTime: '2026-12-01T10:00:00.000Z',
              customer: { name: 'Kim', email: 'kim@example.test' },
            },
            branding: {
              name: 'Studio',
              email: 'hello@studio.example',
              address: null,
              logoUrl: null,
              color: '#2563eb',
              timezone: 'UTC',
            },
            serviceName: 'Lesson',
            organizerEmail: 'hello@studio.example',
            attendeeEmail: 'kim@example.test',
          },
        },
      ]);
      assert.deepEqual(outcomes, [{}]);
    } finally {
      await sender.close();
    }
    const [message] = await catcher.messages();
    assert.equal(message?.subject, 'Booked ✓');
    assert.equal(message?.messageId, '<one@example.test>');
    assert.deepEqual(message?.envelope.to, ['kim@example.test']);
    assert.equal(message?.text?.trim(), 'See you');
    // The thread wrote the invitation from its facts.
    assert.match(message!.raw, /^Content-Type: text\/calendar; charset=utf-8; method=REQUEST/m);
    const invitation = message!.attachments.find((part) => part.contentType === 'text/calendar');
    assert.match(invitation!.content, /^UID:reservation-7@example\.test\r?$/m);
    assert.match(invitation!.content, /^SEQUENCE:2\r?$/m);
    assert.match(invitation!.content, /^SUMMARY:Lesson at Studio\r?$/m);
    assert.match(invitation!.content, /^DTSTART:20261201T090000Z\r?$/m);
  });

  test("a group is sent in order: a refusal carries the server's code, a hiccup stops the rest", async () => {
    const accepted: string[] = [];
    const refusing = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS'],
      logger: false,
      onRcptTo: ({ address }, _session, callback) => {
        if (address.startsWith('nobody@'))
          return callback(Object.assign(new Error('No such mailbox'), { responseCode: 550 }));
        if (address.startsWith('busy@'))
          return callback(Object.assign(new Error('Try again later'), { responseCode: 451 }));
        callback();
      },
      onData: (stream, session, callback) => {
        stream.resume();
        stream.on('end', () => {
          accepted.push(...session.envelope.rcptTo.map((to) => to.address));
          callback();
        });
      },
    });
    await new Promise<void>((resolve) => refusing.listen(0, '127.0.0.1', resolve));
    const { port } = refusing.server.address() as AddressInfo;
    const sender = createSmtpSender({ url: `smtp://127.0.0.1:${port}`, timeouts });
    const to = ['first', 'nobody', 'second', 'busy', 'never'].map((name) => `${name}@example.test`);
    try {
      const outcomes = await sender.sendAll(
        to.map((address) => ({ from: 'a@example.test', to: address, text: 'x' })),
      );
      // The refusal for good is answered and the group goes on; the one worth another try ends it.
      assert.equal(outcomes.length, 4, 'the message after the hiccup is not tried');
      assert.deepEqual(
        outcomes.map((outcome) =>
          outcome.error ? [outcome.error.responseCode, outcome.error.permanent] : 'sent',
        ),
        ['sent', [550, true], 'sent', [451, false]],
      );
      assert.match(outcomes[1]!.error!.message, /No such mailbox/);
      assert.deepEqual(accepted, ['first@example.test', 'second@example.test']);
    } finally {
      await sender.close();
      await new Promise<void>((resolve) => refusing.close(() => resolve()));
    }
    // Nothing listens there any more: a failure without a code, worth another try.
    const gone = createSmtpSender({ url: `smtp://127.0.0.1:${port}`, timeouts });
    try {
      const [outcome, ...rest] = await gone.sendAll([
        { from: 'a@example.test', to: 'b@example.test', text: 'x' },
        { from: 'a@example.test', to: 'c@example.test', text: 'x' },
      ]);
      assert.equal(outcome?.error?.responseCode, null);
      assert.equal(outcome?.error?.permanent, false);
      assert.deepEqual(rest, []);
    } finally {
      await gone.close();
    }
  });

  test('a message whose invitation cannot be written fails for good and the group goes on', async () => {
    const sender = createSmtpSender({ url: catcher.smtpUrl, timeouts });
    const calendar = {
      method: 'REQUEST' as const,
      uid: 'reservation-8@example.test',
      sequence: 0,
      stamp: '2026-11-27T10:00:00.000Z',
      reservation: {
        id: 8,
        resourceTypeId: 1,
        status: 'confirmed' as const,
        startTime: 'not a time',
        endTime: 'not a time',
        customer: { name: 'Kim', email: 'unwritable@example.test' },
      },
      branding: {
        name: 'Studio',
        email: null,
        address: null,
        logoUrl: null,
        color: '#2563eb',
        timezone: 'UTC',
      },
      serviceName: null,
      organizerEmail: 'bookings@example.test',
      attendeeEmail: 'unwritable@example.test',
    };
    try {
      const [unwritable, next, ...rest] = await sender.sendAll([
        { from: 'a@example.test', to: 'unwritable@example.test', text: 'x', calendar },
        { from: 'a@example.test', to: 'after-unwritable@example.test', text: 'x' },
      ]);
      // Not a hiccup: trying again would fail the same way, so the drain marks it failed and goes on.
      assert.equal(unwritable?.error?.permanent, true);
      assert.equal(unwritable?.error?.responseCode, null);
      assert.match(unwritable!.error!.message, /^cannot be written: Not a time: "not a time"/);
      assert.deepEqual(next, {});
      assert.deepEqual(rest, []);
    } finally {
      await sender.close();
    }
    assert.ok(await arrived('after-unwritable@example.test'));
    assert.equal(await arrived('unwritable@example.test'), false);
  });

  test('a message that is not plain data is refused before it leaves, and the sender goes on', async () => {
    const sender = createSmtpSender({ url: catcher.smtpUrl, timeouts });
    try {
      const text = (() => 'x') as unknown as string;
      await assert.rejects(sender.sendAll([{ from: 'a@example.test', to: 'b@example.test', text }]), {
        name: 'DataCloneError',
      });
      await sender.sendAll([{ from: 'a@example.test', to: 'after-refusal@example.test', text: 'x' }]);
    } finally {
      await sender.close();
    }
    assert.ok(await arrived('after-refusal@example.test'));
  });

  test('a thread that dies fails the sends it owes as transient, and the next send starts another', async () => {
    const sender = createSmtpSender({ url: catcher.smtpUrl, timeouts });
    try {
      // Not a message at all: the thread throws outside any send's promise and dies.
      const lost = sender.sendAll([null as unknown as Parameters<typeof sender.sendAll>[0][number]]);
      await assert.rejects(lost, (error: Error & { responseCode?: unknown }) => {
        assert.match(error.message, /^The SMTP sender stopped/);
        assert.equal(error.responseCode, undefined, 'no SMTP code: the drain retries it');
        return true;
      });
      await sender.sendAll([{ from: 'a@example.test', to: 'after-crash@example.test', text: 'x' }]);
    } finally {
      await sender.close();
    }
    assert.ok(await arrived('after-crash@example.test'));
  });

  test('its thread runs under SCHED_IDLE, the rest of the process as it was (Linux)', async () => {
    const before = threadStates();
    const sender = createSmtpSender({ url: catcher.smtpUrl, timeouts });
    try {
      await sender.sendAll([{ from: 'a@example.test', to: 'low@example.test', text: 'x' }]);
      const after = threadStates();
      const started = [...after].filter(([tid]) => !before.has(tid)).map(([, state]) => state.policy);
      assert.deepEqual(
        started.filter((policy) => policy === SCHED_IDLE),
        [SCHED_IDLE],
        `one new thread under SCHED_IDLE, not ${JSON.stringify(started)}`,
      );
      for (const [tid, state] of before) {
        if (after.has(tid)) assert.deepEqual(after.get(tid), state, `thread ${tid} keeps its policy`);
      }
    } finally {
      await sender.close();
    }
  });

  test('a send waiting past its patience lifts the thread to nice 10 until nothing is owed, then it idles again (Linux)', async () => {
    // A server slow to take the message keeps the send waiting, as a full box would.
    let released = false;
    let answer = () => {};
    const release = () => {
      released = true;
      answer();
    };
    const slow = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS'],
      logger: false,
      onData: (stream, _session, callback) => {
        stream.resume();
        stream.on('end', () => {
          answer = () => {
            answer = () => {};
            callback();
          };
          if (released) answer();
        });
      },
    });
    await new Promise<void>((resolve) => slow.listen(0, '127.0.0.1', resolve));
    const { port } = slow.server.address() as AddressInfo;
    const before = threadStates();
    // The server holds the message as long as the test needs: no socket timeout in between.
    const patient = { ...timeouts, socketTimeout: 60_000 };
    const sender = createSmtpSender({ url: `smtp://127.0.0.1:${port}`, timeouts: patient, patienceMs: 500 });
    const senderThread = () => {
      const started = [...threadStates()].filter(([tid]) => !before.has(tid));
      return started.find(([, state]) => state.policy !== SCHED_OTHER || state.nice === 10)?.[1];
    };
    try {
      const sentAt = performance.now();
      const sent = sender.sendAll([{ from: 'a@example.test', to: 'waits@example.test', text: 'x' }]);
      await eventually(() => senderThread()?.policy === SCHED_OTHER && senderThread()?.nice === 10);
      assert.ok(performance.now() - sentAt >= 500, 'lifted only once the send waited its patience');
      release();
      assert.deepEqual(await sent, [{}]);
      // Idle again; the nice value it keeps does not count under SCHED_IDLE.
      await eventually(() => senderThread()?.policy === SCHED_IDLE);
    } finally {
      release();
      await sender.close();
      await new Promise<void>((resolve) => slow.close(() => resolve()));
    }
  });

  test('a sender left open does not keep its process running', async () => {
    // A process that sends one mail and never closes its sender (nor anything else) ends by itself.
    const script = `
      import { createSmtpSender } from './src/modules/mail/smtp-sender.ts';
      const sender = createSmtpSender({ url: ${JSON.stringify(catcher.smtpUrl)}, timeouts: ${JSON.stringify(timeouts)} });
      // A refused message leaves nothing waiting either.
      await sender.sendAll([{ from: 'a@example.test', to: 'b@example.test', text: () => 'x' }]).catch(() => {});
      await sender.sendAll([{ from: 'a@example.test', to: 'left-open@example.test', text: 'x' }]);
      console.log('sent');`;
    // Asynchronously: the catcher answering it runs in this process.
    const stdout = await new Promise<string>((resolve, reject) =>
      execFile(
        process.execPath,
        ['--import', 'tsx', '--input-type=module', '-e', script],
        { cwd: new URL('../../../', import.meta.url), encoding: 'utf8', timeout: 20_000 },
        (error, out, stderr) => (error ? reject(new Error(`${error.message}\n${stderr}`)) : resolve(out)),
      ),
    );
    assert.equal(stdout.trim(), 'sent');
    assert.ok(await arrived('left-open@example.test'));
  });
});
