import assert from 'node:assert/strict';
import { after, afterEach, before, describe, mock, test } from 'node:test';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { buildApp } from '../../../src/app.js';
import { loadConfig } from '../../../src/config.js';
import type { Db } from '../../../src/db/database.js';
import { randomToken, sha256 } from '../../../src/lib/crypto.js';
import { createTestApp, createTestDatabase, TEST_ENV, type TestApp } from '../../helpers/app.js';
import { at, customer, futureMonday, NO_LOCALE } from '../../helpers/booking.js';
import { createResource, createType } from '../../helpers/catalogue.js';
import { as, expectError, expectStatus } from '../../helpers/http.js';
import { type OrgOwner, ownerWithOrganisation } from '../../helpers/organisations.js';
import { columnsContaining, PRIVACY, parseExport } from '../../helpers/privacy.js';

const TOKEN = /^[A-Za-z0-9_-]{43}$/;
const FRONTEND_URL = TEST_ENV.FRONTEND_URL;

type Inject = (options: {
  method: 'GET' | 'POST';
  url: string;
  payload?: Record<string, unknown>;
  headers?: Record<string, string>;
}) => Promise<LightMyRequestResponse>;

/** The public calls of one app: booking by slug or resource token, and the four manage-link routes. */
function publicCalls(inject: Inject, slug: string) {
  return {
    book: (body: Record<string, unknown>, headers: Record<string, string> = {}) =>
      inject({
        method: 'POST',
        url: `/api/public/organisations/${slug}/reservations`,
        payload: { customer, ...body },
        headers,
      }),
    hold: (body: Record<string, unknown>) =>
      inject({
        method: 'POST',
        url: `/api/public/organisations/${slug}/holds`,
        payload: { customer, ...body },
      }),
    bookByToken: (resourceToken: string, body: Record<string, unknown>) =>
      inject({
        method: 'POST',
        url: `/api/public/resources/${resourceToken}/reservations`,
        payload: { customer, ...body },
      }),
    view: (token: string) => inject({ method: 'GET', url: `/api/public/reservations/${token}` }),
    confirm: (token: string) => inject({ method: 'POST', url: `/api/public/reservations/${token}/confirm` }),
    cancel: (token: string) => inject({ method: 'POST', url: `/api/public/reservations/${token}/cancel` }),
    reschedule: (token: string, payload: Record<string, unknown>) =>
      inject({ method: 'POST', url: `/api/public/reservations/${token}/reschedule`, payload }),
  };
}

/**
 * Customer manage links (DECISIONS.md "Reservations: statuses, holds, payment, reschedule,
 * rules", Customers): public bookings and holds answer a manage token once; it opens that
 * one reservation to view, confirm, cancel and reschedule within the type's rules.
 */
