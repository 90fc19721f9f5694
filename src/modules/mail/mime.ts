// A mail's MIME message, written as one string for nodemailer's SMTP connection to send as it is.
// nodemailer's composer builds a tree of streams for every message (a pipeline, an
// `AbortController` and a random boundary a part): about 1.7 ms of CPU for a booking mail, four
// times its SMTP exchange. Our mails have one shape, so the skeleton is written here; every
// header's encoding (addresses, RFC 2047 words, Message-ID) and the quoted-printable body are
// still nodemailer's own functions, and nodemailer still speaks SMTP (smtp-link.ts).
import { randomUUID } from 'node:crypto';
import { foldLines } from 'nodemailer/lib/mime-funcs';
import MimeNode from 'nodemailer/lib/mime-node';
import { encode as quotedPrintable, wrap as wrapQuotedPrintable } from 'nodemailer/lib/qp';
import type { CalendarPart } from './calendar.js';

export interface Mailbox {
  name: string;
  address: string;
}

/** What a message says: its headers, its words, and a booking's invitation. */
export interface MessageParts {
  from: Mailbox | string;
  to: string;
  replyTo?: string | undefined;
  subject?: string | undefined;
  /** `<id@domain>`; one is made when none is given. */
  messageId?: string | undefined;
  text?: string | undefined;
  html?: string | undefined;
  /** Sent twice, as nodemailer's `icalEvent` sends it: the part calendar clients act on, and a file. */
  calendar?: CalendarPart | undefined;
}

/** A message ready to go: the SMTP envelope and the RFC 5322 text. */
export interface ComposedMessage {
  envelope: { from: string; to: string[] };
  raw: string;
}

const CRLF = '\r\n';
/** RFC 2045's suggested line length for encoded bodies. */
const LINE = 76;

interface Part {
  headers: Array<[string, string]>;
  body: string;
}

/** A mailbox given as an address alone is that one address, never parsed as a list. */
const mailboxOf = (mailbox: Mailbox | string): Mailbox =>
  typeof mailbox === 'string' ? { name: '', address: mailbox } : mailbox;

// nodemailer's header encoding, from one node of its own (its static form makes a node a call);
// the encoding keeps no state between calls.
const encoder = new MimeNode(false, {});

/** One header line, encoded as nodemailer encodes it and folded at 76. */
function header(key: string, value: Mailbox | Date | string): string {
  return foldLines(`${key}: ${encoder.encodeHeaderValue(key, value)}`, LINE);
}

/** Text as quoted-printable lines of CRLF (the line breaks stay line breaks). */
function textPart(type: string, text: string): Part {
  return {
    headers: [
      ['Content-Type', type],
      ['Content-Transfer-Encoding', 'quoted-printable'],
    ],
    body: wrapQuotedPrintable(quotedPrintable(text), LINE).replace(/\r?\n/g, CRLF),
  };
}

function attachmentPart(filename: string, content: string): Part {
  const base64 = Buffer.from(content, 'utf8').toString('base64');
  const lines: string[] = [];
  for (let at = 0; at < base64.length; at += LINE) lines.push(base64.slice(at, at + LINE));
  return {
    headers: [
      ['Content-Type', `application/ics; name=${filename}`],
      ['Content-Disposition', `attachment; filename=${filename}`],
      ['Content-Transfer-Encoding', 'base64'],
    ],
    body: lines.join(CRLF),
  };
}

/**
 * Several parts as one. The boundary starts with `=_`, which neither quoted-printable (an `=`
 * is followed by two hex digits or a line break) nor base64 ever writes: no part can hold it.
 */
function multipart(subtype: 'alternative' | 'mixed', parts: Part[], boundary: string): Part {
  const body = parts
    .map((part) => `--${boundary}${CRLF}${headerLines(part.headers)}${CRLF}${CRLF}${part.body}${CRLF}`)
    .join('');
  return {
    headers: [['Content-Type', `multipart/${subtype}; boundary="${boundary}"`]],
    body: `${body}--${boundary}--${CRLF}`,
  };
}

const headerLines = (headers: Array<[string, string]>) =>
  headers.map(([key, value]) => foldLines(`${key}: ${value}`, LINE)).join(CRLF);

/**
 * The message and its envelope: text, HTML and the invitation as alternatives of one another
 * (those given), the invitation attached as a file too. Header values never break a line: each
 * goes through nodemailer's encoding, which turns line breaks into spaces.
 */
export function composeMessage(message: MessageParts): ComposedMessage {
  const alternatives: Part[] = [];
  if (message.text !== undefined) alternatives.push(textPart('text/plain; charset=utf-8', message.text));
  if (message.html !== undefined) alternatives.push(textPart('text/html; charset=utf-8', message.html));
  const { calendar } = message;
  if (calendar) {
    alternatives.push(textPart(`text/calendar; charset=utf-8; method=${calendar.method}`, calendar.content));
  }
  if (alternatives.length === 0) alternatives.push(textPart('text/plain; charset=utf-8', ''));
  // Random (from the runtime's batched entropy), so no message can guess another's boundary.
  const tag = randomUUID().replaceAll('-', '');
  let content =
    alternatives.length === 1 ? alternatives[0]! : multipart('alternative', alternatives, `=_${tag}_1`);
  if (calendar) {
    content = multipart(
      'mixed',
      [content, attachmentPart(calendar.filename, calendar.content)],
      `=_${tag}_2`,
    );
  }
  const from = mailboxOf(message.from);
  const to = mailboxOf(message.to);
  const messageId = message.messageId ?? `<${randomUUID()}@${from.address.split('@').pop() || 'localhost'}>`;
  const head = [
    header('From', from),
    header('To', to),
    ...(message.replyTo ? [header('Reply-To', mailboxOf(message.replyTo))] : []),
    ...(message.subject !== undefined ? [header('Subject', message.subject)] : []),
    header('Message-ID', messageId),
    header('Date', new Date()),
    'MIME-Version: 1.0',
    headerLines(content.headers),
  ];
  return {
    // Normalised as the headers are (a domain punycoded), one recipient whatever its text.
    envelope: new MimeNode(false, {})
      .setEnvelope({ from, to: [to] })
      .getEnvelope() as ComposedMessage['envelope'],
    raw: `${head.join(CRLF)}${CRLF}${CRLF}${content.body}`,
  };
}
