import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { findAction } from '../../../src/catalogue.js';
import { type AccessScope, type Actor, personActor } from '../../../src/lib/actor.js';
import type { CreateRuleInput } from '../../../src/modules/automation/schemas.js';
import { createTestApp, registerUser, type SignedInUser, type TestApp } from '../../helpers/app.js';
import { createCalendar, createEvent, defaultCalendarId } from '../../helpers/calendars.js';
import { as, expectError, expectStatus } from '../../helpers/http.js';
import { scopedAgent } from '../../helpers/tool-harness.js';

type Audit = {
  id: number;
  ruleId: number | null;
  ruleName: string;
  trigger: string;
  subjectType: string | null;
  subjectId: number | null;
  outcome: string;
  error: string | null;
  actions: { type: string; outcome: string; error?: string; taskId?: number }[];
};
type Task = { id: number; title: string; status: string; dueAt: string | null; labelIds: number[] };

describe('automation rules', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp();
  });
  after(() => t.close());

  /**
   * A real agent of `user` holding `actionKeys` (calendar-scoped ones under `scope`), as its
   * Actor under `scope`: a rule an agent writes runs as that agent, read at run time.
   */
  async function realAgent(user: SignedInUser, scope: AccessScope, actionKeys: string[]): Promise<Actor> {
    const created = expectStatus(await as(t.app, user).post('/api/agents', { name: 'Agent' }), 201);
    const permissions = actionKeys.map((actionKey) => ({
      actionKey,
      scope: findAction(actionKey)?.scopeKinds.includes('calendar') ? scope : null,
    }));
    const put = await t.app.inject({
      method: 'PUT',
      url: `/api/agents/${created.id}/permissions`,
      headers: user.auth,
      payload: { permissions },
    });
    assert.equal(put.statusCode, 200, put.body);
    return scopedAgent(user.id, scope, created.id);
  }

  async function createRule(user: SignedInUser, body: Record<string, unknown>): Promise<{ id: number }> {
    return expectStatus(await as(t.app, user).post('/api/automation/rules', { name: 'Rule', ...body }), 201);
  }
  async function audit(user: SignedInUser, query = ''): Promise<Audit[]> {
    return expectStatus(await as(t.app, user).get(`/api/automation/audit?limit=200${query}`), 200).items;
  }
  async function tasks(user: SignedInUser): Promise<Task[]> {
    return expectStatus(await as(t.app, user).get('/api/tasks?limit=200'), 200).items;
  }
  async function tags(user: SignedInUser, eventId: number): Promise<string[]> {
    return expectStatus(await as(t.app, user).get(`/api/automation/events/${eventId}/tags`), 200).map(
      (tag: { label: string }) => tag.label,
    );
  }
  const trigger = (user: SignedInUser, ruleId: number, body?: Record<string, unknown>) =>
    as(t.app, user).post(`/api/automation/rules/${ruleId}/trigger`, body ?? {});

  test('create, read, change and delete a rule; invalid rules are refused', async () => {
    const user = await registerUser(t.app);
    const api = as(t.app, user);
    const created = expectStatus(
      await api.post('/api/automation/rules', {
        name: ' Prep ',
        trigger: 'event.created',
        conditions: { titleContains: 'dentist' },
        actions: [{ type: 'add_reminder', minutes: 30 }],
      }),
      201,
    );
    assert.deepEqual(Object.keys(created).sort(), [
      'actions',
      'conditions',
      'createdAt',
      'createdByAgentId',
      'enabled',
      'id',
      'name',
      'trigger',
      'updatedAt',
    ]);
    assert.equal(created.name, 'Prep');
    assert.equal(created.enabled, true);
    assert.deepEqual(created.conditions, { titleContains: 'dentist' });
    assert.deepEqual(expectStatus(await api.get(`/api/automation/rules/${created.id}`), 200), created);
    assert.equal(expectStatus(await api.get('/api/automation/rules'), 200).length, 1);
    const changed = expectStatus(
      await api.patch(`/api/automation/rules/${created.id}`, { enabled: false, conditions: null }),
      200,
    );
    assert.equal(changed.enabled, false);
    assert.deepEqual(changed.conditions, {});

    const bad = async (body: Record<string, unknown>) =>
      expectError(
        await api.post('/api/automation/rules', {
          name: 'X',
          trigger: 'manual',
          actions: [{ type: 'tag_event', label: 'a' }],
          ...body,
        }),
        400,
        'VALIDATION_FAILED',
      );
    await bad({ trigger: 'event.deleted' });
    await bad({ actions: [] });
    await bad({ actions: [{ type: 'send_email' }] });
    await bad({ actions: [{ type: 'add_reminder', minutes: 2000 }] });
    await bad({ actions: [{ type: 'tag_event', label: 'a', colour: 'red' }] });
    await bad({ conditions: { startsWith: 'x' } });
    // A task.completed rule has no event to remind, tag or match a calendar on.
    await bad({ trigger: 'task.completed' });
    await bad({ trigger: 'task.completed', actions: [{ type: 'add_reminder', minutes: 5 }] });
    await bad({
      trigger: 'task.completed',
      conditions: { calendarId: await defaultCalendarId(t.app, user) },
      actions: [{ type: 'create_task', task: { title: 'x' } }],
    });
    expectError(
      await api.patch(`/api/automation/rules/${created.id}`, { trigger: 'task.completed' }),
      400,
      'VALIDATION_FAILED',
    );

    expectStatus(await api.delete(`/api/automation/rules/${created.id}`), 204);
    expectError(await api.get(`/api/automation/rules/${created.id}`), 404, 'NOT_FOUND');
  });

  test("another user's rules, calendars, labels, events and tasks answer 404", async () => {
    const alice = await registerUser(t.app);
    const bob = await registerUser(t.app);
    const rule = await createRule(alice, { trigger: 'manual', actions: [{ type: 'tag_event', label: 'x' }] });
    const aliceCalendar = await defaultCalendarId(t.app, alice);
    const aliceEvent = await createEvent(t.app, alice, aliceCalendar);
    const aliceTask = expectStatus(await as(t.app, alice).post('/api/tasks', { title: 'Hers' }), 201);
    const aliceLabel = expectStatus(await as(t.app, alice).post('/api/task-labels', { name: 'Hers' }), 201);
    const api = as(t.app, bob);
    expectError(await api.get(`/api/automation/rules/${rule.id}`), 404, 'NOT_FOUND');
    expectError(await api.patch(`/api/automation/rules/${rule.id}`, { name: 'mine' }), 404, 'NOT_FOUND');
    expectError(await api.delete(`/api/automation/rules/${rule.id}`), 404, 'NOT_FOUND');
    expectError(await trigger(bob, rule.id), 404, 'NOT_FOUND');
    assert.deepEqual(expectStatus(await api.get('/api/automation/rules'), 200), []);
    expectError(
      await api.post('/api/automation/rules', {
        name: 'X',
        trigger: 'event.created',
        conditions: { calendarId: aliceCalendar },
        actions: [{ type: 'tag_event', label: 'x' }],
      }),
      404,
      'NOT_FOUND',
    );
    expectError(
      await api.post('/api/automation/rules', {
        name: 'X',
        trigger: 'manual',
        actions: [{ type: 'create_task', task: { title: 'x', labelIds: [aliceLabel.id] } }],
      }),
      404,
      'NOT_FOUND',
    );
    const own = await createRule(bob, { trigger: 'manual', actions: [{ type: 'tag_event', label: 'x' }] });
    expectError(await trigger(bob, own.id, { eventId: aliceEvent.id }), 404, 'NOT_FOUND');
    expectError(await trigger(bob, own.id, { taskId: aliceTask.id }), 404, 'NOT_FOUND');
    expectError(await api.get(`/api/automation/events/${aliceEvent.id}/tags`), 404, 'NOT_FOUND');
    // Alice's audit is hers alone.
    expectStatus(await trigger(alice, rule.id, { eventId: aliceEvent.id }), 200);
    assert.equal((await audit(alice)).length, 1);
    assert.deepEqual(await audit(bob), []);
  });

  test('event.created runs matching rules after the event is created: create_task, add_reminder, tag_event', async () => {
    const user = await registerUser(t.app);
    const calendar = await defaultCalendarId(t.app, user);
    const label = expectStatus(await as(t.app, user).post('/api/task-labels', { name: 'Health' }), 201);
    const rule = await createRule(user, {
      name: 'Dentist prep',
      trigger: 'event.created',
      conditions: { titleContains: 'DENTIST' },
      actions: [
        {
          type: 'create_task',
          task: {
            title: 'Prepare for {{title}}',
            notes: 'Bring the card for {{title}}',
            priority: 'high',
            dueOffsetMinutes: -60,
            labelIds: [label.id],
            checklist: ['insurance card'],
          },
        },
        { type: 'add_reminder', minutes: 45, method: 'email' },
        { type: 'tag_event', label: 'health' },
      ],
    });

    const event = await createEvent(t.app, user, calendar, {
      title: 'Dentist check-up',
      startTime: '2025-06-10T09:00:00Z',
      endTime: '2025-06-10T09:30:00Z',
      reminders: [{ minutes: 10, method: 'popup' }],
    });
    // The create answered the event as written; the rule's changes are there on the next read.
    const reread = expectStatus(await as(t.app, user).get(`/api/events/${event.id}`), 200);
    assert.deepEqual(reread.reminders, [
      { minutes: 10, method: 'popup' },
      { minutes: 45, method: 'email' },
    ]);
    assert.deepEqual(await tags(user, event.id), ['health']);
    const [task] = await tasks(user);
    assert.ok(task);
    assert.equal(task.title, 'Prepare for Dentist check-up');
    assert.equal(task.dueAt, '2025-06-10T08:00:00.000Z');
    assert.deepEqual(task.labelIds, [label.id]);
    const full = expectStatus(await as(t.app, user).get(`/api/tasks/${task.id}`), 200);
    assert.equal(full.notes, 'Bring the card for Dentist check-up');
    assert.equal(full.priority, 'high');
    assert.deepEqual(
      full.checklist.map((i: { text: string }) => i.text),
      ['insurance card'],
    );

    const entries = await audit(user);
    assert.equal(entries.length, 1);
    const [entry] = entries;
    assert.deepEqual(Object.keys(entry!).sort(), [
      'actions',
      'createdAt',
      'error',
      'id',
      'outcome',
      'ruleId',
      'ruleName',
      'subjectId',
      'subjectType',
      'trigger',
    ]);
    assert.deepEqual(
      { ...entry, id: 0, createdAt: '' },
      {
        id: 0,
        ruleId: rule.id,
        ruleName: 'Dentist prep',
        trigger: 'event.created',
        subjectType: 'event',
        subjectId: event.id,
        outcome: 'succeeded',
        error: null,
        actions: [
          { type: 'create_task', outcome: 'succeeded', taskId: task.id },
          { type: 'add_reminder', outcome: 'succeeded' },
          { type: 'tag_event', outcome: 'succeeded' },
        ],
        createdAt: '',
      },
    );

    // A title that does not match: nothing runs, nothing is recorded.
    const other = await createEvent(t.app, user, calendar, { title: 'Stand-up' });
    assert.equal((await tasks(user)).length, 1);
    assert.deepEqual(await tags(user, other.id), []);
    assert.equal((await audit(user)).length, 1);
    // A disabled rule does not run.
    expectStatus(await as(t.app, user).patch(`/api/automation/rules/${rule.id}`, { enabled: false }), 200);
    await createEvent(t.app, user, calendar, { title: 'Dentist again' });
    assert.equal((await tasks(user)).length, 1);
    assert.equal((await audit(user)).length, 1);
  });

  test('the calendarId condition matches events of that calendar only', async () => {
    const user = await registerUser(t.app);
    const work = await createCalendar(t.app, user, { name: 'Work' });
    const personal = await defaultCalendarId(t.app, user);
    await createRule(user, {
      trigger: 'event.created',
      conditions: { calendarId: work.id },
      actions: [{ type: 'tag_event', label: 'work' }],
    });
    const atWork = await createEvent(t.app, user, work.id);
    const atHome = await createEvent(t.app, user, personal);
    assert.deepEqual(await tags(user, atWork.id), ['work']);
    assert.deepEqual(await tags(user, atHome.id), []);
    const entries = await audit(user);
    assert.deepEqual(
      entries.map((e) => e.subjectId),
      [atWork.id],
    );
  });

  test('task.completed runs when a task becomes done', async () => {
    const user = await registerUser(t.app);
    const api = as(t.app, user);
    const rule = await createRule(user, {
      trigger: 'task.completed',
      conditions: { titleContains: 'invoice' },
      actions: [{ type: 'create_task', task: { title: 'File {{title}}', dueOffsetMinutes: 1440 } }],
    });
    const invoice = expectStatus(await api.post('/api/tasks', { title: 'Send invoice' }), 201);
    const other = expectStatus(await api.post('/api/tasks', { title: 'Water plants' }), 201);
    // Not done yet: nothing.
    expectStatus(await api.patch(`/api/tasks/${invoice.id}`, { status: 'in_progress' }), 200);
    assert.deepEqual(await audit(user), []);
    const before = Date.now();
    expectStatus(await api.patch(`/api/tasks/${invoice.id}`, { status: 'done' }), 200);
    expectStatus(await api.patch(`/api/tasks/${other.id}`, { status: 'done' }), 200);
    const followUp = (await tasks(user)).find((task) => task.title === 'File Send invoice');
    assert.ok(followUp, 'the follow-up task exists');
    const due = Date.parse(followUp.dueAt!);
    assert.ok(due >= before + 86_400_000 && due <= Date.now() + 86_400_000, 'due a day after the run');
    const [entry, ...rest] = await audit(user);
    assert.equal(rest.length, 0);
    assert.equal(entry!.ruleId, rule.id);
    assert.equal(entry!.trigger, 'task.completed');
    assert.equal(entry!.subjectType, 'task');
    assert.equal(entry!.subjectId, invoice.id);
    // Saving a done task again is no new completion; a task created done is one.
    expectStatus(
      await api.patch(`/api/tasks/${invoice.id}`, { status: 'done', title: 'Send invoice 2' }),
      200,
    );
    assert.equal((await audit(user)).length, 1);
    expectStatus(await api.post('/api/tasks', { title: 'Old invoice', status: 'done' }), 201);
    assert.equal((await audit(user)).length, 2);
  });

  test('event.synced runs through runForSyncedEvent; events imported by sync do not fire event.created', async () => {
    const user = await registerUser(t.app);
    const actor = personActor(user.id);
    const calendar = await defaultCalendarId(t.app, user);
    const created = await createRule(user, {
      trigger: 'event.created',
      actions: [{ type: 'tag_event', label: 'local' }],
    });
    const synced = await createRule(user, {
      trigger: 'event.synced',
      actions: [{ type: 'tag_event', label: 'synced' }],
    });
    const second = await createRule(user, {
      trigger: 'event.synced',
      actions: [{ type: 'add_reminder', minutes: 15 }],
    });
    const { events, automation } = t.app.services;
    const imported = await events.create(
      actor,
      calendar,
      { title: 'From provider', startTime: '2025-06-02T09:00:00Z', endTime: '2025-06-02T10:00:00Z' },
      { external: { provider: 'calendar_provider_a', externalId: 'ext-1', etag: null, lastSyncedAt: null } },
    );
    assert.deepEqual(await tags(user, imported.id), []);
    assert.deepEqual(await audit(user), []);

    // The sync asks for its selected rules only.
    assert.deepEqual(await automation.runForSyncedEvent(actor, imported.id, { selectedRuleIds: [] }), []);
    const one = await automation.runForSyncedEvent(actor, imported.id, {
      selectedRuleIds: [synced.id, created.id],
    });
    assert.deepEqual(
      one.map((e) => [e.ruleId, e.trigger, e.outcome]),
      [[synced.id, 'event.synced', 'succeeded']],
    );
    assert.deepEqual(await tags(user, imported.id), ['synced']);
    // Without a selection, every enabled event.synced rule runs.
    const all = await automation.runForSyncedEvent(actor, imported.id);
    assert.deepEqual(
      all.map((e) => e.ruleId),
      [synced.id, second.id],
    );
    assert.deepEqual(expectStatus(await as(t.app, user).get(`/api/events/${imported.id}`), 200).reminders, [
      { minutes: 15, method: 'popup' },
    ]);
    // Tagging twice keeps one tag.
    assert.deepEqual(await tags(user, imported.id), ['synced']);
    // Someone else's event is 404.
    const other = await registerUser(t.app);
    await assert.rejects(automation.runForSyncedEvent(personActor(other.id), imported.id), {
      code: 'NOT_FOUND',
    });
  });

  test('manual runs: on an event, a task or nothing; skipped when conditions fail; disabled is 409', async () => {
    const user = await registerUser(t.app);
    const calendar = await defaultCalendarId(t.app, user);
    const rule = await createRule(user, {
      trigger: 'manual',
      actions: [{ type: 'create_task', task: { title: 'Follow up: {{title}}' } }],
    });
    const plain = expectStatus(await trigger(user, rule.id), 200);
    assert.equal(plain.trigger, 'manual');
    assert.equal(plain.subjectType, null);
    assert.equal(plain.outcome, 'succeeded');
    // No body at all works too.
    const bare = await t.app.inject({
      method: 'POST',
      url: `/api/automation/rules/${rule.id}/trigger`,
      headers: user.auth,
    });
    assert.equal(expectStatus(bare, 200).outcome, 'succeeded');
    const task = expectStatus(await as(t.app, user).post('/api/tasks', { title: 'Call Bob' }), 201);
    const onTask = expectStatus(await trigger(user, rule.id, { taskId: task.id }), 200);
    assert.equal(onTask.subjectType, 'task');
    assert.equal(onTask.subjectId, task.id);
    const event = await createEvent(t.app, user, calendar, { title: 'Board meeting' });
    expectStatus(await trigger(user, rule.id, { eventId: event.id }), 200);
    assert.deepEqual((await tasks(user)).map((task) => task.title).sort(), [
      'Call Bob',
      'Follow up:',
      'Follow up:',
      'Follow up: Board meeting',
      'Follow up: Call Bob',
    ]);
    // Any rule can be run by hand; the run is recorded as manual.
    const conditional = await createRule(user, {
      trigger: 'event.created',
      conditions: { titleContains: 'party' },
      actions: [{ type: 'tag_event', label: 'fun' }],
    });
    const skipped = expectStatus(await trigger(user, conditional.id, { eventId: event.id }), 200);
    assert.equal(skipped.outcome, 'skipped');
    assert.deepEqual(skipped.actions, []);
    assert.deepEqual(await tags(user, event.id), []);

    expectError(
      await trigger(user, rule.id, { eventId: event.id, taskId: task.id }),
      400,
      'VALIDATION_FAILED',
    );
    expectError(await trigger(user, rule.id, { extra: true }), 400, 'VALIDATION_FAILED');
    expectError(await trigger(user, rule.id, { eventId: 999_999 }), 404, 'NOT_FOUND');
    expectStatus(await as(t.app, user).patch(`/api/automation/rules/${rule.id}`, { enabled: false }), 200);
    expectError(await trigger(user, rule.id), 409, 'CONFLICT');
  });

  test('a failing action is recorded in the audit log and never fails the write that triggered it', async () => {
    const user = await registerUser(t.app);
    const api = as(t.app, user);
    const calendar = await defaultCalendarId(t.app, user);
    const label = expectStatus(await api.post('/api/task-labels', { name: 'Temporary' }), 201);
    const rule = await createRule(user, {
      name: 'Fragile',
      trigger: 'event.created',
      actions: [
        { type: 'tag_event', label: 'seen' },
        { type: 'create_task', task: { title: 'Follow up {{title}}', labelIds: [label.id] } },
        { type: 'add_reminder', minutes: 5 },
      ],
    });
    // The label goes away after the rule was saved: create_task now fails.
    expectStatus(await api.delete(`/api/task-labels/${label.id}`), 204);
    const event = await createEvent(t.app, user, calendar, { title: 'Lunch' });
    expectStatus(await api.get(`/api/events/${event.id}`), 200);
    const [entry] = await audit(user);
    assert.ok(entry);
    assert.equal(entry.ruleId, rule.id);
    assert.equal(entry.outcome, 'failed');
    assert.match(entry.error!, /^actions\.1 \(create_task\): NOT_FOUND: Label not found$/);
    assert.deepEqual(entry.actions, [
      { type: 'tag_event', outcome: 'succeeded' },
      { type: 'create_task', outcome: 'failed', error: 'NOT_FOUND: Label not found' },
      { type: 'add_reminder', outcome: 'not_run' },
    ]);
    // What ran before the failure stays; nothing after it ran.
    assert.deepEqual(await tags(user, event.id), ['seen']);
    assert.deepEqual(expectStatus(await api.get(`/api/events/${event.id}`), 200).reminders, []);
    assert.deepEqual(await tasks(user), []);

    // A task completion with a failing rule still completes.
    await createRule(user, {
      trigger: 'task.completed',
      actions: [{ type: 'create_task', task: { title: '{{title}}'.repeat(50) } }],
    });
    const long = expectStatus(await api.post('/api/tasks', { title: 'A title that is long enough' }), 201);
    const done = expectStatus(await api.patch(`/api/tasks/${long.id}`, { status: 'done' }), 200);
    assert.equal(done.status, 'done');
    const [latest] = await audit(user);
    assert.equal(latest!.outcome, 'failed');
    assert.match(latest!.error!, /VALIDATION_FAILED/);
    // An event action without an event, run by hand, fails the same recorded way.
    const manual = await createRule(user, {
      trigger: 'manual',
      actions: [{ type: 'add_reminder', minutes: 5 }],
    });
    const failed = expectStatus(await trigger(user, manual.id), 200);
    assert.equal(failed.outcome, 'failed');
    assert.match(failed.error, /needs an event/);
    assert.deepEqual(
      (await audit(user, '&outcome=failed')).map((e) => e.outcome),
      ['failed', 'failed', 'failed'],
    );
  });

  test('a rule never triggers itself (or another rule) into a loop', async () => {
    const user = await registerUser(t.app);
    const api = as(t.app, user);
    // Each rule makes a done task on every completion: without protection each would
    // complete a task that fires both rules again. (The long prefixes make a broken
    // guard end quickly, when the nested titles outgrow 500 characters, rather than hang.)
    const prefix = (name: string) => `${name}: ${'x'.repeat(110)}: `;
    const first = await createRule(user, {
      trigger: 'task.completed',
      actions: [{ type: 'create_task', task: { title: `${prefix('Logged')}{{title}}`, status: 'done' } }],
    });
    const second = await createRule(user, {
      trigger: 'task.completed',
      actions: [{ type: 'create_task', task: { title: `${prefix('Also')}{{title}}`, status: 'done' } }],
    });
    const task = expectStatus(await api.post('/api/tasks', { title: 'Original' }), 201);
    expectStatus(await api.patch(`/api/tasks/${task.id}`, { status: 'done' }), 200);
    const titles = (await tasks(user)).map((t) => t.title).sort();
    assert.deepEqual(titles, [`${prefix('Also')}Original`, `${prefix('Logged')}Original`, 'Original']);
    const entries = await audit(user);
    assert.deepEqual(entries.map((e) => [e.ruleId, e.subjectId, e.outcome]).reverse(), [
      [first.id, task.id, 'succeeded'],
      [second.id, task.id, 'succeeded'],
    ]);
    // The automation-made tasks are done, and a later human completion still triggers.
    assert.ok((await tasks(user)).every((t) => t.status === 'done'));
    const next = expectStatus(await api.post('/api/tasks', { title: 'Next' }), 201);
    expectStatus(await api.patch(`/api/tasks/${next.id}`, { status: 'done' }), 200);
    assert.equal((await audit(user)).length, 4);
    assert.equal((await tasks(user)).length, 6);
  });

  test("an agent's calendar scope limits what rules may reference and run on", async () => {
    const user = await registerUser(t.app);
    const personal = await defaultCalendarId(t.app, user);
    const work = await createCalendar(t.app, user, { name: 'Work' });
    const event = await createEvent(t.app, user, personal);
    const { automation } = t.app.services;
    const scoped = await realAgent(user, { calendarIds: [work.id] }, [
      'automation.rules.create',
      'automation.rules.trigger',
      'calendar.events.update',
    ]);
    const rule = await automation.createRule(scoped, {
      name: 'Scoped',
      trigger: 'manual',
      actions: [{ type: 'tag_event', label: 'x' }],
    });
    // The event's calendar is outside the scope: as if it did not exist.
    await assert.rejects(automation.trigger(scoped, rule.id, { eventId: event.id }), { code: 'NOT_FOUND' });
    await assert.rejects(automation.listEventTags(scoped, event.id), { code: 'NOT_FOUND' });
    await assert.rejects(
      automation.createRule(scoped, {
        name: 'X',
        trigger: 'event.created',
        conditions: { calendarId: personal },
        actions: [{ type: 'tag_event', label: 'x' }],
      }),
      { code: 'NOT_FOUND' },
    );
    await assert.rejects(automation.runForSyncedEvent(scoped, event.id), { code: 'NOT_FOUND' });
    assert.deepEqual(await audit(user), []);
    // Inside the scope it works.
    const inScope = await createEvent(t.app, user, work.id);
    assert.equal((await automation.trigger(scoped, rule.id, { eventId: inScope.id })).outcome, 'succeeded');
    assert.deepEqual(await tags(user, inScope.id), ['x']);
    // A rule run by an event created through a scoped actor acts with that scope:
    // it cannot reach outside it even when a rule's actions try.
    await createRule(user, { trigger: 'event.created', actions: [{ type: 'tag_event', label: 'auto' }] });
    const made = await t.app.services.events.create(scoped, work.id, {
      title: 'Agent event',
      startTime: '2025-06-03T09:00:00Z',
      endTime: '2025-06-03T10:00:00Z',
    });
    assert.deepEqual(await tags(user, made.id), ['auto']);
  });

  test('a calendar-scoped agent sees no rule, run, tag or event of another calendar', async () => {
    const user = await registerUser(t.app);
    const x = await createCalendar(t.app, user, { name: 'X' });
    const y = await createCalendar(t.app, user, { name: 'Y' });
    const inX = await createEvent(t.app, user, x.id, { title: 'In X' });
    const inY = await createEvent(t.app, user, y.id, { title: 'In Y' });
    const { automation } = t.app.services;
    const agent = await realAgent(user, { calendarIds: [x.id] }, [
      'automation.rules.list',
      'automation.rules.get',
      'automation.rules.create',
      'automation.rules.update',
      'automation.rules.trigger',
      'automation.audit.list',
      'automation.eventTags.list',
      'tasks.create',
    ]);
    const tagOn = (calendarId: number, label: string) =>
      createRule(user, {
        name: label,
        trigger: 'manual',
        conditions: { calendarId },
        actions: [{ type: 'tag_event', label }],
      });
    const onX = await tagOn(x.id, 'x');
    const onY = await tagOn(y.id, 'y');
    const anywhere = await createRule(user, {
      name: 'Anywhere',
      trigger: 'manual',
      actions: [{ type: 'add_reminder', minutes: 5 }],
    });

    // A rule pinned to Y does not exist for the agent.
    assert.deepEqual(
      (await automation.listRules(agent)).map((r) => r.id),
      [anywhere.id, onX.id],
    );
    for (const refused of [
      () => automation.getRule(agent, onY.id),
      () => automation.updateRule(agent, onY.id, { name: 'Mine' }),
      () => automation.deleteRule(agent, onY.id),
      () => automation.trigger(agent, onY.id),
      () => automation.updateRule(agent, onX.id, { conditions: { calendarId: y.id } }),
    ])
      await assert.rejects(refused, { code: 'NOT_FOUND' });
    // An unpinned rule does not reach Y's events either: by id they do not exist.
    await assert.rejects(automation.trigger(agent, anywhere.id, { eventId: inY.id }), { code: 'NOT_FOUND' });
    // The owner runs rules on both calendars; the agent's audit log holds only runs on
    // no event or on X's events, and none of the rule pinned to Y.
    expectStatus(await trigger(user, onX.id, { eventId: inX.id }), 200);
    expectStatus(await trigger(user, onY.id, { eventId: inY.id }), 200);
    expectStatus(await trigger(user, anywhere.id, { eventId: inY.id }), 200);
    expectStatus(await trigger(user, anywhere.id), 200);
    expectStatus(await trigger(user, onY.id), 200);
    const seen = async () =>
      (await automation.listAudit(agent, { limit: 50 })).items.map((e) => [e.ruleId, e.subjectId]);
    assert.deepEqual(await seen(), [
      [anywhere.id, null],
      [onX.id, inX.id],
    ]);
    assert.equal((await audit(user)).length, 5);
    // Tags are read through their event.
    assert.deepEqual(
      (await automation.listEventTags(agent, inX.id)).map((tag) => tag.label),
      ['x'],
    );
    assert.deepEqual(await tags(user, inY.id), ['y']);
    await assert.rejects(automation.listEventTags(agent, inY.id), { code: 'NOT_FOUND' });
    // A deleted event's calendar is no longer known: runs on it leave the agent's log.
    expectStatus(await as(t.app, user).delete(`/api/events/${inX.id}`), 204);
    assert.deepEqual(await seen(), [[anywhere.id, null]]);
    // An agent limited to no calendar sees only runs on no event.
    assert.deepEqual(
      (await automation.listAudit(scopedAgent(user.id, { calendarIds: [] }), { limit: 50 })).items.map(
        (e) => e.ruleId,
      ),
      [anywhere.id],
    );

    // A rule fired by events must be pinned to one of the agent's calendars: unpinned it
    // would run on Y's new events and could copy them into tasks.
    const copyTitles: CreateRuleInput = {
      name: 'Copy',
      trigger: 'event.created',
      actions: [{ type: 'create_task', task: { title: '{{title}}' } }],
    };
    for (const trigger of ['event.created', 'event.synced'] as const)
      await assert.rejects(automation.createRule(agent, { ...copyTitles, trigger }), {
        code: 'VALIDATION_FAILED',
      });
    await assert.rejects(automation.updateRule(agent, anywhere.id, { trigger: 'event.created' }), {
      code: 'VALIDATION_FAILED',
    });
    const pinned = await automation.createRule(agent, { ...copyTitles, conditions: { calendarId: x.id } });
    assert.equal(pinned.conditions.calendarId, x.id);
    await createEvent(t.app, user, y.id, { title: 'Secret' });
    await createEvent(t.app, user, x.id, { title: 'Public' });
    assert.deepEqual(
      (await tasks(user)).map((task) => task.title),
      ['Public'],
    );
  });

  test('the audit log pages newest first by cursor and filters by rule', async () => {
    const user = await registerUser(t.app);
    const a = await createRule(user, {
      trigger: 'manual',
      actions: [{ type: 'create_task', task: { title: 'a' } }],
    });
    const b = await createRule(user, {
      trigger: 'manual',
      actions: [{ type: 'create_task', task: { title: 'b' } }],
    });
    const made: number[] = [];
    for (let i = 0; i < 7; i += 1) made.push(expectStatus(await trigger(user, i % 2 ? b.id : a.id), 200).id);
    const seen: number[] = [];
    let cursor: string | null = null;
    do {
      const body: { items: Audit[]; nextCursor: string | null } = expectStatus(
        await as(t.app, user).get(
          `/api/automation/audit?limit=3${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
        ),
        200,
      );
      assert.ok(body.items.length <= 3);
      seen.push(...body.items.map((e) => e.id));
      cursor = body.nextCursor;
    } while (cursor);
    assert.deepEqual(seen, [...made].reverse());
    assert.deepEqual(
      (await audit(user, `&ruleId=${b.id}`)).map((e) => e.ruleId),
      [b.id, b.id, b.id],
    );
    // Deleting a rule keeps its entries, without the rule id.
    expectStatus(await as(t.app, user).delete(`/api/automation/rules/${b.id}`), 204);
    const entries = await audit(user);
    assert.equal(entries.length, 7);
    assert.equal(entries.filter((e) => e.ruleId === null && e.ruleName === 'Rule').length, 3);
    expectError(await as(t.app, user).get('/api/automation/audit?cursor=xyz'), 400, 'VALIDATION_FAILED');
    expectError(await as(t.app, user).get('/api/automation/audit?limit=0'), 400, 'VALIDATION_FAILED');
  });
});
