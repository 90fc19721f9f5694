import assert from 'node:assert/strict';
import { after, afterEach, before, describe, mock, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/client';
import { createTestApp, type TestApp } from '../../helpers/app.js';
import { at, createReservation, customer, futureMonday } from '../../helpers/booking.js';
import { createResource, createType } from '../../helpers/catalogue.js';
import { as, expectStatus } from '../../helpers/http.js';
import { agentClient } from '../../helpers/mcp.js';
import { type OrgOwner, ownerWithOrganisation, withApiKey } from '../../helpers/organisations.js';
import { type FeedEvent, feedReader } from './helpers.js';

type ToolResult = { isError?: boolean; structuredContent?: unknown };

/**
 * Every reservation write path without payment writes exactly its events (issue 24), with
 * the reservation's record as GET /api/reservations/:id answers it right after the change:
 * member (REST and MCP) and public bookings and holds, confirm (the one-statement fast path
 * and the read one), release, cancel (member and manage link), reschedule, expiry by the
 * job and by a booking’s lane sweep. Payment paths: test/modules/reservations/payment.test.ts.
 */
describe('reservation events', () => {
  let t: TestApp;
  let owner: OrgOwner;
  let room: { id: number };
  let feed: ReturnType<typeof feedReader>;
  let client: Client;
  const slug = `outbox-${process.pid}`;
  const mon = futureMonday();
  let slots = 0;
  /** A fresh hour on the room next week (09:00 to 17:00, Monday to Friday) for each booking. */
  const slot = () => {
    const day = new Date(mon.getTime() + Math.floor(slots / 8) * 86_400_000);
    const minutes = (9 + (slots % 8)) * 60;
    slots += 1;
    return {
      resourceId: room.id,
      startTime: at(day, 0, minutes),
      endTime: at(day, 0, minutes + 60),
    };
  };

  before(async () => {
    t = await createTestApp({
      PUBLIC_RATE_LIMIT_MAX: '1000',
      MCP_ALLOWED_ORIGINS: 'https://agent-console.test',
    });
    owner = await withApiKey(t.app, await ownerWithOrganisation(t.app, { timezone: 'UTC', slug }));
    const type = await createType(t.app, owner, { name: 'Room' });
    room = await createResource(t.app, owner, { name: 'Room 1', resourceTypeId: type.id });
    feed = feedReader(t.app, owner, `/api/organisations/${owner.organisationId}/events`);
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    client = await agentClient(t.app, owner, 'reservations_operator');
  });
  after(async () => {
    await client.close().catch(() => {});
    await t.close();
  });
  afterEach(() => mock.timers.reset());

  /** A login JWT lives 15 minutes; a user API key carries a user across the fake clock. */

  const get = async (id: number) => expectStatus(await as(t.app, owner).get(`/api/reservations/${id}`), 200);
  const tool = async (name: string, args: Record<string, unknown>) => {
    const result = (await client.callTool({ name, arguments: args })) as ToolResult;
    assert.ok(!result.isError, JSON.stringify(result.structuredContent));
    return result.structuredContent as { id: number };
  };

  /** Runs `change`; asserts it wrote exactly `types`, each about the reservation it answers, carrying its record now. */
  async function expectEvents(
    types: string[],
    change: () => Promise<{ id: number }>,
    userId: number | null = owner.id,
  ) {
    let changed: { id: number } | undefined;
    const seen = await feed.around(async () => {
      changed = await change();
    });
    assert.deepEqual(seen.types, types);
    const record = await get(changed!.id);
    const last = seen.events[seen.events.length - 1]!;
    assert.deepEqual(last.data, record, 'the last event carries the record as the API answers it');
    for (const event of seen.events) {
      assert.equal(event.organisationId, owner.organisationId);
      assert.equal(event.userId, userId);
      assert.equal(event.data.id, changed!.id);
      assert.equal(event.occurredAt, record.updatedAt);
    }
    return { events: seen.events, record };
  }

  const rest = {
    book: () => createReservation(t.app, owner, slot()),
    hold: async (holdSeconds = 600) =>
      expectStatus(
        await as(t.app, owner).post('/api/reservations/holds', { customer, holdSeconds, ...slot() }),
        201,
      ),
    post: async (path: string, body?: Record<string, unknown>) =>
      expectStatus(await as(t.app, owner).post(path, body), 200),
  };
  const publicCall = async (path: string, body: Record<string, unknown> = {}) => {
    const response = await t.app.inject({ method: 'POST', url: `/api/public${path}`, payload: body });
    assert.ok(response.statusCode < 300, response.body);
    return response.json();
  };

  test('a member booking (REST, MCP): reservation.created', async () => {
    await expectEvents(['reservation.created'], rest.book);
    const { events } = await expectEvents(['reservation.created'], () =>
      tool('reservations_create', { customer, ...slot() }),
    );
    assert.equal(events[0]!.data.source, 'mcp');
  });

  test('a member hold (REST, MCP): reservation.held', async () => {
    await expectEvents(['reservation.held'], () => rest.hold());
    await expectEvents(['reservation.held'], () =>
      tool('reservations_hold', { customer, holdSeconds: 600, ...slot() }),
    );
  });

  test('a public booking and hold: reservation.created, reservation.held, with no user', async () => {
    const base = `/organisations/${slug}`;
    const { events } = await expectEvents(
      ['reservation.created'],
      () => publicCall(`${base}/reservations`, { customer, ...slot() }),
      null,
    );
    assert.equal(events[0]!.data.source, 'public_slug');
    assert.ok(!JSON.stringify(events[0]).includes('manage'), 'no manage token nor its hash');
    await expectEvents(
      ['reservation.held'],
      () => publicCall(`${base}/holds`, { customer, ...slot() }),
      null,
    );
  });

  test('confirming a hold (the one-statement path, REST and MCP): reservation.confirmed', async () => {
    const fast = await rest.hold();
    await expectEvents(['reservation.confirmed'], () => rest.post(`/api/reservations/${fast.id}/confirm`));
    const viaTool = await rest.hold();
    await expectEvents(['reservation.confirmed'], () =>
      tool('reservations_confirm', { reservationId: viaTool.id }),
    );
  });

  test('releasing a hold (REST, MCP) and cancelling a booking: reservation.cancelled', async () => {
    const held = await rest.hold();
    await expectEvents(['reservation.cancelled'], () => rest.post(`/api/reservations/${held.id}/release`));
    const heldByTool = await rest.hold();
    await expectEvents(['reservation.cancelled'], () =>
      tool('reservations_release', { reservationId: heldByTool.id }),
    );
    const booked = await rest.book();
    await expectEvents(['reservation.cancelled'], () => rest.post(`/api/reservations/${booked.id}/cancel`));
  });

  test('a manage link cancels, confirms and reschedules: their events', async () => {
    const held = await publicCall(`/organisations/${slug}/holds`, { customer, ...slot() });
    await expectEvents(
      ['reservation.confirmed'],
      () => publicCall(`/reservations/${held.manageToken}/confirm`),
      null,
    );
    const next = slot();
    await expectEvents(
      ['reservation.rescheduled'],
      () =>
        publicCall(`/reservations/${held.manageToken}/reschedule`, {
          startTime: next.startTime,
          endTime: next.endTime,
        }),
      null,
    );
    await expectEvents(
      ['reservation.cancelled'],
      () => publicCall(`/reservations/${held.manageToken}/cancel`),
      null,
    );
  });

  test('a reschedule (REST, MCP): reservation.rescheduled with the new times', async () => {
    const booked = await rest.book();
    const to = slot();
    const { record } = await expectEvents(['reservation.rescheduled'], () =>
      rest.post(`/api/reservations/${booked.id}/reschedule`, {
        startTime: to.startTime,
        endTime: to.endTime,
      }),
    );
    assert.equal(record.startTime, to.startTime);
    const again = slot();
    await expectEvents(['reservation.rescheduled'], () =>
      tool('reservations_reschedule', {
        reservationId: booked.id,
        startTime: again.startTime,
        endTime: again.endTime,
      }),
    );
    // A dry run writes nothing, so no event.
    const dry = slot();
    const seen = await feed.around(async () =>
      expectStatus(
        await as(t.app, owner).post(`/api/reservations/${booked.id}/reschedule?dryRun=true`, {
          startTime: dry.startTime,
          endTime: dry.endTime,
        }),
        200,
      ),
    );
    assert.deepEqual(seen.types, []);
  });

  test('expiry by the job, and by a booking sweeping its lane: reservation.expired', async () => {
    const start = Date.now();
    mock.timers.enable({ apis: ['Date'], now: start });
    const lapsing = await rest.hold(60);
    mock.timers.setTime(start + 61_000);
    const { events } = await expectEvents(['reservation.expired'], async () => {
      await t.app.services.reservations.expireDue();
      return lapsing;
    });
    assert.equal(events[0]!.data.status, 'expired');

    // A hold lapses on the only lane; a booking of its time marks it first, in its own write.
    const swept = await rest.hold(60);
    mock.timers.setTime(start + 122_000);
    const seen = await feed.around(async () =>
      expectStatus(
        await as(t.app, owner).post('/api/reservations', {
          customer,
          resourceId: room.id,
          startTime: swept.startTime,
          endTime: swept.endTime,
        }),
        201,
      ),
    );
    assert.deepEqual(seen.types, ['reservation.expired', 'reservation.created']);
    const [expired, created] = seen.events as [FeedEvent, FeedEvent];
    assert.equal(expired.data.id, swept.id);
    assert.deepEqual(expired.data, await get(swept.id));
    assert.deepEqual(created.data, await get(created.data.id));
  });

  test('refused and dry-run bookings write no event', async () => {
    const booked = await rest.book();
    const seen = await feed.around(async () => {
      const taken = await as(t.app, owner).post('/api/reservations', {
        customer,
        resourceId: room.id,
        startTime: booked.startTime,
        endTime: booked.endTime,
      });
      assert.equal(taken.statusCode, 409);
      expectStatus(
        await as(t.app, owner).post('/api/reservations?dryRun=true', { customer, ...slot() }),
        200,
      );
    });
    assert.deepEqual(seen.types, []);
  });
});
