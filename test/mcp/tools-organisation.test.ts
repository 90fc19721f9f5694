import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ZodError } from 'zod';
import { ACTIONS } from '../../src/catalogue.js';
import { type Actor, agentActor, personActor } from '../../src/lib/actor.js';
import { DomainError } from '../../src/lib/errors.js';
import { compileTools } from '../../src/mcp/server.js';
import { bindTools, type ToolDefinition } from '../../src/mcp/types.js';
import { authTools } from '../../src/modules/auth/tools.js';
import { availabilityTools } from '../../src/modules/availability/tools.js';
import { organisationTools } from '../../src/modules/organisations/tools.js';
import { reservationTools } from '../../src/modules/reservations/tools.js';
import { resourceTypeTools } from '../../src/modules/resource-types/tools.js';
import { resourceTools } from '../../src/modules/resources/tools.js';
import { userGroupTools } from '../../src/modules/user-groups/tools.js';
import { waitlistTools } from '../../src/modules/waitlist/tools.js';
import { createTestApp, registerUser, type TestApp } from '../helpers/app.js';
import { at, customer, futureMonday } from '../helpers/booking.js';
import { defaultCalendarId } from '../helpers/calendars.js';
import { memberWithRole, type OrgOwner, ownerWithOrganisation } from '../helpers/organisations.js';
import { callTool, scopedAgent } from '../helpers/tool-harness.js';

const agentOf = (userId: number): Actor => agentActor(userId, { id: 1, actions: new Set(), scope: {} });

/** Asserts the call fails with this domain error code. */
async function rejectsWith(promise: Promise<unknown>, code: string) {
  await assert.rejects(promise, (error: unknown) => {
    assert.ok(error instanceof DomainError, `expected a DomainError, got ${String(error)}`);
    assert.equal(error.code, code);
    return true;
  });
}

