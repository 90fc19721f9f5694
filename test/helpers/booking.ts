// Booking through the API: who books, when, with which answers, and the call itself.
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { type Caller, client, expectStatus, type RequestBody } from './http.js';

export const customer = { name: 'Grace Hopper', email: 'grace@example.test' };
/** A reservation's customer answers its language and zone, null when the booking gave none. */
export const NO_LOCALE = { locale: null, timeZone: null };

/** Monday 00:00 UTC of the week after next: a future date every test can book in. */
export function futureMonday(): Date {
  const d = new Date();
  d.setUTCHours(0, 0, 0, 0);
  d.setUTCDate(d.getUTCDate() + ((8 - d.getUTCDay()) % 7) + 7);
  return d;
}

export const at = (base: Date, hours: number, minutes = 0) =>
  new Date(base.getTime() + (hours * 60 + minutes) * 60_000).toISOString();

/** The hour from `hour` o'clock of `base`'s day (UTC), as a booking body's times. */
export const hourSlot = (base: Date, hour: number) => ({
  startTime: at(base, hour),
  endTime: at(base, hour + 1),
});

/**
 * Bookings of the resource `resourceId()` names (read at each call: tests name it once set up),
 * each of the hour after the one before, from `after + 1` o'clock of the coming `futureMonday`.
 */
export function hourAfterHour(resourceId: () => number, after: number) {
  let hour = after;
  return () => {
    hour += 1;
    return { resourceId: resourceId(), ...hourSlot(futureMonday(), hour), customer };
  };
}

/**
 * Half-hour slots, each after the one before, from 00:30 UTC of the day eight weeks after the
 * coming `futureMonday`: far enough ahead to stay bookable when a test moves the clock a month on.
 */
export function halfHourAfterHalfHour() {
  const base = new Date(futureMonday().getTime() + 56 * 86_400_000);
  let slot = 0;
  return () => {
    slot += 1;
    return { startTime: at(base, 0, slot * 30), endTime: at(base, 0, slot * 30 + 30) };
  };
}

/** One question a resource type asks at booking. */
export type Question = NonNullable<RequestBody<'POST', '/api/resource-types'>['questions']>[number];

/** Booking questions (DECISIONS.md "Pages people live in"): one of each kind, three required. */
export const QUESTIONS: Question[] = [
  { id: 'company', label: 'Company', kind: 'text', required: true },
  { id: 'notes', label: 'Anything we should know?', kind: 'textarea' },
  { id: 'invoiceEmail', label: 'Invoice email', kind: 'email' },
  { id: 'mobile', label: 'Mobile', kind: 'phone' },
  { id: 'size', label: 'Room size', kind: 'select', required: true, options: ['Small', 'Large'] },
  { id: 'terms', label: 'I accept the house rules', kind: 'checkbox', required: true },
];
/** Answers to every one of QUESTIONS. */
export const ANSWERS = {
  company: 'Analytical Engines Ltd',
  notes: 'Step-free access, please.\nTwo of us use wheelchairs.',
  invoiceEmail: 'accounts@example.test',
  mobile: '+44 20 7946 0000',
  size: 'Large',
  terms: true,
};

export interface BookOptions {
  /** The query string, without its `?` (`dryRun=true`). */
  query?: string;
  headers?: Record<string, string>;
}

/**
 * POST /api/reservations as `user` (null: nobody) with `body` over `{customer}` (the body may
 * name another customer); answers the reply, whatever it is.
 */
export function book(
  app: FastifyInstance,
  user: Caller,
  body: Record<string, unknown>,
  { query, headers }: BookOptions = {},
): Promise<LightMyRequestResponse> {
  const url = query ? `/api/reservations?${query}` : '/api/reservations';
  return client(app, user).request('POST', url, { customer, ...body }, headers);
}

/**
 * POST /api/public/organisations/{slug}/reservations as a visitor of the booking page, `body`
 * over `{customer}`; answers the reply, whatever it is.
 */
export function bookPublicly(
  app: FastifyInstance,
  slug: string,
  body: Record<string, unknown>,
  { query, headers }: BookOptions = {},
): Promise<LightMyRequestResponse> {
  const url = `/api/public/organisations/${slug}/reservations${query ? `?${query}` : ''}`;
  return client(app, null).request('POST', url, { customer, ...body }, headers);
}

/** Books as `book` does, which must succeed (201); answers the reservation. */
export async function createReservation(
  app: FastifyInstance,
  user: Caller,
  body: Record<string, unknown>,
  // biome-ignore lint/suspicious/noExplicitAny: test bodies are read loosely
): Promise<any> {
  return expectStatus(await book(app, user, body), 201);
}