describe('customer manage links', () => {
  let t: TestApp;
  let owner: OrgOwner;
  let room: { id: number };
  let strictRoom: { id: number };
  let resourceToken: string;
  let calls: ReturnType<typeof publicCalls>;
  const slug = `manage-${process.pid}`;
  const mon = futureMonday();
  const slot = (resourceId: number, hour: number, hours = 1) => ({
    resourceId,
    startTime: at(mon, hour),
    endTime: at(mon, hour + hours),
  });

  before(async () => {
    t = await createTestApp({ PUBLIC_RATE_LIMIT_MAX: '1000' });
    calls = publicCalls((options) => t.app.inject(options), slug);
    owner = await ownerWithOrganisation(t.app, { name: 'Manage Ltd', slug, timezone: 'UTC' });
    const type = await createType(t.app, owner, { name: 'Room' });
    room = await createResource(t.app, owner, { name: 'Room 1', resourceTypeId: type.id });
    // Every booking of this type is within its cancel notice (30 days).
    const strict = await createType(t.app, owner, {
      name: 'Strict room',
      bookingRules: { cancelNoticeMinutes: 30 * 24 * 60 },
    });
    strictRoom = await createResource(t.app, owner, { name: 'Strict 1', resourceTypeId: strict.id });
    resourceToken = expectStatus(
      await as(t.app, owner).get(`/api/resources/${room.id}/public-token`),
      200,
    ).token;
  });
  after(() => t.close());
  afterEach(() => mock.timers.reset());

  /** The stored row's manage token hash. */
  const storedHash = async (id: number) =>
    (
      await t.db.kysely
        .selectFrom('reservations')
        .select('manageTokenHash')
        .where('id', '=', id)
        .executeTakeFirstOrThrow()
    ).manageTokenHash;
  const memberView = async (id: number) =>
    expectStatus(await as(t.app, owner).get(`/api/reservations/${id}`), 200);

  test('a slug booking, a slug hold and a resource-token booking each answer their manage link once', async () => {
    const booked = expectStatus(await calls.book(slot(room.id, 8)), 201);
    const held = expectStatus(await calls.hold(slot(room.id, 9)), 201);
    const byToken = expectStatus(
      await calls.bookByToken(resourceToken, { startTime: at(mon, 10), endTime: at(mon, 11) }),
      201,
    );
    assert.equal(held.status, 'held');
    const tokens = [booked, held, byToken].map((answer) => {
      assert.match(answer.manageToken, TOKEN);
      assert.equal(answer.manageUrl, `${FRONTEND_URL}/manage/${answer.manageToken}`);
      return answer.manageToken as string;
    });
    assert.equal(new Set(tokens).size, 3, 'a token of its own per booking');

    for (const [i, answer] of [booked, held, byToken].entries()) {
      // Stored as its SHA-256 only: no column of any table holds the token itself.
      assert.equal(await storedHash(answer.id), sha256(tokens[i]!));
      assert.deepEqual(await columnsContaining(t.db, tokens[i]!), []);
      // The link opens exactly that reservation; the view never shows the token again.
      const view = expectStatus(await calls.view(tokens[i]!), 200);
      assert.equal(view.id, answer.id);
      assert.equal(view.status, answer.status);
      assert.equal(view.manageToken, undefined);
      assert.equal(JSON.stringify(view).includes(tokens[i]!), false);
    }
  });

  test('an Idempotency-Key replay answers the same booking without its token, which stays unstored', async () => {
    const headers = { 'idempotency-key': `manage-replay-${process.pid}` };
    const first = await calls.book(slot(room.id, 12), headers);
    const booked = expectStatus(first, 201);
    assert.match(booked.manageToken, TOKEN);
    const replay = await calls.book(slot(room.id, 12), headers);
    const replayed = expectStatus(replay, 201);
    assert.equal(replay.headers['idempotent-replayed'], 'true');
    assert.equal(replayed.id, booked.id);
    assert.equal(replayed.manageToken, null);
    assert.equal(replayed.manageUrl, null);
    // Not in the idempotency table either (nor anywhere else); the link still works.
    assert.deepEqual(await columnsContaining(t.db, booked.manageToken), []);
    assert.equal(expectStatus(await calls.view(booked.manageToken), 200).id, booked.id);
  });

  test('the view: the customer’s own reservation and organisation, nothing internal', async () => {
    const booked = expectStatus(
      await calls.book({
        ...slot(room.id, 14),
        notes: 'internal note',
        customer: { ...customer, phone: '123' },
      }),
      201,
    );
    const view = expectStatus(await calls.view(booked.manageToken), 200);
    assert.equal(view.id, booked.id);
    assert.equal(view.startTime, at(mon, 14));
    assert.equal(view.endTime, at(mon, 15));
    assert.equal(view.status, 'confirmed');
    assert.deepEqual(view.customer, { ...customer, phone: '123', ...NO_LOCALE });
    assert.equal(view.organisation.name, 'Manage Ltd');
    assert.equal(view.organisation.slug, slug);
    for (const internal of ['resourceId', 'notes', 'createdByUserId', 'source', 'manageToken', 'manageUrl'])
      assert.equal(internal in view, false, `shows ${internal}`);
    assert.equal(JSON.stringify(view.organisation).includes('"id"'), false);
  });

  test('confirm makes a live hold confirmed; anything else is refused and a lapsed hold is HOLD_EXPIRED', async () => {
    const start = Date.now();
    mock.timers.enable({ apis: ['Date'], now: start });
    const held = expectStatus(await calls.hold({ ...slot(room.id, 16), holdSeconds: 60 }), 201);
    const confirmed = expectStatus(await calls.confirm(held.manageToken), 200);
    assert.equal(confirmed.id, held.id);
    assert.equal(confirmed.status, 'confirmed');
    assert.equal(confirmed.expiresAt, null);
    assert.equal((await memberView(held.id)).status, 'confirmed');
    expectError(await calls.confirm(held.manageToken), 409, 'INVALID_TRANSITION');

    const booked = expectStatus(await calls.book(slot(room.id, 17)), 201);
    expectError(await calls.confirm(booked.manageToken), 409, 'INVALID_TRANSITION');

    const lapsing = expectStatus(await calls.hold({ ...slot(room.id, 18), holdSeconds: 60 }), 201);
    mock.timers.setTime(start + 60_000);
    expectError(await calls.confirm(lapsing.manageToken), 409, 'HOLD_EXPIRED');
    assert.equal(expectStatus(await calls.view(lapsing.manageToken), 200).status, 'expired');
  });

  test('cancel: a booking outside the cancel notice is cancelled, inside it refused unchanged; a hold is always let go', async () => {
    const free = expectStatus(await calls.book(slot(room.id, 19)), 201);
    const cancelled = expectStatus(await calls.cancel(free.manageToken), 200);
    assert.equal(cancelled.status, 'cancelled');
    const stored = await memberView(free.id);
    assert.equal(stored.status, 'cancelled');
    assert.equal(stored.rulesOverriddenByUserId, null);
    // Its time is free at once.
    expectStatus(await calls.book(slot(room.id, 19)), 201);

    const strict = expectStatus(await calls.book(slot(strictRoom.id, 8)), 201);
    const refused = expectError(await calls.cancel(strict.manageToken), 409, 'BOOKING_RULE_VIOLATED');
    const rules = (refused.details as unknown as Array<{ rule: string }>).map((d) => d.rule);
    assert.deepEqual(rules, ['cancelNoticeMinutes']);
    assert.equal((await memberView(strict.id)).status, 'confirmed');

    const strictHold = expectStatus(await calls.hold(slot(strictRoom.id, 10)), 201);
    const released = expectStatus(await calls.cancel(strictHold.manageToken), 200);
    assert.equal(released.status, 'cancelled');
    assert.equal(released.expiresAt, null);
    expectStatus(await calls.hold(slot(strictRoom.id, 10)), 201);
  });

  test('reschedule moves the reservation (same id, old time freed); a taken time is SLOT_UNAVAILABLE and changes nothing', async () => {
    const mine = expectStatus(await calls.book(slot(room.id, 20)), 201);
    const other = expectStatus(await calls.book(slot(room.id, 22)), 201);
    const moved = expectStatus(
      await calls.reschedule(mine.manageToken, { startTime: at(mon, 21), endTime: at(mon, 22) }),
      200,
    );
    assert.equal(moved.id, mine.id);
    assert.equal(moved.startTime, at(mon, 21));
    assert.equal(moved.endTime, at(mon, 22));
    assert.equal(moved.status, 'confirmed');
    const stored = await memberView(mine.id);
    assert.equal(stored.startTime, at(mon, 21));
    assert.equal(stored.resourceId, room.id);
    // The old time is free; the link still opens the moved reservation.
    expectStatus(await calls.book(slot(room.id, 20)), 201);
    assert.equal(expectStatus(await calls.view(mine.manageToken), 200).startTime, at(mon, 21));

    expectError(
      await calls.reschedule(mine.manageToken, { startTime: other.startTime, endTime: other.endTime }),
      409,
      'SLOT_UNAVAILABLE',
    );
    const unchanged = await memberView(mine.id);
    assert.equal(unchanged.startTime, at(mon, 21));
    assert.equal(unchanged.endTime, at(mon, 22));
    assert.equal(unchanged.status, 'confirmed');

    // The customer names the time only: no resource, no override; a past time is a field error.
    expectError(
      await calls.reschedule(mine.manageToken, {
        startTime: at(mon, 23),
        endTime: at(mon, 24),
        overrideRules: true,
      }),
      400,
      'VALIDATION_FAILED',
    );
    const past = expectError(
      await calls.reschedule(mine.manageToken, {
        startTime: new Date(Date.now() - 3_600_000).toISOString(),
        endTime: new Date(Date.now() - 1_800_000).toISOString(),
      }),
      400,
      'VALIDATION_FAILED',
    );
    assert.ok(
      past.details?.some((d) => d.path === 'body.startTime'),
      JSON.stringify(past),
    );
    assert.equal((await memberView(mine.id)).startTime, at(mon, 21));
  });

  test('a wrong, malformed or unknown token is the same 404 on every manage route', async () => {
    const booked = expectStatus(await calls.book(slot(room.id, 6)), 201);
    const real: string = booked.manageToken;
    const flipped = real.replace(/[a-z]/, (c) => c.toUpperCase());
    assert.notEqual(flipped, real);
    const wrong = [
      randomToken(), // well formed, never issued
      flipped, // one character's case changed
      sha256(real), // the stored hash opens nothing
      real.slice(0, 42), // one character short
      `${real}A`, // one character long
      'abc',
      `${real.slice(0, 42)}.`,
      encodeURIComponent(`${real.slice(0, 42)} `),
    ];
    const messages = new Set<string>();
    for (const token of wrong) {
      for (const response of [
        await calls.view(token),
        await calls.confirm(token),
        await calls.cancel(token),
        await calls.reschedule(token, { startTime: at(mon, 4), endTime: at(mon, 5) }),
      ]) {
        const error = expectError(response, 404, 'NOT_FOUND');
        messages.add(error.message);
        // The request id is random hex: a short token like 'abc' may turn up in it by chance.
        assert.equal(response.body.replace(/"requestId":"[^"]*"/, '').includes(token), false);
      }
    }
    assert.deepEqual([...messages], ['Reservation not found']);
    // None of that touched the real one.
    assert.equal((await memberView(booked.id)).status, 'confirmed');
    assert.equal((await memberView(booked.id)).startTime, at(mon, 6));
  });

  test('a cancelled reservation’s link still shows it and refuses every change; an archived organisation’s links are 404', async () => {
    const booked = expectStatus(await calls.book(slot(room.id, 3)), 201);
    expectStatus(await as(t.app, owner).post(`/api/reservations/${booked.id}/cancel`), 200);
    const view = expectStatus(await calls.view(booked.manageToken), 200);
    assert.equal(view.status, 'cancelled');
    expectError(await calls.confirm(booked.manageToken), 409, 'INVALID_TRANSITION');
    expectError(await calls.cancel(booked.manageToken), 409, 'CONFLICT');
    expectError(
      await calls.reschedule(booked.manageToken, { startTime: at(mon, 4), endTime: at(mon, 5) }),
      409,
      'INVALID_TRANSITION',
    );
    assert.equal((await memberView(booked.id)).startTime, at(mon, 3));

    // An organisation archived by its owner takes its public pages and its links with it.
    const archivedSlug = `archived-${process.pid}`;
    const other = await ownerWithOrganisation(t.app, {
      name: 'Gone Ltd',
      slug: archivedSlug,
      timezone: 'UTC',
    });
    const type = await createType(t.app, other, { name: 'Desk' });
    const desk = await createResource(t.app, other, { name: 'Desk 1', resourceTypeId: type.id });
    const gone = publicCalls((options) => t.app.inject(options), archivedSlug);
    const kept = expectStatus(await gone.book(slot(desk.id, 9)), 201);
    expectStatus(await gone.view(kept.manageToken), 200);
    expectStatus(await as(t.app, other).delete(`/api/organisations/${other.organisationId}`), 200);
    expectError(await gone.view(kept.manageToken), 404, 'NOT_FOUND');
    expectError(await gone.cancel(kept.manageToken), 404, 'NOT_FOUND');
  });

  test("the token is in no member answer and no privacy export; a member's booking has one only its mails carry", async () => {
    const booked = expectStatus(await calls.book(slot(room.id, 1)), 201);
    const token: string = booked.manageToken;
    const hash = sha256(token);
    const memberBooking = expectStatus(
      await as(t.app, owner).post('/api/reservations', { customer, ...slot(room.id, 2) }),
      201,
    );
    assert.match(String(await storedHash(memberBooking.id)), /^[A-Za-z0-9_-]{43}$/);
    assert.equal(memberBooking.manageToken, undefined);

    const one = await as(t.app, owner).get(`/api/reservations/${booked.id}`);
    assert.equal(expectStatus(one, 200).id, booked.id);
    const list = await as(t.app, owner).get(`/api/reservations?resourceId=${room.id}&limit=100`);
    assert.ok(expectStatus(list, 200).items.some((r: { id: number }) => r.id === booked.id));
    const exported = await t.app.inject({ method: 'GET', url: `${PRIVACY}/export`, headers: owner.auth });
    const doc = parseExport(exported);
    assert.ok(doc.data.reservations.some((r: { id: number }) => r.id === memberBooking.id));
    for (const response of [one, list, exported]) {
      assert.equal(response.body.includes(token), false);
      assert.equal(response.body.includes(hash), false);
      assert.equal(/manageToken|manage_token/i.test(response.body), false, 'no manage field at all');
    }
  });

  test('with the publicBooking flag off the manage routes are 404 too', async () => {
    const off = await createTestApp({ FEATURE_FLAGS: JSON.stringify({ publicBooking: false }) });
    try {
      const offCalls = publicCalls((options) => off.app.inject(options), slug);
      const token = randomToken();
      for (const response of [
        await offCalls.view(token),
        await offCalls.confirm(token),
        await offCalls.cancel(token),
        await offCalls.reschedule(token, { startTime: at(mon, 4), endTime: at(mon, 5) }),
      ])
        expectError(response, 404, 'NOT_FOUND');
    } finally {
      await off.close();
    }
  });
});

/** Manage requests log their path with `[token]`, and no log line carries a manage token. */
describe('manage tokens never reach a log line', () => {
  let app: FastifyInstance;
  let db: Db;
  let drop: () => Promise<void>;
  const lines: string[] = [];
  const slug = `manage-logs-${process.pid}`;

  before(async () => {
    ({ db, drop } = await createTestDatabase());
    app = await buildApp(loadConfig({ ...TEST_ENV, LOG_LEVEL: 'debug', PUBLIC_RATE_LIMIT_MAX: '1000' }), {
      db,
      logStream: { write: (line: string) => lines.push(line) },
    });
    await app.ready();
  });
  after(async () => {
    await app.close();
    await drop();
  });

  test('booking, viewing, confirming, moving, cancelling and a typo after the token', async () => {
    const owner = await ownerWithOrganisation(app, { name: 'Logs Ltd', slug, timezone: 'UTC' });
    const type = await createType(app, owner, { name: 'Room' });
    const room = await createResource(app, owner, { name: 'Room 1', resourceTypeId: type.id });
    const calls = publicCalls((options) => app.inject(options), slug);
    const mon = futureMonday();
    lines.length = 0;
    const booked = expectStatus(
      await calls.book({ resourceId: room.id, startTime: at(mon, 9), endTime: at(mon, 10) }),
      201,
    );
    const held = expectStatus(
      await calls.hold({ resourceId: room.id, startTime: at(mon, 11), endTime: at(mon, 12) }),
      201,
    );
    const tokens: string[] = [booked.manageToken, held.manageToken];
    expectStatus(await calls.view(booked.manageToken), 200);
    expectStatus(await calls.confirm(held.manageToken), 200);
    expectStatus(
      await calls.reschedule(booked.manageToken, { startTime: at(mon, 13), endTime: at(mon, 14) }),
      200,
    );
    expectError(await calls.confirm(booked.manageToken), 409, 'INVALID_TRANSITION');
    expectStatus(await calls.cancel(booked.manageToken), 200);
    expectError(
      await app.inject({ method: 'GET', url: `/api/public/reservations/${booked.manageToken}/typo` }),
      404,
      'NOT_FOUND',
    );
    // The frontend's manage page path is redacted too.
    await app.inject({ method: 'GET', url: `/manage/${held.manageToken}` });

    const logged = lines.join('\n');
    for (const token of tokens) {
      assert.equal(logged.includes(token), false, 'a manage token was logged');
      assert.equal(logged.includes(sha256(token)), false, 'a manage token hash was logged');
    }
    const paths = lines
      .map((line) => JSON.parse(line) as { req?: { url?: string } })
      .map((entry) => entry.req?.url)
      .filter((url): url is string => url?.includes('/reservations/') === true);
    for (const path of [
      '/api/public/reservations/[token]',
      '/api/public/reservations/[token]/confirm',
      '/api/public/reservations/[token]/reschedule',
      '/api/public/reservations/[token]/cancel',
      '/api/public/reservations/[token]/typo',
    ])
      assert.ok(paths.includes(path), `${path} not in ${JSON.stringify(paths)}`);
  });
});
