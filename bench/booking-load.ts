// The pool-booking load shared by bench/booking.ts and bench/outbox-cost.ts: a POOL type (opening
// hours 06:00-22:00 every day, 30-minute bookings, 15-minute buffer) with one parent of LANES lanes,
// seeded through the HTTP API, and autocannon requests that book a new slot each.
import type autocannon from 'autocannon';
import { api } from './harness.js';

export const LANES = 4;
const MINUTE = 60_000;
const DAY = 1440 * MINUTE;
/** 30-minute slots every 45 minutes from 06:00 to 22:00 UTC: the 15 minutes between are the buffer. */
const SLOT_MINUTES = 30;
const STEP_MINUTES = 45;
const SLOTS_PER_DAY = Math.floor((22 * 60 - 6 * 60 - SLOT_MINUTES) / STEP_MINUTES) + 1;
const customer = { name: 'Bench Booker', email: 'booker@example.test' };

/** Midnight UTC three days after the run began: every slot from there on is in the future. */
const FIRST_DAY = (() => {
  const d = new Date();
  d.setUTCHours(0, 0, 0, 0);
  return d.getTime() + 3 * DAY;
})();

/** A new account with an organisation of its own (UTC) it acts in: its authorization header. */
export async function organisation(base: string): Promise<Record<string, string>> {
  const { accessToken } = await api<{ accessToken: string }>(base, 'POST', '/api/auth/register', {
    email: `bench-booking-${process.pid}-${Date.now()}@example.test`,
    password: 'benchmark password',
    name: 'Bench',
  });
  const auth = { authorization: `Bearer ${accessToken}` };
  await api(base, 'POST', '/api/organisations', { name: 'Bench', timezone: 'UTC' }, auth);
  return auth;
}

export async function seed(base: string) {
  const auth = await organisation(base);
  const [distinctType, fillingType, holdType] = await poolTypes(base, auth, ['Distinct', 'Filling', 'Held']);
  return { auth, distinctType: distinctType!, fillingType: fillingType!, holdType: holdType! };
}

/**
 * A type of the active organisation of `auth` with the slots above (POOL unless `settings` says
 * otherwise; `settings` adds to its body, for example its `assignment`): its id.
 */
async function bookingType(
  base: string,
  auth: Record<string, string>,
  name: string,
  settings: Record<string, unknown>,
): Promise<number> {
  const operatingHours = [0, 1, 2, 3, 4, 5, 6].map((dayOfWeek) => ({
    dayOfWeek,
    openTime: '06:00',
    closeTime: '22:00',
  }));
  const body = {
    name,
    bookingMode: 'POOL',
    minBookingDuration: SLOT_MINUTES,
    bufferTime: STEP_MINUTES - SLOT_MINUTES,
    schedulePolicy: { operatingHours },
    ...settings,
  };
  return (await api<{ id: number }>(base, 'POST', '/api/resource-types', body, auth)).id;
}

/** POOL types of the active organisation of `auth`, one parent of LANES lanes each (`settings` as `bookingType`): their ids. */
export async function poolTypes(
  base: string,
  auth: Record<string, string>,
  names: string[],
  settings: Record<string, unknown> = {},
): Promise<number[]> {
  const types: number[] = [];
  for (const name of names) {
    const type = await bookingType(base, auth, name, settings);
    await api(base, 'POST', '/api/resources', { name, resourceTypeId: type, capacity: LANES }, auth);
    types.push(type);
  }
  return types;
}

/** `count` resources of one new SINGLE_RESOURCE type named `name`, each of its own (no lanes): their ids. */
export async function singleResources(
  base: string,
  auth: Record<string, string>,
  name: string,
  count: number,
): Promise<number[]> {
  const type = await bookingType(base, auth, name, { bookingMode: 'SINGLE_RESOURCE' });
  const ids: number[] = [];
  for (let i = 1; i <= count; i++)
    ids.push(
      (
        await api<{ id: number }>(
          base,
          'POST',
          '/api/resources',
          { name: `${name} ${i}`, resourceTypeId: type },
          auth,
        )
      ).id,
    );
  return ids;
}

/** What a booking asks for: a type's pool (its id), or the body's target (`{resourceId}`, `{resourceIds}`). */
export type BookingTarget = number | Record<string, unknown>;

/** The body of a booking of the `slot`th slot (from three days on) of `target`: distinct slots never collide. */
export function bookingBody(target: BookingTarget, slot: number) {
  const start =
    FIRST_DAY +
    Math.floor(slot / SLOTS_PER_DAY) * DAY +
    (6 * 60 + (slot % SLOTS_PER_DAY) * STEP_MINUTES) * MINUTE;
  return {
    ...(typeof target === 'number' ? { resourceTypeId: target } : target),
    startTime: new Date(start).toISOString(),
    endTime: new Date(start + SLOT_MINUTES * MINUTE).toISOString(),
    customer,
  };
}

/** One POST per request, the nth asking for `slotOf(n)`, counted across warm-up and run. */
export function bookings(
  auth: Record<string, string>,
  target: BookingTarget,
  slotOf: (n: number) => number,
): autocannon.Request[] {
  let n = 0;
  return [
    {
      method: 'POST',
      path: '/api/reservations',
      headers: { ...auth, 'content-type': 'application/json' },
      setupRequest: (request) => ({
        ...request,
        body: JSON.stringify(bookingBody(target, slotOf(n++))),
      }),
    },
  ];
}

/**
 * Hold then confirm, each client in turn: a hold of the nth slot, then the confirm of the
 * hold it answered. Two requests per pair.
 */
export function holdsConfirmed(
  auth: Record<string, string>,
  resourceTypeId: number,
  slotOf: (n: number) => number,
): autocannon.Request[] {
  const [hold] = bookings(auth, resourceTypeId, slotOf);
  return [
    {
      ...hold!,
      path: '/api/reservations/holds',
      onResponse: (_status, body, context) => {
        (context as { holdId?: number }).holdId = (JSON.parse(body) as { id: number }).id;
      },
    },
    {
      method: 'POST',
      headers: auth,
      setupRequest: (request, context) => ({
        ...request,
        path: `/api/reservations/${(context as { holdId?: number }).holdId}/confirm`,
      }),
    },
  ];
}