describe('MCP tools: organisation side, people groups and profile', () => {
  let t: TestApp;
  let owner: OrgOwner;
  let agent: Actor;
  let tools: ToolDefinition[];
  const call = (actionKey: string, input: Record<string, unknown> = {}, actor: Actor = agent) =>
    callTool(tools, actionKey, actor, input);
  // biome-ignore lint/suspicious/noExplicitAny: tool answers are read loosely
  const read = async (actionKey: string, input: Record<string, unknown> = {}, actor?: Actor): Promise<any> =>
    call(actionKey, input, actor);

  before(async () => {
    t = await createTestApp();
    owner = await ownerWithOrganisation(t.app, { timezone: 'UTC' });
    agent = agentOf(owner.id);
    const s = t.app.services;
    tools = [
      ...bindTools(authTools, s.auth),
      ...bindTools(organisationTools, s.organisations),
      ...bindTools(resourceTypeTools, s.resourceTypes),
      ...bindTools(resourceTools, s.resources),
      ...bindTools(availabilityTools, s.availability),
      ...bindTools(reservationTools, s.reservations),
      ...bindTools(waitlistTools, s.waitlist),
      ...bindTools(userGroupTools, s.userGroups),
    ];
  });
  after(() => t.close());

  test('one tool per catalogue action of these domains, nothing more, nothing missing', () => {
    const prefixes = [
      'user.',
      'organisation.',
      'resourceTypes.',
      'resources.',
      'availability.',
      'pricing.',
      'reservations.',
      'calendar.userGroups.',
    ];
    const expected = ACTIONS.map((action) => action.key).filter((key) =>
      prefixes.some((prefix) => key.startsWith(prefix)),
    );
    assert.equal(expected.length, 40);
    assert.deepEqual(tools.map((tool) => tool.actionKey).sort(), expected.sort());
  });

  test('every input and output converts to JSON Schema, as the MCP server needs', () => {
    const catalogue = compileTools(tools, () => 'read');
    assert.equal(catalogue.byName.size, tools.length);
    assert.ok(catalogue.byName.has('availability_resource_read'));
  });

  test('user.profile.read answers the owner, no secrets', async () => {
    const profile = await read('user.profile.read');
    assert.equal(profile.id, owner.id);
    assert.equal(profile.email, owner.email);
    assert.equal(profile.activeOrganisationId, owner.organisationId);
    assert.ok(!('passwordHash' in profile));
    await assert.rejects(call('user.profile.read', { userId: 2 }), ZodError);
  });

  test('organisation.list, organisation.get and organisation.members.list', async () => {
    const { organisations } = await read('organisation.list');
    assert.equal(organisations.length, 1);
    assert.equal(organisations[0].id, owner.organisationId);
    assert.equal(organisations[0].role, 'OWNER');
    assert.equal(organisations[0].isActiveOrganisation, true);

    const organisation = await read('organisation.get', { organisationId: owner.organisationId });
    assert.equal(organisation.name, 'Acme');
    assert.equal(organisation.timezone, 'UTC');

    const { members } = await read('organisation.members.list', { organisationId: owner.organisationId });
    assert.deepEqual(
      members.map((m: { userId: number; role: string }) => [m.userId, m.role]),
      [[owner.id, 'OWNER']],
    );

    const stranger = await registerUser(t.app, 'Stranger');
    await rejectsWith(
      call('organisation.get', { organisationId: owner.organisationId }, agentOf(stranger.id)),
      'NOT_FOUND',
    );
    await assert.rejects(call('organisation.get', { organisationId: '1' }), ZodError);
  });

  test('resource types: create, list, get, update, pricing.read, delete', async () => {
    const created = await read('resourceTypes.create', {
      name: 'Court',
      minBookingDuration: 30,
      pricingEnabled: true,
      priceAmount: 1500,
      priceCurrency: 'eur',
      paymentRequired: true,
    });
    assert.equal(created.name, 'Court');
    assert.equal(created.organisationId, owner.organisationId);

    const { resourceTypes } = await read('resourceTypes.list');
    assert.ok(resourceTypes.some((type: { id: number }) => type.id === created.id));

    const got = await read('resourceTypes.get', { resourceTypeId: created.id });
    assert.equal(got.minBookingDuration, 30);

    const updated = await read('resourceTypes.update', { resourceTypeId: created.id, name: 'Tennis court' });
    assert.equal(updated.name, 'Tennis court');
    assert.equal(updated.priceAmount, 1500);

    const pricing = await read('pricing.read', { resourceTypeId: created.id });
    assert.deepEqual(pricing, {
      id: created.id,
      name: 'Tennis court',
      pricingEnabled: true,
      priceAmount: 1500,
      priceCurrency: 'eur',
      paymentRequired: true,
    });

    assert.deepEqual(await read('resourceTypes.delete', { resourceTypeId: created.id }), { deleted: true });
    await rejectsWith(call('resourceTypes.get', { resourceTypeId: created.id }), 'NOT_FOUND');

    // The module's own body schemas validate: server-derived and unknown fields, bad values.
    await assert.rejects(call('resourceTypes.create', { name: 'X', organisationId: 9 }), ZodError);
    await assert.rejects(call('resourceTypes.create', { name: 'X', bufferTime: -1 }), ZodError);
    await assert.rejects(call('resourceTypes.update', { resourceTypeId: 1, colour: '#fff' }), ZodError);
    await assert.rejects(call('pricing.read', {}), ZodError);
  });

  test('resources: create, list, get, schedule.read, update, delete, deleteWithLanes', async () => {
    const type = await read('resourceTypes.create', { name: 'Desk' });
    const single = await read('resources.create', { name: 'Desk 1', resourceTypeId: type.id });
    assert.equal(single.resourceTypeId, type.id);
    assert.equal(single.capacity, 1);
    const parent = await read('resources.create', { name: 'Hall', resourceTypeId: type.id, capacity: 2 });

    const { resources } = await read('resources.list', { resourceTypeId: type.id });
    assert.equal(resources.length, 4, 'two resources and the two lanes of the hall');
    assert.equal(
      resources.filter((r: { parentResourceId: number | null }) => r.parentResourceId === parent.id).length,
      2,
    );

    const got = await read('resources.get', { resourceId: single.id });
    assert.equal(got.name, 'Desk 1');
    assert.equal(got.timezone, 'UTC', "a schedule's local times come with their zone");

    const schedule = await read('resources.schedule.read', { resourceId: single.id });
    assert.ok(['continuous', 'shifts'].includes(schedule.availabilityMode));
    assert.ok(schedule.sources);
    assert.equal(schedule.timezone, 'UTC');

    const updated = await read('resources.update', { resourceId: single.id, description: 'By the window' });
    assert.equal(updated.description, 'By the window');

    await rejectsWith(call('resources.delete', { resourceId: parent.id }), 'RESOURCE_HAS_CHILD_LANES');
    assert.deepEqual(await read('resources.deleteWithLanes', { resourceId: parent.id }), { deleted: true });
    assert.deepEqual(await read('resources.delete', { resourceId: single.id }), { deleted: true });
    await rejectsWith(call('resources.get', { resourceId: single.id }), 'NOT_FOUND');

    await assert.rejects(
      call('resources.create', { name: 'Lane', resourceTypeId: type.id, isCapacityChild: true }),
      ZodError,
    );
    await assert.rejects(
      call('resources.create', { name: 'Big', resourceTypeId: type.id, capacity: 0 }),
      ZodError,
    );
    await assert.rejects(call('resources.get', { resourceId: 0 }), ZodError);
  });

  test('a MEMBER’s agent cannot write the catalogue: the owner’s rights are the ceiling', async () => {
    const type = await read('resourceTypes.create', { name: 'Locker' });
    const member = await memberWithRole(t.app, owner, 'MEMBER');
    const memberAgent = agentOf(member.id);
    await rejectsWith(
      call('resources.create', { name: 'Locker 1', resourceTypeId: type.id }, memberAgent),
      'FORBIDDEN',
    );
    await rejectsWith(call('resourceTypes.create', { name: 'Mine' }, memberAgent), 'FORBIDDEN');
    // Reading stays open to any member.
    const { resourceTypes } = await read('resourceTypes.list', {}, memberAgent);
    assert.ok(resourceTypes.some((candidate: { id: number }) => candidate.id === type.id));
  });

  test('availability of a resource and of a resource type', async () => {
    const type = await read('resourceTypes.create', { name: 'Studio' });
    const studio = await read('resources.create', { name: 'Studio A', resourceTypeId: type.id });
    const mon = futureMonday();
    const range = { from: at(mon, 0), to: at(mon, 24) };

    const ofResource = await read('availability.resource.read', { resourceId: studio.id, ...range });
    assert.equal(ofResource.resourceId, studio.id);
    assert.equal(ofResource.timezone, 'UTC');
    assert.ok(ofResource.windows ?? ofResource.slots);

    const ofType = await read('availability.resourceType.read', { resourceTypeId: type.id, ...range });
    assert.equal(ofType.resourceTypeId, type.id);
    assert.equal(ofType.bookingMode, 'SINGLE_RESOURCE');
    assert.deepEqual(
      ofType.resources.map((r: { resourceId: number }) => r.resourceId),
      [studio.id],
    );

    // The REST range rules hold: to after from, at most 62 days, zoned instants.
    await assert.rejects(
      call('availability.resource.read', { resourceId: studio.id, from: range.to, to: range.from }),
      ZodError,
    );
    await assert.rejects(
      call('availability.resourceType.read', {
        resourceTypeId: type.id,
        from: at(mon, 0),
        to: at(mon, 24 * 63),
      }),
      ZodError,
    );
    await assert.rejects(
      call('availability.resource.read', { resourceId: studio.id, from: '2030-01-01', to: '2030-01-02' }),
      ZodError,
    );
  });

  test('availability.explain: why a time can or cannot be booked, for staff', async () => {
    const type = await read('resourceTypes.create', {
      name: 'Desk',
      minBookingDuration: 60,
      schedulePolicy: {
        operatingHours: [1, 2, 3, 4, 5].map((d) => ({ dayOfWeek: d, openTime: '09:00', closeTime: '17:00' })),
      },
    });
    const desk = await read('resources.create', { name: 'Desk 1', resourceTypeId: type.id });
    const mon = futureMonday();
    const free = await read('availability.explain', {
      resourceId: desk.id,
      startTime: at(mon, 10),
      endTime: at(mon, 11),
    });
    assert.deepEqual(free, {
      bookable: true,
      resources: [{ resourceId: desk.id, bookable: true, reasons: [] }],
    });
    const early = await read('availability.explain', {
      resourceTypeId: type.id,
      startTime: at(mon, 8),
      endTime: at(mon, 10),
    });
    assert.equal(early.bookable, false);
    assert.deepEqual(
      early.resources[0].reasons.map((r: { code: string; from: string; to: string }) => [
        r.code,
        r.from,
        r.to,
      ]),
      [['OUTSIDE_HOURS', at(mon, 8), at(mon, 9)]],
    );
    const window = { startTime: at(mon, 10), endTime: at(mon, 11) };
    await assert.rejects(call('availability.explain', window), ZodError);
    await assert.rejects(
      call('availability.explain', { ...window, resourceId: desk.id, resourceTypeId: type.id }),
      ZodError,
    );
    const member = await memberWithRole(t.app, owner, 'MEMBER');
    await rejectsWith(
      call('availability.explain', { ...window, resourceId: desk.id }, agentOf(member.id)),
      'FORBIDDEN',
    );
  });

  test('reservations: create (source mcp), list, get, cancel', async () => {
    const type = await read('resourceTypes.create', { name: 'Room' });
    const room = await read('resources.create', { name: 'Room 1', resourceTypeId: type.id });
    const mon = futureMonday();
    const booked = await read('reservations.create', {
      resourceId: room.id,
      startTime: at(mon, 9),
      endTime: at(mon, 10),
      customer,
    });
    assert.equal(booked.source, 'mcp');
    assert.equal(booked.createdByUserId, owner.id);
    assert.equal(booked.status, 'confirmed');

    const listed = await read('reservations.list', { resourceId: room.id, limit: 10 });
    assert.deepEqual(
      listed.items.map((r: { id: number }) => r.id),
      [booked.id],
    );
    assert.equal(listed.nextCursor, null);

    const got = await read('reservations.get', { reservationId: booked.id });
    assert.equal(got.id, booked.id);

    const cancelled = await read('reservations.cancel', { reservationId: booked.id });
    assert.equal(cancelled.status, 'cancelled');
    await rejectsWith(call('reservations.cancel', { reservationId: booked.id }), 'CONFLICT');

    const slot = { resourceId: room.id, startTime: at(mon, 11), endTime: at(mon, 12), customer };
    await assert.rejects(call('reservations.create', { ...slot, priceAmount: 1 }), ZodError);
    await assert.rejects(call('reservations.create', { ...slot, resourceId: undefined }), ZodError);
    await assert.rejects(call('reservations.list', { from: at(mon, 10), to: at(mon, 9) }), ZodError);
    await assert.rejects(call('reservations.get', { id: booked.id }), ZodError);
  });

  test('people groups: list, details, invite, accept, attach and detach calendars', async () => {
    const group = await t.app.services.userGroups.create(personActor(owner.id), { name: 'Family' });
    const calendarId = await defaultCalendarId(t.app, owner);

    const { groups } = await read('calendar.userGroups.list');
    assert.deepEqual(
      groups.map((g: { id: number; role: string }) => [g.id, g.role]),
      [[group.id, 'owner']],
    );

    const details = await read('calendar.userGroups.details', { groupId: group.id });
    assert.equal(details.name, 'Family');
    assert.deepEqual(details.calendars, []);

    const invite = await read('calendar.userGroups.createInvite', { groupId: group.id, expiresInHours: 2 });
    assert.equal(invite.groupName, 'Family');
    assert.equal(typeof invite.token, 'string');

    const friend = await registerUser(t.app, 'Friend');
    const joined = await read(
      'calendar.userGroups.acceptInvite',
      { token: invite.token },
      agentOf(friend.id),
    );
    assert.deepEqual(
      joined.members.map((m: { userId: number }) => m.userId).sort((a: number, b: number) => a - b),
      [owner.id, friend.id].sort((a, b) => a - b),
    );

    const attached = await read('calendar.userGroups.attachCalendars', {
      groupId: group.id,
      calendarIds: [calendarId],
    });
    assert.deepEqual(
      attached.calendars.map((c: { calendarId: number }) => c.calendarId),
      [calendarId],
    );
    const detached = await read('calendar.userGroups.detachCalendars', {
      groupId: group.id,
      calendarIds: [calendarId],
    });
    assert.deepEqual(detached.calendars, []);

    // A member who does not own the group cannot invite.
    await rejectsWith(
      call('calendar.userGroups.createInvite', { groupId: group.id }, agentOf(friend.id)),
      'FORBIDDEN',
    );

    await assert.rejects(
      call('calendar.userGroups.attachCalendars', { groupId: group.id, calendarIds: [] }),
      ZodError,
    );
    await assert.rejects(
      call('calendar.userGroups.createInvite', { groupId: group.id, expiresInHours: 721 }),
      ZodError,
    );
    await assert.rejects(call('calendar.userGroups.acceptInvite', { token: '' }), ZodError);
  });

  test('people groups outside the agent’s scope answer NOT_FOUND', async () => {
    const inScope = await t.app.services.userGroups.create(personActor(owner.id), { name: 'In scope' });
    const outside = await t.app.services.userGroups.create(personActor(owner.id), { name: 'Outside' });
    const calendarId = await defaultCalendarId(t.app, owner);
    const scoped = scopedAgent(owner.id, { groupIds: [inScope.id] });

    const { groups } = await read('calendar.userGroups.list', {}, scoped);
    assert.deepEqual(
      groups.map((g: { id: number }) => g.id),
      [inScope.id],
    );
    await read('calendar.userGroups.details', { groupId: inScope.id }, scoped);
    await rejectsWith(call('calendar.userGroups.details', { groupId: outside.id }, scoped), 'NOT_FOUND');
    await rejectsWith(call('calendar.userGroups.createInvite', { groupId: outside.id }, scoped), 'NOT_FOUND');
    await rejectsWith(
      call('calendar.userGroups.attachCalendars', { groupId: outside.id, calendarIds: [calendarId] }, scoped),
      'NOT_FOUND',
    );
    await rejectsWith(
      call('calendar.userGroups.detachCalendars', { groupId: outside.id, calendarIds: [calendarId] }, scoped),
      'NOT_FOUND',
    );

    // An invite to a group outside the scope reads as unknown too.
    const invite = await t.app.services.userGroups.createInvite(personActor(owner.id), outside.id);
    const friend = await registerUser(t.app, 'Friend');
    await rejectsWith(
      call(
        'calendar.userGroups.acceptInvite',
        { token: invite.token },
        scopedAgent(friend.id, { groupIds: [] }),
      ),
      'NOT_FOUND',
    );
  });
});
