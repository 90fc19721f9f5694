import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { personActor } from '../../../src/lib/actor.js';
import { createTestApp, registerUser, type SignedInUser, type TestApp } from '../../helpers/app.js';
import { as, expectError, expectStatus } from '../../helpers/http.js';
import { scopedAgent } from '../../helpers/tool-harness.js';

type Task = {
  id: number;
  title: string;
  status: string;
  dueAt: string | null;
  completedAt: string | null;
  labelIds: number[];
  checklist: { id: number; text: string; done: boolean; position: number }[];
  blockedByTaskIds: number[];
  isBlocked: boolean;
};

describe('tasks', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp();
  });
  after(() => t.close());

  async function createTask(user: SignedInUser, body: Record<string, unknown> = {}): Promise<Task> {
    return expectStatus(await as(t.app, user).post('/api/tasks', { title: 'Task', ...body }), 201);
  }
  async function createLabel(user: SignedInUser, name: string, color?: string): Promise<{ id: number }> {
    return expectStatus(
      await as(t.app, user).post('/api/task-labels', { name, ...(color ? { color } : {}) }),
      201,
    );
  }
  const block = (user: SignedInUser, taskId: number, blockedByTaskId: number) =>
    as(t.app, user).post(`/api/tasks/${taskId}/dependencies`, { blockedByTaskId });
  /** Every item of a list, following nextCursor; asserts each page's size. */
  async function listAll(user: SignedInUser, query: string, limit: number): Promise<Task[]> {
    const items: Task[] = [];
    let cursor: string | null = null;
    do {
      const url = `/api/tasks?limit=${limit}${query ? `&${query}` : ''}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
      const body = expectStatus(await as(t.app, user).get(url), 200);
      assert.ok(body.items.length <= limit);
      if (body.nextCursor) assert.equal(body.items.length, limit);
      items.push(...body.items);
      cursor = body.nextCursor;
    } while (cursor);
    return items;
  }

  test('create, read, change and delete a task', async () => {
    const user = await registerUser(t.app);
    const api = as(t.app, user);
    const created = await createTask(user, { title: '  Pay rent ', dueAt: '2025-07-01T10:00:00+02:00' });
    assert.deepEqual(Object.keys(created).sort(), [
      'blockedByTaskIds',
      'checklist',
      'completedAt',
      'createdAt',
      'dueAt',
      'id',
      'isBlocked',
      'labelIds',
      'notes',
      'occurrenceDate',
      'priority',
      'routineId',
      'status',
      'title',
      'updatedAt',
    ]);
    assert.equal(created.title, 'Pay rent');
    assert.equal(created.status, 'todo');
    assert.equal(expectStatus(await api.get(`/api/tasks/${created.id}`), 200).priority, 'normal');
    assert.equal(created.dueAt, '2025-07-01T08:00:00.000Z');
    assert.equal(created.completedAt, null);
    assert.deepEqual(expectStatus(await api.get(`/api/tasks/${created.id}`), 200), created);

    const done = expectStatus(
      await api.patch(`/api/tasks/${created.id}`, { status: 'done', priority: 'high', notes: 'paid' }),
      200,
    );
    assert.equal(done.status, 'done');
    assert.equal(done.priority, 'high');
    assert.equal(done.notes, 'paid');
    assert.ok(done.completedAt, 'completedAt is set when the task becomes done');
    const reopened = expectStatus(
      await api.patch(`/api/tasks/${created.id}`, { status: 'in_progress' }),
      200,
    );
    assert.equal(reopened.completedAt, null);
    const undated = expectStatus(await api.patch(`/api/tasks/${created.id}`, { dueAt: null }), 200);
    assert.equal(undated.dueAt, null);

    expectError(await api.post('/api/tasks', { title: 'X', owner: 5 }), 400, 'VALIDATION_FAILED');
    expectError(await api.post('/api/tasks', { title: 'X', status: 'finished' }), 400, 'VALIDATION_FAILED');
    expectError(await api.post('/api/tasks', { title: '   ' }), 400, 'VALIDATION_FAILED');
    expectError(
      await api.patch(`/api/tasks/${created.id}`, { dueAt: '2025-07-01' }),
      400,
      'VALIDATION_FAILED',
    );
    // The service applies the rules to callers that skip the HTTP schemas (MCP tools).
    await assert.rejects(
      t.app.services.tasks.create(personActor(user.id), { title: 'X', dueAt: 'tomorrow' }),
      {
        code: 'VALIDATION_FAILED',
      },
    );

    expectStatus(await api.delete(`/api/tasks/${created.id}`), 204);
    expectError(await api.get(`/api/tasks/${created.id}`), 404, 'NOT_FOUND');
    expectError(await api.delete(`/api/tasks/${created.id}`), 404, 'NOT_FOUND');
  });

  test("another user's tasks, labels, checklists and dependencies answer 404", async () => {
    const alice = await registerUser(t.app, 'Alice');
    const bob = await registerUser(t.app, 'Bob');
    const label = await createLabel(alice, 'Home');
    const task = await createTask(alice, { labelIds: [label.id], checklist: ['one'] });
    const other = await createTask(alice);
    const bobs = await createTask(bob);
    const api = as(t.app, bob);
    expectError(await api.get(`/api/tasks/${task.id}`), 404, 'NOT_FOUND');
    expectError(await api.patch(`/api/tasks/${task.id}`, { title: 'mine' }), 404, 'NOT_FOUND');
    expectError(await api.delete(`/api/tasks/${task.id}`), 404, 'NOT_FOUND');
    expectError(await block(bob, task.id, other.id), 404, 'NOT_FOUND');
    // Neither direction reveals a task of someone else.
    expectError(await block(bob, bobs.id, task.id), 404, 'NOT_FOUND');
    expectError(await block(alice, task.id, bobs.id), 404, 'NOT_FOUND');
    expectError(await api.delete(`/api/tasks/${task.id}/dependencies/${other.id}`), 404, 'NOT_FOUND');
    expectError(await api.post(`/api/tasks/${task.id}/checklist`, { text: 'x' }), 404, 'NOT_FOUND');
    const itemId = task.checklist[0]!.id;
    expectError(
      await api.patch(`/api/tasks/${task.id}/checklist/${itemId}`, { done: true }),
      404,
      'NOT_FOUND',
    );
    expectError(
      await api.patch(`/api/tasks/${bobs.id}/checklist/${itemId}`, { done: true }),
      404,
      'NOT_FOUND',
    );
    expectError(await api.delete(`/api/tasks/${task.id}/checklist/${itemId}`), 404, 'NOT_FOUND');
    // Labels: not listed, not usable, not changeable.
    assert.deepEqual(expectStatus(await api.get('/api/task-labels'), 200), []);
    expectError(await api.post('/api/tasks', { title: 'X', labelIds: [label.id] }), 404, 'NOT_FOUND');
    expectError(await api.patch(`/api/tasks/${bobs.id}`, { labelIds: [label.id] }), 404, 'NOT_FOUND');
    expectError(await api.patch(`/api/task-labels/${label.id}`, { name: 'Mine' }), 404, 'NOT_FOUND');
    expectError(await api.delete(`/api/task-labels/${label.id}`), 404, 'NOT_FOUND');
    expectError(await api.get(`/api/tasks?labelId=${label.id}`), 404, 'NOT_FOUND');
    // Bob's list holds only his task.
    const list = expectStatus(await api.get('/api/tasks'), 200);
    assert.deepEqual(
      list.items.map((item: Task) => item.id),
      [bobs.id],
    );
    // Alice's things are unchanged.
    const unchanged = expectStatus(await as(t.app, alice).get(`/api/tasks/${task.id}`), 200);
    assert.equal(unchanged.title, 'Task');
    assert.deepEqual(unchanged.labelIds, [label.id]);
    assert.equal(unchanged.checklist[0].done, false);
  });

  test('labels: own, unique by name, coloured; deleting one takes it off every task', async () => {
    const user = await registerUser(t.app);
    const api = as(t.app, user);
    const work = expectStatus(await api.post('/api/task-labels', { name: 'Work', color: '#FF0000' }), 201);
    assert.deepEqual(Object.keys(work).sort(), ['color', 'createdAt', 'id', 'name', 'updatedAt']);
    assert.equal(work.color, '#ff0000');
    const home = await createLabel(user, 'Home');
    assert.equal(expectStatus(await api.get('/api/task-labels'), 200)[0].color, '#6b7280');
    expectError(await api.post('/api/task-labels', { name: 'Work' }), 409, 'CONFLICT');
    expectError(await api.patch(`/api/task-labels/${home.id}`, { name: 'Work' }), 409, 'CONFLICT');
    expectError(await api.post('/api/task-labels', { name: 'X', color: 'red' }), 400, 'VALIDATION_FAILED');
    const renamed = expectStatus(await api.patch(`/api/task-labels/${home.id}`, { name: 'House' }), 200);
    assert.equal(renamed.name, 'House');
    assert.deepEqual(
      expectStatus(await api.get('/api/task-labels'), 200).map((l: { name: string }) => l.name),
      ['House', 'Work'],
    );

    const task = await createTask(user, { labelIds: [work.id, home.id, work.id] });
    assert.deepEqual(
      task.labelIds,
      [work.id, home.id].sort((a, b) => a - b),
    );
    const relabelled = expectStatus(await api.patch(`/api/tasks/${task.id}`, { labelIds: [home.id] }), 200);
    assert.deepEqual(relabelled.labelIds, [home.id]);
    expectStatus(await api.delete(`/api/task-labels/${home.id}`), 204);
    assert.deepEqual(expectStatus(await api.get(`/api/tasks/${task.id}`), 200).labelIds, []);
    expectError(await api.delete(`/api/task-labels/${home.id}`), 404, 'NOT_FOUND');
  });

  test('dependencies: self, direct and indirect cycles are refused with 409 DEPENDENCY_CYCLE', async () => {
    const user = await registerUser(t.app);
    const api = as(t.app, user);
    const a = await createTask(user, { title: 'A' });
    const b = await createTask(user, { title: 'B' });
    const c = await createTask(user, { title: 'C' });
    const d = await createTask(user, { title: 'D' });

    expectError(await block(user, a.id, a.id), 409, 'DEPENDENCY_CYCLE');
    // A waits for B, B waits for C.
    const aBlocked = expectStatus(await block(user, a.id, b.id), 200);
    assert.deepEqual(aBlocked.blockedByTaskIds, [b.id]);
    assert.equal(aBlocked.isBlocked, true);
    expectStatus(await block(user, b.id, c.id), 200);
    // Direct: B waiting for A; indirect: C waiting for A.
    expectError(await block(user, b.id, a.id), 409, 'DEPENDENCY_CYCLE');
    expectError(await block(user, c.id, a.id), 409, 'DEPENDENCY_CYCLE');
    // A diamond is no cycle: A also waits for C, D waits for A and C.
    expectStatus(await block(user, a.id, c.id), 200);
    expectStatus(await block(user, d.id, a.id), 200);
    expectStatus(await block(user, d.id, c.id), 200);
    expectError(await block(user, c.id, d.id), 409, 'DEPENDENCY_CYCLE');
    // Adding an existing dependency again changes nothing.
    const again = expectStatus(await block(user, a.id, b.id), 200);
    assert.deepEqual(
      again.blockedByTaskIds,
      [b.id, c.id].sort((x, y) => x - y),
    );
    const rows = await t.db.kysely
      .selectFrom('taskDependencies')
      .selectAll()
      .where('taskId', '=', a.id)
      .execute();
    assert.equal(rows.length, 2);

    // Removing B -> C lets C wait for A.
    expectStatus(await api.delete(`/api/tasks/${b.id}/dependencies/${c.id}`), 204);
    expectError(await api.delete(`/api/tasks/${b.id}/dependencies/${c.id}`), 404, 'NOT_FOUND');
    expectError(await block(user, c.id, a.id), 409, 'DEPENDENCY_CYCLE'); // still A -> C directly
    expectStatus(await api.delete(`/api/tasks/${a.id}/dependencies/${c.id}`), 204);
    expectStatus(await api.delete(`/api/tasks/${d.id}/dependencies/${c.id}`), 204);
    expectStatus(await block(user, c.id, a.id), 200);

    expectError(await block(user, a.id, 999_999), 404, 'NOT_FOUND');
    expectError(
      await api.post(`/api/tasks/${a.id}/dependencies`, { blockedByTaskId: b.id, note: 'x' }),
      400,
      'VALIDATION_FAILED',
    );
    // Deleting a task removes its dependencies both ways.
    expectStatus(await api.delete(`/api/tasks/${b.id}`), 204);
    assert.deepEqual(expectStatus(await api.get(`/api/tasks/${a.id}`), 200).blockedByTaskIds, []);
  });

  test('concurrent dependency additions cannot close a cycle between them', async () => {
    const user = await registerUser(t.app);
    for (let round = 0; round < 5; round += 1) {
      const a = await createTask(user, { title: `A${round}` });
      const b = await createTask(user, { title: `B${round}` });
      const c = await createTask(user, { title: `C${round}` });
      // A -> B, B -> C, C -> A at once: at most two of three may land.
      const results = await Promise.all([
        block(user, a.id, b.id),
        block(user, b.id, c.id),
        block(user, c.id, a.id),
      ]);
      const statuses = results.map((r) => r.statusCode).sort();
      assert.deepEqual(statuses, [200, 200, 409], `round ${round}: ${statuses.join(', ')}`);
      for (const refused of results.filter((r) => r.statusCode === 409))
        assert.equal(refused.json().error.code, 'DEPENDENCY_CYCLE');
      const pair = await Promise.all([block(user, a.id, c.id), block(user, c.id, a.id)]);
      // Whatever landed before, the graph stays acyclic: never both.
      assert.ok(pair.some((r) => r.statusCode === 409));
    }
  });

  test('a task cannot become done while a blocker is open (409 TASK_BLOCKED)', async () => {
    const user = await registerUser(t.app);
    const api = as(t.app, user);
    const task = await createTask(user, { title: 'Ship' });
    const review = await createTask(user, { title: 'Review' });
    const tests = await createTask(user, { title: 'Tests' });
    expectStatus(await block(user, task.id, review.id), 200);
    expectStatus(await block(user, task.id, tests.id), 200);
    const refused = expectError(
      await api.patch(`/api/tasks/${task.id}`, { status: 'done' }),
      409,
      'TASK_BLOCKED',
    );
    assert.match(refused.message, /blocked/);
    assert.equal(expectStatus(await api.get(`/api/tasks/${task.id}`), 200).status, 'todo');
    // Other changes are still fine while blocked.
    expectStatus(await api.patch(`/api/tasks/${task.id}`, { status: 'in_progress' }), 200);

    expectStatus(await api.patch(`/api/tasks/${review.id}`, { status: 'done' }), 200);
    expectError(await api.patch(`/api/tasks/${task.id}`, { status: 'done' }), 409, 'TASK_BLOCKED');
    // A cancelled blocker no longer blocks.
    expectStatus(await api.patch(`/api/tasks/${tests.id}`, { status: 'cancelled' }), 200);
    assert.equal(expectStatus(await api.get(`/api/tasks/${task.id}`), 200).isBlocked, false);
    const done = expectStatus(await api.patch(`/api/tasks/${task.id}`, { status: 'done' }), 200);
    assert.equal(done.status, 'done');
    // The service refuses the same way for callers that skip HTTP.
    const other = await createTask(user);
    await t.app.services.tasks.addDependency(personActor(user.id), other.id, review.id);
    expectStatus(await api.patch(`/api/tasks/${review.id}`, { status: 'todo' }), 200);
    await assert.rejects(t.app.services.tasks.update(personActor(user.id), other.id, { status: 'done' }), {
      code: 'TASK_BLOCKED',
    });
  });

  test('checklist items keep contiguous 0-based positions', async () => {
    const user = await registerUser(t.app);
    const api = as(t.app, user);
    const task = await createTask(user, { checklist: ['milk', ' eggs '] });
    assert.deepEqual(
      task.checklist.map((i) => [i.text, i.position, i.done]),
      [
        ['milk', 0, false],
        ['eggs', 1, false],
      ],
    );
    const url = `/api/tasks/${task.id}/checklist`;
    const bread = expectStatus(await api.post(url, { text: 'bread' }), 201);
    assert.deepEqual(Object.keys(bread).sort(), ['done', 'id', 'position', 'text']);
    assert.equal(bread.position, 2);
    const butter = expectStatus(await api.post(url, { text: 'butter' }), 201);
    assert.equal(butter.position, 3);
    const items = async () =>
      (expectStatus(await api.get(`/api/tasks/${task.id}`), 200) as Task).checklist.map((i) => [
        i.text,
        i.position,
      ]);

    // Move butter to the front; the others shift down.
    const moved = expectStatus(await api.patch(`${url}/${butter.id}`, { position: 0 }), 200);
    assert.equal(moved.position, 0);
    assert.deepEqual(await items(), [
      ['butter', 0],
      ['milk', 1],
      ['eggs', 2],
      ['bread', 3],
    ]);
    // Past the end means last.
    expectStatus(await api.patch(`${url}/${butter.id}`, { position: 99 }), 200);
    assert.deepEqual(await items(), [
      ['milk', 0],
      ['eggs', 1],
      ['bread', 2],
      ['butter', 3],
    ]);
    const ticked = expectStatus(
      await api.patch(`${url}/${task.checklist[1]!.id}`, { done: true, text: 'free-range eggs' }),
      200,
    );
    assert.deepEqual(ticked, { id: task.checklist[1]!.id, text: 'free-range eggs', done: true, position: 1 });
    // Deleting closes the gap.
    expectStatus(await api.delete(`${url}/${task.checklist[0]!.id}`), 204);
    assert.deepEqual(await items(), [
      ['free-range eggs', 0],
      ['bread', 1],
      ['butter', 2],
    ]);
    expectError(await api.delete(`${url}/${task.checklist[0]!.id}`), 404, 'NOT_FOUND');
    expectError(await api.patch(`${url}/${bread.id}`, { position: -1 }), 400, 'VALIDATION_FAILED');
    expectError(await api.patch(`${url}/${bread.id}`, { checked: true }), 400, 'VALIDATION_FAILED');
    expectError(await api.post(url, { text: '' }), 400, 'VALIDATION_FAILED');
    // An item of another task of the same user is not this task's.
    const other = await createTask(user);
    expectError(
      await api.patch(`/api/tasks/${other.id}/checklist/${bread.id}`, { done: true }),
      404,
      'NOT_FOUND',
    );
  });

  test('the list filters by status, label, due range and text, and pages by cursor', async () => {
    const user = await registerUser(t.app);
    const api = as(t.app, user);
    const label = await createLabel(user, 'Errand');
    const made: Task[] = [];
    // 7 dated tasks (out of order) and 3 undated ones.
    for (const [i, day] of [5, 1, 3, 7, 2, 6, 4].entries())
      made.push(
        await createTask(user, {
          title: `Dated ${i}`,
          dueAt: `2025-08-0${day}T09:00:00Z`,
          ...(day % 2 === 0 ? { labelIds: [label.id] } : {}),
        }),
      );
    for (let i = 0; i < 3; i += 1) made.push(await createTask(user, { title: `Undated ${i}` }));
    await createTask(user, { title: 'Buy 100% Juice_box', notes: 'at the CORNER shop' });
    await createTask(user, { title: 'Buy 100 juices' });

    const all = await listAll(user, '', 3);
    assert.equal(all.length, 12);
    const dated = all.filter((task) => task.dueAt !== null);
    assert.deepEqual(
      dated.map((task) => task.dueAt),
      [1, 2, 3, 4, 5, 6, 7].map((day) => `2025-08-0${day}T09:00:00.000Z`),
      'due date order',
    );
    assert.ok(
      all.slice(7).every((task) => task.dueAt === null),
      'undated last',
    );
    const undatedIds = all.slice(7).map((task) => task.id);
    assert.deepEqual(
      undatedIds,
      [...undatedIds].sort((a, b) => a - b),
      'undated in id order',
    );
    // Every page size walks the same order.
    assert.deepEqual(
      (await listAll(user, '', 1)).map((task) => task.id),
      all.map((task) => task.id),
    );

    expectStatus(await api.patch(`/api/tasks/${made[0]!.id}`, { status: 'done' }), 200);
    assert.deepEqual(
      (await listAll(user, 'status=done', 50)).map((task) => task.id),
      [made[0]!.id],
    );
    assert.deepEqual(
      (await listAll(user, `labelId=${label.id}`, 2)).map((task) => task.dueAt),
      ['2025-08-02T09:00:00.000Z', '2025-08-04T09:00:00.000Z', '2025-08-06T09:00:00.000Z'],
    );
    const range = `dueFrom=${encodeURIComponent('2025-08-03T09:00:00Z')}&dueTo=${encodeURIComponent('2025-08-05T09:00:00Z')}`;
    assert.deepEqual(
      (await listAll(user, range, 50)).map((task) => task.dueAt),
      ['2025-08-03T09:00:00.000Z', '2025-08-04T09:00:00.000Z'],
    );
    // Text: title or notes, any case; % and _ are literal.
    assert.deepEqual(
      (await listAll(user, 'q=corner', 50)).map((task) => task.title),
      ['Buy 100% Juice_box'],
    );
    assert.deepEqual(
      (await listAll(user, `q=${encodeURIComponent('100%')}`, 50)).map((task) => task.title),
      ['Buy 100% Juice_box'],
    );
    assert.deepEqual(
      (await listAll(user, `q=${encodeURIComponent('juice_')}`, 50)).map((task) => task.title),
      ['Buy 100% Juice_box'],
    );
    assert.equal((await listAll(user, 'q=BUY', 50)).length, 2);
    assert.equal((await listAll(user, `q=DATED&labelId=${label.id}&status=todo`, 50)).length, 3);

    expectError(await api.get('/api/tasks?cursor=not-a-cursor'), 400, 'VALIDATION_FAILED');
    expectError(await api.get('/api/tasks?limit=0'), 400, 'VALIDATION_FAILED');
    expectError(await api.get('/api/tasks?limit=201'), 400, 'VALIDATION_FAILED');
    expectError(await api.get('/api/tasks?status=later'), 400, 'VALIDATION_FAILED');
    expectError(
      await api.get(
        `/api/tasks?dueFrom=${encodeURIComponent('2025-08-05T00:00:00Z')}&dueTo=${encodeURIComponent('2025-08-01T00:00:00Z')}`,
      ),
      400,
      'VALIDATION_FAILED',
    );
    assert.equal(expectStatus(await api.get('/api/tasks'), 200).nextCursor, null);
  });

  test('the list reads a page in a fixed number of queries', async () => {
    const user = await registerUser(t.app);
    const label = await createLabel(user, 'L');
    const blocker = await createTask(user);
    for (let i = 0; i < 6; i += 1) {
      const task = await createTask(user, { labelIds: [label.id], checklist: ['a', 'b'] });
      expectStatus(await block(user, task.id, blocker.id), 200);
    }
    const executed: string[] = [];
    const kysely = t.db.kysely;
    const original = kysely.getExecutor().executeQuery.bind(kysely.getExecutor());
    const executor = kysely.getExecutor() as { executeQuery: typeof original };
    executor.executeQuery = ((query, ...rest) => {
      executed.push(query.sql);
      return original(query, ...rest);
    }) as typeof original;
    try {
      const page = await t.app.services.tasks.list(personActor(user.id), { limit: 50 });
      assert.equal(page.items.length, 7);
      assert.ok(page.items.filter((task) => task.isBlocked).length === 6);
      assert.ok(page.items.every((task) => task.id === blocker.id || task.checklist.length === 2));
    } finally {
      executor.executeQuery = original;
    }
    // One page query, then labels, checklists and dependencies.
    assert.equal(executed.length, 4, executed.join('\n'));
  });

  test("an agent's scope does not narrow tasks: it sees and changes its owner's tasks, and only those", async () => {
    const user = await registerUser(t.app);
    const other = await registerUser(t.app);
    const first = await createTask(user, { title: 'First' });
    const second = await createTask(user, { title: 'Second' });
    const foreign = await createTask(other, { title: 'Foreign' });
    const { tasks } = t.app.services;
    // Limited to no calendar and no group: tasks belong to neither, so nothing is hidden.
    const agent = scopedAgent(user.id, { calendarIds: [], groupIds: [] });

    assert.deepEqual(
      (await tasks.list(agent, { limit: 50 })).items.map((task) => task.id).sort(),
      [first.id, second.id].sort(),
    );
    const label = await tasks.createLabel(agent, { name: 'Agent' });
    assert.deepEqual((await tasks.update(agent, first.id, { labelIds: [label.id] })).labelIds, [label.id]);
    assert.deepEqual((await tasks.addDependency(agent, second.id, first.id)).blockedByTaskIds, [first.id]);
    const item = await tasks.addChecklistItem(agent, first.id, { text: 'Step' });
    assert.equal((await tasks.updateChecklistItem(agent, first.id, item.id, { done: true })).done, true);
    assert.deepEqual(
      (await tasks.listLabels(agent)).map((l) => l.id),
      [label.id],
    );
    // The owner sees what the agent did.
    const seen = expectStatus(await as(t.app, user).get(`/api/tasks/${first.id}`), 200);
    assert.deepEqual(seen.labelIds, [label.id]);
    assert.equal(seen.checklist[0].done, true);
    // Someone else's task stays out of reach, as for the owner.
    await assert.rejects(tasks.get(agent, foreign.id), { code: 'NOT_FOUND' });
    await assert.rejects(tasks.addDependency(agent, first.id, foreign.id), { code: 'NOT_FOUND' });
  });
});
