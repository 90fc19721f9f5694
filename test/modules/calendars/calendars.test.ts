import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { personActor } from '../../../src/lib/actor.js';
import { createAuthService } from '../../../src/modules/auth/service.js';
import { createTestApp, registerUser, type TestApp, uniqueEmail } from '../../helpers/app.js';
import { createCalendar, createEvent, defaultCalendarId, rangeQuery } from '../../helpers/calendars.js';
import { as, expectError, expectStatus } from '../../helpers/http.js';
import { scopedAgent } from '../../helpers/tool-harness.js';

describe('calendars', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp();
  });
  after(() => t.close());

  test('registration creates a default calendar that cannot be deleted (409 DEFAULT_CALENDAR)', async () => {
    const user = await registerUser(t.app);
    const list = expectStatus(await as(t.app, user).get('/api/calendars'), 200);
    assert.equal(list.length, 1);
    const [calendar] = list;
    assert.deepEqual(Object.keys(calendar).sort(), [
      'accessRole',
      'color',
      'createdAt',
      'description',
      'id',
      'isDefault',
      'name',
      'ownerId',
      'timezone',
      'updatedAt',
    ]);
    assert.equal(calendar.isDefault, true);
    assert.equal(calendar.ownerId, user.id);
    assert.equal(calendar.accessRole, 'owner');
    assert.equal(calendar.name, 'Personal');
    assert.equal(calendar.timezone, 'UTC');

    const error = expectError(
      await as(t.app, user).delete(`/api/calendars/${calendar.id}`),
      409,
      'DEFAULT_CALENDAR',
    );
    assert.match(error.message, /default/);
    expectStatus(await as(t.app, user).get(`/api/calendars/${calendar.id}`), 200);
  });

  test('users created from the command line get a default calendar too', async () => {
    const user = await t.app.services.auth.createUser({
      email: uniqueEmail(),
      password: 'a long enough password',
      name: 'Cli',
    });
    const calendars = await t.app.services.calendars.list(personActor(user.id));
    assert.equal(calendars.length, 1);
    assert.equal(calendars[0]?.isDefault, true);
  });

  test('the user and the default calendar are created together or not at all', async () => {
    const email = uniqueEmail();
    const auth = createAuthService({
      db: t.db,
      config: t.app.config,
      store: t.app.store,
      onUserCreated: async () => {
        throw new Error('calendar creation failed');
      },
    });
    await assert.rejects(
      auth.createUser({ email, password: 'a long enough password', name: 'X' }),
      /calendar creation failed/,
    );
    const row = await t.db.kysely
      .selectFrom('users')
      .select('id')
      .where('email', '=', email)
      .executeTakeFirst();
    assert.equal(row, undefined);
  });

  test('create, read, change and delete a calendar', async () => {
    const user = await registerUser(t.app);
    const api = as(t.app, user);
    const created = expectStatus(
      await api.post('/api/calendars', {
        name: ' Work ',
        color: '#FF0000',
        timezone: 'Europe/Berlin',
        description: 'Office',
      }),
      201,
    );
    assert.equal(created.name, 'Work');
    assert.equal(created.color, '#ff0000');
    assert.equal(created.timezone, 'Europe/Berlin');
    assert.equal(created.description, 'Office');
    assert.equal(created.isDefault, false);

    const plain = await createCalendar(t.app, user, { name: 'Another' });
    const defaults = expectStatus(await api.get(`/api/calendars/${plain.id}`), 200);
    assert.equal(defaults.color, '#3b82f6');
    assert.equal(defaults.timezone, 'UTC');
    assert.equal(defaults.description, null);

    const list = expectStatus(await api.get('/api/calendars'), 200);
    assert.deepEqual(
      list.map((c: { name: string }) => c.name),
      ['Personal', 'Another', 'Work'],
    );

    const changed = expectStatus(
      await api.patch(`/api/calendars/${created.id}`, {
        name: 'Office',
        timezone: 'America/New_York',
        description: null,
      }),
      200,
    );
    assert.equal(changed.name, 'Office');
    assert.equal(changed.timezone, 'America/New_York');
    assert.equal(changed.description, null);
    assert.equal(changed.color, '#ff0000');

    const event = await createEvent(t.app, user, created.id);
    expectStatus(await api.delete(`/api/calendars/${created.id}`), 204);
    expectError(await api.get(`/api/calendars/${created.id}`), 404, 'NOT_FOUND');
    expectError(await api.get(`/api/events/${event.id}`), 404, 'NOT_FOUND');
  });

  test('bodies are validated: time zone, colour, unknown fields', async () => {
    const user = await registerUser(t.app);
    const api = as(t.app, user);
    const badZone = expectError(
      await api.post('/api/calendars', { name: 'X', timezone: 'Mars/Olympus' }),
      400,
      'VALIDATION_FAILED',
    );
    assert.ok(badZone.details?.some((d) => d.path === 'body.timezone'));
    expectError(await api.post('/api/calendars', { name: 'X', color: 'red' }), 400, 'VALIDATION_FAILED');
    expectError(await api.post('/api/calendars', { name: '' }), 400, 'VALIDATION_FAILED');
    const unknown = expectError(
      await api.post('/api/calendars', { name: 'X', ownerId: 1 }),
      400,
      'VALIDATION_FAILED',
    );
    assert.match(unknown.details?.[0]?.message ?? '', /unknown field.*ownerId/);
    const id = await defaultCalendarId(t.app, user);
    expectError(await api.patch(`/api/calendars/${id}`, { accessRole: 'reader' }), 400, 'VALIDATION_FAILED');
    expectError(await api.get('/api/calendars/abc'), 400, 'VALIDATION_FAILED');
  });

  test('the default moves with isDefault: true and cannot be switched off', async () => {
    const user = await registerUser(t.app);
    const api = as(t.app, user);
    const first = await defaultCalendarId(t.app, user);
    const second = await createCalendar(t.app, user, { name: 'Second' });

    expectError(await api.patch(`/api/calendars/${first}`, { isDefault: false }), 409, 'DEFAULT_CALENDAR');
    const moved = expectStatus(await api.patch(`/api/calendars/${second.id}`, { isDefault: true }), 200);
    assert.equal(moved.isDefault, true);
    assert.equal(expectStatus(await api.get(`/api/calendars/${first}`), 200).isDefault, false);
    assert.equal(await defaultCalendarId(t.app, user), second.id);

    expectError(await api.delete(`/api/calendars/${second.id}`), 409, 'DEFAULT_CALENDAR');
    expectStatus(await api.delete(`/api/calendars/${first}`), 204);

    const third = expectStatus(await api.post('/api/calendars', { name: 'Third', isDefault: true }), 201);
    assert.equal(third.isDefault, true);
    const list = expectStatus(await api.get('/api/calendars'), 200);
    assert.deepEqual(
      list.filter((c: { isDefault: boolean }) => c.isDefault).map((c: { id: number }) => c.id),
      [third.id],
    );
  });

  test("another user's calendar answers 404 on every route", async () => {
    const owner = await registerUser(t.app);
    const stranger = await registerUser(t.app);
    const calendar = await createCalendar(t.app, owner, { name: 'Private' });
    const api = as(t.app, stranger);
    expectError(await api.get(`/api/calendars/${calendar.id}`), 404, 'NOT_FOUND');
    expectError(await api.patch(`/api/calendars/${calendar.id}`, { name: 'Mine' }), 404, 'NOT_FOUND');
    expectError(await api.delete(`/api/calendars/${calendar.id}`), 404, 'NOT_FOUND');
    expectError(
      await api.get(
        `/api/calendars/${calendar.id}/events?${rangeQuery('2025-01-01T00:00:00Z', '2025-02-01T00:00:00Z')}`,
      ),
      404,
      'NOT_FOUND',
    );
    expectError(
      await api.post(`/api/calendars/${calendar.id}/events`, {
        title: 'Intrusion',
        startTime: '2025-01-01T10:00:00Z',
        endTime: '2025-01-01T11:00:00Z',
      }),
      404,
      'NOT_FOUND',
    );
    const theirs = expectStatus(await api.get('/api/calendars'), 200);
    assert.ok(theirs.every((c: { ownerId: number }) => c.ownerId === stranger.id));
    assert.equal(
      expectStatus(await as(t.app, owner).get(`/api/calendars/${calendar.id}`), 200).name,
      'Private',
    );
    expectError(await api.get('/api/calendars/999999'), 404, 'NOT_FOUND');
  });

  test('routes need a credential', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/api/calendars' });
    expectError(response, 401, 'UNAUTHENTICATED');
  });

  test('a scope passed to the service restricts calendar reads and writes', async () => {
    const user = await registerUser(t.app);
    const other = await registerUser(t.app);
    const { calendars } = t.app.services;
    const a = await createCalendar(t.app, user, { name: 'A' });
    const b = await createCalendar(t.app, user, { name: 'B' });
    const foreign = await createCalendar(t.app, other, { name: 'Foreign' });

    const full = personActor(user.id);
    assert.equal((await calendars.list(full)).length, 3);

    const scoped = scopedAgent(user.id, { calendarIds: [a.id, foreign.id] });
    assert.deepEqual(
      (await calendars.list(scoped)).map((c) => c.id),
      [a.id],
    );
    assert.equal((await calendars.get(scoped, a.id)).name, 'A');
    await assert.rejects(calendars.get(scoped, b.id), { code: 'NOT_FOUND' });
    // A scope naming someone else's calendar gives no right to it.
    await assert.rejects(calendars.get(scoped, foreign.id), { code: 'NOT_FOUND' });
    await assert.rejects(calendars.update(scoped, b.id, { name: 'Changed' }), { code: 'NOT_FOUND' });
    await assert.rejects(calendars.delete(scoped, b.id), { code: 'NOT_FOUND' });
    await assert.rejects(calendars.update(scoped, foreign.id, { name: 'Changed' }), { code: 'NOT_FOUND' });
    await assert.rejects(calendars.create(scoped, { name: 'New' }), { code: 'FORBIDDEN' });
    assert.equal((await calendars.update(scoped, a.id, { name: 'A2' })).name, 'A2');
    assert.equal((await calendars.get(full, b.id)).name, 'B');

    const nothing = scopedAgent(user.id, { calendarIds: [] });
    assert.deepEqual(await calendars.list(nothing), []);
    await assert.rejects(calendars.get(nothing, a.id), { code: 'NOT_FOUND' });

    // A scope that limits only groups leaves the user's own calendars alone.
    const groupsOnly = scopedAgent(user.id, { groupIds: [] });
    assert.equal((await calendars.list(groupsOnly)).length, 3);
    await calendars.delete(scoped, a.id);
    await assert.rejects(calendars.get(full, a.id), { code: 'NOT_FOUND' });
  });

  test('the OpenAPI document describes the calendar, event and group routes', async () => {
    const doc = expectStatus(await t.app.inject({ method: 'GET', url: '/api/openapi.json' }), 200);
    for (const path of [
      '/api/calendars/',
      '/api/calendars/{id}',
      '/api/calendars/{id}/events',
      '/api/events/{id}',
      '/api/user-groups/',
      '/api/user-groups/{id}',
      '/api/user-groups/{id}/members/{userId}',
      '/api/user-groups/{id}/leave',
      '/api/user-groups/{id}/invites',
      '/api/user-groups/invites/accept',
      '/api/user-groups/{id}/calendars/attach',
      '/api/user-groups/{id}/calendars/detach',
    ]) {
      assert.ok(doc.paths[path] ?? doc.paths[path.replace(/\/$/, '')], `OpenAPI has ${path}`);
    }
  });
});
