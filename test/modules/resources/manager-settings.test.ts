import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/client';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../../src/app.js';
import { loadConfig } from '../../../src/config.js';
import type { Db } from '../../../src/db/database.js';
import { managersWhoLeft } from '../../../src/modules/resources/migrations/0054_managers_who_left.js';
import { createTestDatabase, type SignedInUser } from '../../helpers/app.js';
import { createResource, createType } from '../../helpers/catalogue.js';
import { call, expectStatus } from '../../helpers/http.js';
import { agentClient, MCP_TEST_ENV } from '../../helpers/mcp.js';
import { memberWithRole, ownerWithOrganisation } from '../../helpers/organisations.js';

type ToolResult = { isError?: boolean; structuredContent?: unknown };

/**
 * A member's calendars are theirs (DECISIONS.md "What the review found", issue 49 item 5):
 * `blockOnManagerCalendars` (their busy time on the public availability) and
 * `bookingCalendarId` (writes into their calendar) are turned on only by the resource's
 * manager themself, through REST and MCP alike; staff may name the manager and turn both
 * off (403 FORBIDDEN for turning them on: who asks, not what is asked). A new manager
 * starts with both off, and a member who leaves or is removed takes all three along.
 */
describe("a member's calendars are theirs", () => {
  let app: FastifyInstance;
  let db: Db;
  let dropDb: () => Promise<void>;
  const clients: Client[] = [];
  before(async () => {
    ({ db, drop: dropDb } = await createTestDatabase());
    app = await buildApp(loadConfig(MCP_TEST_ENV), { db, logger: false });
    await app.listen({ port: 0, host: '127.0.0.1' });
  });
  after(async () => {
    await Promise.all(clients.map((client) => client.close().catch(() => {})));
    await app.close();
    await dropDb();
  });

  const MON = '2031-03-24';
  const daily = [0, 1, 2, 3, 4, 5, 6].map((dayOfWeek) => ({
    dayOfWeek,
    openTime: '08:00',
    closeTime: '18:00',
  }));

  async function defaultCalendar(user: SignedInUser): Promise<number> {
    const calendars = expectStatus(await call(app, user, 'GET', '/api/calendars'), 200) as Array<{
      id: number;
      isDefault: boolean;
    }>;
    return calendars.find((calendar) => calendar.isDefault)!.id;
  }

  /** An organisation, a MEMBER with a dentist appointment 10:00-11:00, and a resource they manage (capacity 2: lanes too). */
  async function setup() {
    const owner = await ownerWithOrganisation(app, { timezone: 'UTC' });
    const admin = await memberWithRole(app, owner, 'ADMIN');
    const manager = await memberWithRole(app, owner, 'MANAGER');
    const member = await memberWithRole(app, owner, 'MEMBER');
    const calendarId = await defaultCalendar(member);
    expectStatus(
      await call(app, member, 'POST', `/api/calendars/${calendarId}/events`, {
        title: 'Dentist',
        startTime: `${MON}T10:00:00Z`,
        endTime: `${MON}T11:00:00Z`,
      }),
      201,
    );
    const type = await createType(app, owner, {
      minBookingDuration: 30,
      schedulePolicy: { operatingHours: daily },
    });
    const resource = await createResource(app, owner, {
      name: 'Chair',
      resourceTypeId: type.id,
      capacity: 2,
      managedById: member.id,
    });
    return { owner, admin, manager, member, calendarId, type, resource };
  }

  const patch = (user: SignedInUser, id: number, body: Record<string, unknown>) =>
    call(app, user, 'PATCH', `/api/resources/${id}`, body);
  const get = async (user: SignedInUser, id: number) =>
    expectStatus(await call(app, user, 'GET', `/api/resources/${id}`), 200);
  async function windows(user: SignedInUser, id: number) {
    const url = `/api/resources/${id}/availability?from=${MON}T08:00:00Z&to=${MON}T18:00:00Z`;
    const body = expectStatus(await call(app, user, 'GET', url), 200) as {
      windows: Array<{ start: string; end: string }>;
    };
    return body.windows.map((w) => `${w.start.slice(11, 16)}-${w.end.slice(11, 16)}`);
  }

  test("staff may name the manager, never turn on what reaches into the manager's calendars; the manager can", async () => {
    const { owner, admin, manager, member, calendarId, type, resource } = await setup();
    for (const staff of [owner, admin, manager]) {
      for (const body of [{ blockOnManagerCalendars: true }, { bookingCalendarId: calendarId }]) {
        expectStatus(await patch(staff, resource.id, body), 403, 'FORBIDDEN');
        expectStatus(
          await call(app, staff, 'POST', '/api/resources', {
            name: 'Published',
            resourceTypeId: type.id,
            managedById: member.id,
            ...body,
          }),
          403,
          'FORBIDDEN',
        );
      }
    }
    // Nothing was written: no resource created, the manager's settings untouched.
    const listed = expectStatus(await call(app, owner, 'GET', '/api/resources'), 200) as Array<{
      name: string;
    }>;
    assert.ok(!listed.some((r) => r.name === 'Published'));
    assert.deepEqual(await windows(owner, resource.id), ['08:00-18:00']);

    // The manager, a MEMBER, turns both on: their busy time now takes the resource's time.
    const on = expectStatus(
      await patch(member, resource.id, { blockOnManagerCalendars: true, bookingCalendarId: calendarId }),
      200,
    );
    assert.deepEqual([on.blockOnManagerCalendars, on.bookingCalendarId], [true, calendarId]);
    assert.deepEqual(await windows(owner, resource.id), ['08:00-10:00', '11:00-18:00']);

    // Their own settings only: any other field still needs a staff role; another MEMBER none of it.
    expectStatus(await patch(member, resource.id, { name: 'Mine' }), 403, 'FORBIDDEN');
    expectStatus(
      await patch(member, resource.id, { blockOnManagerCalendars: true, name: 'Mine' }),
      403,
      'FORBIDDEN',
    );
    const other = await memberWithRole(app, owner, 'MEMBER');
    expectStatus(await patch(other, resource.id, { blockOnManagerCalendars: false }), 403, 'FORBIDDEN');

    // Staff may save the resource as it is (the flags unchanged) and point the mirror nowhere else.
    expectStatus(await patch(admin, resource.id, { name: 'Chair', blockOnManagerCalendars: true }), 200);
    const second = expectStatus(
      await call(app, member, 'POST', '/api/calendars', { name: 'Private' }),
      201,
    ) as { id: number };
    expectStatus(await patch(admin, resource.id, { bookingCalendarId: second.id }), 403, 'FORBIDDEN');
    // ... and turn both off.
    const off = expectStatus(
      await patch(admin, resource.id, { blockOnManagerCalendars: false, bookingCalendarId: null }),
      200,
    );
    assert.deepEqual([off.blockOnManagerCalendars, off.bookingCalendarId], [false, null]);
    assert.deepEqual(await windows(owner, resource.id), ['08:00-18:00']);
  });

  test('a new manager (or none) starts with both off; staff cannot hand them over', async () => {
    const { owner, manager, member, calendarId, resource } = await setup();
    expectStatus(
      await patch(member, resource.id, { blockOnManagerCalendars: true, bookingCalendarId: calendarId }),
      200,
    );
    // Moving the resource to another manager and keeping the flags on in the same call: refused.
    expectStatus(
      await patch(owner, resource.id, { managedById: manager.id, blockOnManagerCalendars: true }),
      403,
      'FORBIDDEN',
    );
    assert.equal((await get(owner, resource.id)).managedById, member.id);
    const moved = expectStatus(await patch(owner, resource.id, { managedById: manager.id }), 200);
    assert.deepEqual(
      [moved.managedById, moved.blockOnManagerCalendars, moved.bookingCalendarId],
      [manager.id, false, null],
    );
    // A manager who is staff sets their own, on create too.
    const own = await defaultCalendar(manager);
    const mine = expectStatus(
      await patch(manager, resource.id, { blockOnManagerCalendars: true, bookingCalendarId: own }),
      200,
    );
    assert.deepEqual([mine.blockOnManagerCalendars, mine.bookingCalendarId], [true, own]);
    const created = await createResource(app, manager, {
      name: 'Desk',
      resourceTypeId: resource.resourceTypeId,
      managedById: manager.id,
      blockOnManagerCalendars: true,
      bookingCalendarId: own,
    });
    assert.deepEqual([created.blockOnManagerCalendars, created.bookingCalendarId], [true, own]);
    // Back to nobody: both off with it.
    const none = expectStatus(await patch(owner, resource.id, { managedById: null }), 200);
    assert.deepEqual(
      [none.managedById, none.blockOnManagerCalendars, none.bookingCalendarId],
      [null, false, null],
    );
  });

  test('a member removed, or leaving, takes all three along (lanes included); their busy time stops showing', async () => {
    for (const leaves of [false, true]) {
      const { owner, member, calendarId, resource } = await setup();
      expectStatus(
        await patch(member, resource.id, { blockOnManagerCalendars: true, bookingCalendarId: calendarId }),
        200,
      );
      assert.deepEqual(await windows(owner, resource.id), ['08:00-10:00', '11:00-18:00']);
      const by = leaves ? member : owner;
      expectStatus(
        await call(app, by, 'DELETE', `/api/organisations/${owner.organisationId}/users/${member.id}`),
        204,
      );

      const all = expectStatus(await call(app, owner, 'GET', '/api/resources'), 200) as Array<{
        id: number;
        parentResourceId: number | null;
        managedById: number | null;
        blockOnManagerCalendars: boolean;
        bookingCalendarId: number | null;
      }>;
      const family = all.filter((r) => r.id === resource.id || r.parentResourceId === resource.id);
      assert.equal(family.length, 3, 'the resource and its two lanes');
      for (const r of family)
        assert.deepEqual(
          [r.managedById, r.blockOnManagerCalendars, r.bookingCalendarId],
          [null, false, null],
        );
      assert.deepEqual(await windows(owner, resource.id), ['08:00-18:00'], 'the member busy time is gone');
    }
  });

  test('migration 0054: a manager who left before removal cleared it is cleared too', async () => {
    const { owner, member, calendarId, resource } = await setup();
    expectStatus(
      await patch(member, resource.id, { blockOnManagerCalendars: true, bookingCalendarId: calendarId }),
      200,
    );
    const kept = await createResource(app, owner, {
      name: 'Kept',
      resourceTypeId: resource.resourceTypeId,
      managedById: owner.id,
    });
    // As a removal left it before: the membership gone, the resource untouched.
    await db.kysely
      .deleteFrom('organisationMemberships')
      .where('organisationId', '=', owner.organisationId)
      .where('userId', '=', member.id)
      .execute();
    assert.equal((await get(owner, resource.id)).blockOnManagerCalendars, true);
    await managersWhoLeft(db.dialect).up(db.kysely as never);
    const cleared = await get(owner, resource.id);
    assert.deepEqual(
      [cleared.managedById, cleared.blockOnManagerCalendars, cleared.bookingCalendarId],
      [null, false, null],
    );
    assert.deepEqual(await windows(owner, resource.id), ['08:00-18:00']);
    assert.equal((await get(owner, kept.id)).managedById, owner.id, "a member's resource keeps its manager");
  });

  test('MCP resources_update and resources_create: the same rule for agents', async () => {
    const { owner, member, calendarId, type, resource } = await setup();
    const staffAgent = await agentClient(app, owner, 'operational_read_write');
    clients.push(staffAgent);
    for (const [name, args] of [
      ['resources_update', { resourceId: resource.id, blockOnManagerCalendars: true }],
      ['resources_update', { resourceId: resource.id, bookingCalendarId: calendarId }],
      [
        'resources_create',
        { name: 'Published', resourceTypeId: type.id, managedById: member.id, blockOnManagerCalendars: true },
      ],
    ] as const) {
      const refused = (await staffAgent.callTool({ name, arguments: args })) as ToolResult;
      assert.equal(refused.isError, true, JSON.stringify(refused));
      assert.equal((refused.structuredContent as { error: { code: string } }).error.code, 'FORBIDDEN');
    }
    const memberAgent = await agentClient(app, member, 'operational_read_write');
    clients.push(memberAgent);
    const done = (await memberAgent.callTool({
      name: 'resources_update',
      arguments: { resourceId: resource.id, blockOnManagerCalendars: true },
    })) as ToolResult;
    assert.equal(done.isError, undefined, JSON.stringify(done));
    assert.equal(
      (done.structuredContent as { blockOnManagerCalendars: boolean }).blockOnManagerCalendars,
      true,
    );
  });
});
