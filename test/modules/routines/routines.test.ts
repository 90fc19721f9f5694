import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { DateTime } from 'luxon';
import { createTestApp, registerUser, type SignedInUser, type TestApp } from '../../helpers/app.js';
import { as, expectError, expectStatus } from '../../helpers/http.js';
import { scopedAgent } from '../../helpers/tool-harness.js';

type RoutineTask = {
  id: number;
  title: string;
  dueAt: string | null;
  labelIds: number[];
  checklist: { text: string }[];
  routineId: number | null;
  occurrenceDate: string | null;
  priority: string;
};

describe('routines', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp();
  });
  after(() => t.close());

  const weekly = {
    name: 'Weekly chores',
    timezone: 'Europe/Berlin',
    startDate: '2025-06-02',
    recurrence: ['RRULE:FREQ=WEEKLY;BYDAY=MO'],
    templates: [
      { title: 'Take out the bins', dueTime: '08:00', checklist: ['paper', 'plastic'], priority: 'high' },
      { title: 'Water the plants' },
    ],
  };

  async function createRoutine(user: SignedInUser, body: Record<string, unknown> = {}) {
    return expectStatus(await as(t.app, user).post('/api/routines', { ...weekly, ...body }), 201);
  }
  const run = (user: SignedInUser, routineId: number, body?: Record<string, unknown>) =>
    as(t.app, user).post(`/api/routines/${routineId}/run`, body ?? {});

  test('create, read, change and delete a routine', async () => {
    const user = await registerUser(t.app);
    const api = as(t.app, user);
    const created = await createRoutine(user);
    assert.deepEqual(Object.keys(created).sort(), [
      'createdAt',
      'description',
      'id',
      'name',
      'recurrence',
      'startDate',
      'templates',
      'timezone',
      'updatedAt',
    ]);
    assert.deepEqual(created.templates, [
      {
        title: 'Take out the bins',
        notes: null,
        priority: 'high',
        dueTime: '08:00',
        labelIds: [],
        checklist: ['paper', 'plastic'],
      },
      {
        title: 'Water the plants',
        notes: null,
        priority: 'normal',
        dueTime: null,
        labelIds: [],
        checklist: [],
      },
    ]);
    assert.deepEqual(expectStatus(await api.get(`/api/routines/${created.id}`), 200), created);
    assert.deepEqual(
      expectStatus(await api.get('/api/routines'), 200).map((r: { id: number }) => r.id),
      [created.id],
    );
    const changed = expectStatus(
      await api.patch(`/api/routines/${created.id}`, { name: 'Chores', templates: [{ title: 'Hoover' }] }),
      200,
    );
    assert.equal(changed.name, 'Chores');
    assert.deepEqual(
      changed.templates.map((tpl: { title: string }) => tpl.title),
      ['Hoover'],
    );
    assert.deepEqual(changed.recurrence, weekly.recurrence);
    expectStatus(await api.delete(`/api/routines/${created.id}`), 204);
    expectError(await api.get(`/api/routines/${created.id}`), 404, 'NOT_FOUND');
  });

  test('invalid routines are refused with the offending field named', async () => {
    const user = await registerUser(t.app);
    const api = as(t.app, user);
    const bad = async (body: Record<string, unknown>, path?: string) => {
      const error = expectError(
        await api.post('/api/routines', { ...weekly, ...body }),
        400,
        'VALIDATION_FAILED',
      );
      if (path)
        assert.ok(
          error.details?.some((d) => d.path === path),
          `${path} in ${JSON.stringify(error.details)}`,
        );
    };
    await bad({ recurrence: ['RRULE:FREQ=SOMETIMES'] }, 'recurrence.0');
    await bad({ recurrence: ['RRULE:FREQ=DAILY;BYHOUR=9'] }, 'recurrence.0');
    await bad({ recurrence: ['RRULE:FREQ=HOURLY'] }, 'recurrence.0');
    await bad({ recurrence: [] });
    await bad({ templates: [] });
    await bad({ startDate: '2025-13-01' });
    await bad({ timezone: 'Mars/Olympus' });
    await bad({ templates: [{ title: 'x', dueTime: '25:00' }] });
    await bad({ templates: [{ title: 'x', assignee: 3 }] });
    await bad({ owner: 1 });
    // Labels must be the caller's own.
    const other = await registerUser(t.app);
    const foreign = expectStatus(await as(t.app, other).post('/api/task-labels', { name: 'Theirs' }), 201);
    expectError(
      await api.post('/api/routines', { ...weekly, templates: [{ title: 'x', labelIds: [foreign.id] }] }),
      404,
      'NOT_FOUND',
    );
    // A change must leave a valid routine too.
    const routine = await createRoutine(user);
    expectError(
      await api.patch(`/api/routines/${routine.id}`, { recurrence: ['EXRULE:FREQ=DAILY'] }),
      400,
      'VALIDATION_FAILED',
    );
  });

  test('a run instantiates the templates once per occurrence date', async () => {
    const user = await registerUser(t.app);
    const api = as(t.app, user);
    const label = expectStatus(await api.post('/api/task-labels', { name: 'Home' }), 201);
    const routine = await createRoutine(user, {
      templates: [{ ...weekly.templates[0], labelIds: [label.id] }, weekly.templates[1]],
    });

    const first = expectStatus(await run(user, routine.id, { occurrenceDate: '2025-06-09' }), 201);
    assert.deepEqual(Object.keys(first).sort(), [
      'created',
      'occurrenceDate',
      'routineId',
      'tasks',
      'timezone',
    ]);
    assert.equal(first.created, true);
    assert.equal(first.occurrenceDate, '2025-06-09');
    assert.equal(first.timezone, routine.timezone, 'the date is named with its zone');
    const tasks = first.tasks as RoutineTask[];
    assert.deepEqual(
      tasks.map((task) => task.title),
      ['Take out the bins', 'Water the plants'],
    );
    // 08:00 in Berlin summer time.
    assert.equal(tasks[0]!.dueAt, '2025-06-09T06:00:00.000Z');
    assert.equal(tasks[1]!.dueAt, null);
    assert.equal(tasks[0]!.priority, 'high');
    assert.deepEqual(tasks[0]!.labelIds, [label.id]);
    assert.deepEqual(
      tasks[0]!.checklist.map((item) => item.text),
      ['paper', 'plastic'],
    );
    assert.ok(tasks.every((task) => task.routineId === routine.id && task.occurrenceDate === '2025-06-09'));

    // Again: the same tasks, nothing new.
    const second = expectStatus(await run(user, routine.id, { occurrenceDate: '2025-06-09' }), 200);
    assert.equal(second.created, false);
    assert.deepEqual(second.tasks, first.tasks);
    // Changing the templates does not add tasks to an occurrence already run.
    expectStatus(
      await api.patch(`/api/routines/${routine.id}`, { templates: [{ title: 'Something new' }] }),
      200,
    );
    assert.deepEqual(
      expectStatus(await run(user, routine.id, { occurrenceDate: '2025-06-09' }), 200).tasks.map(
        (task: RoutineTask) => task.id,
      ),
      tasks.map((task) => task.id),
    );
    // Another occurrence gets its own tasks, from the current templates; winter time is +01:00.
    const winter = expectStatus(
      await api.patch(`/api/routines/${routine.id}`, { templates: [weekly.templates[0]] }),
      200,
    );
    assert.equal(winter.templates.length, 1);
    const december = expectStatus(await run(user, routine.id, { occurrenceDate: '2025-12-01' }), 201);
    assert.equal(december.tasks.length, 1);
    assert.equal(december.tasks[0].dueAt, '2025-12-01T07:00:00.000Z');
    const list = expectStatus(await api.get('/api/tasks?limit=200'), 200);
    assert.equal(list.items.length, 3);

    // Not an occurrence (a Tuesday), or not a date: 400.
    const notOne = expectError(
      await run(user, routine.id, { occurrenceDate: '2025-06-10' }),
      400,
      'VALIDATION_FAILED',
    );
    assert.deepEqual(
      notOne.details?.map((d) => d.path),
      ['occurrenceDate'],
    );
    expectError(await run(user, routine.id, { occurrenceDate: '2025-05-26' }), 400, 'VALIDATION_FAILED');
    expectError(await run(user, routine.id, { occurrenceDate: 'monday' }), 400, 'VALIDATION_FAILED');
    expectError(
      await run(user, routine.id, { occurrenceDate: '2025-06-16', extra: 1 }),
      400,
      'VALIDATION_FAILED',
    );
  });

  test('EXDATE and RDATE shape the occurrences; the start date is always one', async () => {
    const user = await registerUser(t.app);
    const routine = await createRoutine(user, {
      startDate: '2025-06-03',
      recurrence: [
        'RRULE:FREQ=WEEKLY;BYDAY=MO;UNTIL=20250625',
        'EXDATE;VALUE=DATE:20250616',
        'RDATE;VALUE=DATE:20250620',
      ],
    });
    // DTSTART (a Tuesday) is the first occurrence, as in RFC 5545.
    expectStatus(await run(user, routine.id, { occurrenceDate: '2025-06-03' }), 201);
    expectStatus(await run(user, routine.id, { occurrenceDate: '2025-06-09' }), 201);
    expectError(await run(user, routine.id, { occurrenceDate: '2025-06-16' }), 400, 'VALIDATION_FAILED');
    expectStatus(await run(user, routine.id, { occurrenceDate: '2025-06-20' }), 201);
    expectStatus(await run(user, routine.id, { occurrenceDate: '2025-06-23' }), 201);
    // UNTIL ends the rule before 30 June.
    expectError(await run(user, routine.id, { occurrenceDate: '2025-06-30' }), 400, 'VALIDATION_FAILED');
  });

  test('a rule that never occurs or has a BYDAY ordinal of 0 is a quick 400; COUNT includes the start date', async () => {
    const user = await registerUser(t.app);
    const api = as(t.app, user);
    for (const rule of [
      'RRULE:FREQ=MONTHLY;BYDAY=0MO',
      'RRULE:FREQ=DAILY;BYMONTH=2;BYMONTHDAY=30',
      'RRULE:FREQ=MONTHLY;BYDAY=-99FR',
    ]) {
      const started = performance.now();
      const error = expectError(
        await api.post('/api/routines', { ...weekly, recurrence: [rule] }),
        400,
        'VALIDATION_FAILED',
      );
      const ms = performance.now() - started;
      assert.ok(ms < 500, `${rule} took ${Math.round(ms)} ms`);
      assert.deepEqual(
        error.details?.map((d) => d.path),
        ['recurrence.0'],
      );
    }
    const routine = await createRoutine(user);
    expectError(
      await api.patch(`/api/routines/${routine.id}`, { recurrence: ['RRULE:FREQ=MONTHLY;BYDAY=0MO'] }),
      400,
      'VALIDATION_FAILED',
    );

    // Tuesday 3 June, then Mondays, two occurrences in all (RFC 5545): 3 and 9 June.
    const twice = await createRoutine(user, {
      startDate: '2025-06-03',
      recurrence: ['RRULE:FREQ=WEEKLY;BYDAY=MO;COUNT=2'],
    });
    expectStatus(await run(user, twice.id, { occurrenceDate: '2025-06-03' }), 201);
    expectStatus(await run(user, twice.id, { occurrenceDate: '2025-06-09' }), 201);
    expectError(await run(user, twice.id, { occurrenceDate: '2025-06-16' }), 400, 'VALIDATION_FAILED');
  });

  test('without a date, a run targets the latest occurrence up to today', async () => {
    const user = await registerUser(t.app);
    const zone = 'Pacific/Auckland';
    const today = DateTime.now().setZone(zone);
    const daily = await createRoutine(user, {
      timezone: zone,
      startDate: '2024-01-01',
      recurrence: ['RRULE:FREQ=DAILY'],
    });
    const ran = expectStatus(await run(user, daily.id), 201);
    assert.equal(ran.occurrenceDate, today.toISODate());
    // With no body at all as well.
    const again = await t.app.inject({
      method: 'POST',
      url: `/api/routines/${daily.id}/run`,
      headers: user.auth,
    });
    assert.equal(expectStatus(again, 200).occurrenceDate, today.toISODate());

    // Every second year on 1 March, starting 2021: the latest is found beyond the last year.
    const biennial = await createRoutine(user, {
      timezone: zone,
      startDate: '2021-03-01',
      recurrence: ['RRULE:FREQ=YEARLY;INTERVAL=2'],
    });
    let expected = DateTime.fromISO('2021-03-01', { zone });
    while (expected.plus({ years: 2 }) <= today.startOf('day')) expected = expected.plus({ years: 2 });
    assert.equal(expectStatus(await run(user, biennial.id), 201).occurrenceDate, expected.toISODate());

    // A routine that has not started yet has no default occurrence.
    const future = await createRoutine(user, { startDate: today.plus({ days: 10 }).toISODate() });
    expectError(await run(user, future.id), 400, 'VALIDATION_FAILED');
  });

  test('concurrent runs of one occurrence create its tasks once', async () => {
    const user = await registerUser(t.app);
    const routine = await createRoutine(user);
    for (const date of ['2025-06-16', '2025-06-23', '2025-06-30']) {
      const results = await Promise.all(
        Array.from({ length: 6 }, () => run(user, routine.id, { occurrenceDate: date })),
      );
      const statuses = results.map((r) => r.statusCode).sort();
      assert.deepEqual(statuses, [200, 200, 200, 200, 200, 201], statuses.join(', '));
      const ids = results.map((r) => (r.json().tasks as RoutineTask[]).map((task) => task.id).join(','));
      assert.equal(new Set(ids).size, 1, `every run answers the same tasks: ${ids.join(' | ')}`);
      const rows = await t.db.kysely
        .selectFrom('tasks')
        .select('id')
        .where('routineId', '=', routine.id)
        .where('occurrenceDate', '=', date)
        .execute();
      assert.equal(rows.length, weekly.templates.length);
    }
  });

  test("another user's routine answers 404; deleting a routine keeps its tasks", async () => {
    const alice = await registerUser(t.app);
    const bob = await registerUser(t.app);
    const routine = await createRoutine(alice);
    const api = as(t.app, bob);
    expectError(await api.get(`/api/routines/${routine.id}`), 404, 'NOT_FOUND');
    expectError(await api.patch(`/api/routines/${routine.id}`, { name: 'mine' }), 404, 'NOT_FOUND');
    expectError(await run(bob, routine.id, { occurrenceDate: '2025-06-09' }), 404, 'NOT_FOUND');
    expectError(await api.delete(`/api/routines/${routine.id}`), 404, 'NOT_FOUND');
    assert.deepEqual(expectStatus(await api.get('/api/routines'), 200), []);
    assert.deepEqual(expectStatus(await api.get('/api/tasks'), 200).items, []);

    const label = expectStatus(await as(t.app, alice).post('/api/task-labels', { name: 'Gone soon' }), 201);
    const labelled = await createRoutine(alice, { templates: [{ title: 'Labelled', labelIds: [label.id] }] });
    // A label deleted after the routine was saved is left off the new tasks.
    expectStatus(await as(t.app, alice).delete(`/api/task-labels/${label.id}`), 204);
    const made = expectStatus(await run(alice, labelled.id, { occurrenceDate: '2025-06-09' }), 201);
    assert.deepEqual(made.tasks[0].labelIds, []);

    expectStatus(await as(t.app, alice).delete(`/api/routines/${labelled.id}`), 204);
    const kept = expectStatus(await as(t.app, alice).get(`/api/tasks/${made.tasks[0].id}`), 200);
    assert.equal(kept.routineId, null);
    assert.equal(kept.occurrenceDate, '2025-06-09');
  });

  test("an agent's scope does not narrow routines: it sees and runs its owner's routines, and only those", async () => {
    const user = await registerUser(t.app);
    const other = await registerUser(t.app);
    const mine = await createRoutine(user);
    const foreign = await createRoutine(other);
    const { routines } = t.app.services;
    // Limited to no calendar and no group: routines belong to neither, so nothing is hidden.
    const scope = { calendarIds: [], groupIds: [] };
    // Running a routine makes tasks: the agent holds tasks.create (issue 25).
    const agent = {
      ...scopedAgent(user.id, scope),
      agent: { id: 1, actions: new Set(['tasks.create']), scope },
    };

    assert.deepEqual(
      (await routines.list(agent)).map((routine) => routine.id),
      [mine.id],
    );
    assert.equal((await routines.update(agent, mine.id, { name: 'Renamed' })).name, 'Renamed');
    const made = await routines.run(agent, mine.id, { occurrenceDate: '2025-06-09' });
    assert.equal(made.created, true);
    // The tasks are the owner's.
    const task = expectStatus(await as(t.app, user).get(`/api/tasks/${made.tasks[0]!.id}`), 200);
    assert.equal(task.routineId, mine.id);
    await assert.rejects(routines.get(agent, foreign.id), { code: 'NOT_FOUND' });
    await assert.rejects(routines.run(agent, foreign.id, { occurrenceDate: '2025-06-09' }), {
      code: 'NOT_FOUND',
    });
  });
});
