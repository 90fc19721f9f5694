import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ZodError, z } from 'zod';
import { ACTIONS } from '../../src/catalogue.js';
import { type Actor, agentActor } from '../../src/lib/actor.js';
import { DomainError } from '../../src/lib/errors.js';
import { bindTools, type ToolDefinition } from '../../src/mcp/types.js';
import { automationTools } from '../../src/modules/automation/tools.js';
import { householdTools } from '../../src/modules/household/tools.js';
import { routineTools } from '../../src/modules/routines/tools.js';
import { taskTools } from '../../src/modules/tasks/tools.js';
import { createTestApp, registerUser, type SignedInUser, type TestApp } from '../helpers/app.js';
import { createCalendar, createEvent, defaultCalendarId } from '../helpers/calendars.js';
import { as, expectStatus } from '../helpers/http.js';
import { callTool, scopedAgent } from '../helpers/tool-harness.js';

const DOMAINS = ['tasks.', 'routines.', 'household.', 'automation.'];
const domainKeys = ACTIONS.filter((a) => DOMAINS.some((prefix) => a.key.startsWith(prefix))).map(
  (a) => a.key,
);

// biome-ignore lint/suspicious/noExplicitAny: tool answers are read loosely
type Answer = Record<string, any>;

describe('workspace MCP tools (tasks, routines, household, automation)', () => {
  let t: TestApp;
  let tools: ToolDefinition[];
  /** Action keys called successfully at least once, and those whose bad input was refused. */
  const succeeded = new Set<string>();
  const refused = new Set<string>();

  before(async () => {
    t = await createTestApp();
    const s = t.app.services;
    tools = [
      ...bindTools(taskTools, s.tasks),
      ...bindTools(routineTools, s.routines),
      ...bindTools(householdTools, s.household),
      ...bindTools(automationTools, s.automation),
    ];
  });
  after(() => t.close());

  async function call(key: string, actor: Actor, input: Record<string, unknown> = {}): Promise<Answer> {
    const answer = await callTool(tools, key, actor, input);
    succeeded.add(key);
    return answer;
  }
  async function rejectsInput(key: string, actor: Actor, input: Record<string, unknown>) {
    await assert.rejects(
      callTool(tools, key, actor, input),
      ZodError,
      `${key} accepted ${JSON.stringify(input)}`,
    );
    refused.add(key);
  }
  async function notFound(key: string, actor: Actor, input: Record<string, unknown>) {
    await assert.rejects(
      callTool(tools, key, actor, input),
      (error: unknown) => error instanceof DomainError && error.code === 'NOT_FOUND',
      `${key} did not answer NOT_FOUND for ${JSON.stringify(input)}`,
    );
  }
  async function refusedWith(key: string, actor: Actor, input: Record<string, unknown>, code: string) {
    await assert.rejects(
      callTool(tools, key, actor, input),
      (error: unknown) => error instanceof DomainError && error.code === code,
    );
  }

  /** A people group owned by `owner` that `members` joined. */
  async function groupWith(owner: SignedInUser, ...members: SignedInUser[]): Promise<number> {
    const group = expectStatus(await as(t.app, owner).post('/api/user-groups', { name: 'Flat' }), 201);
    for (const member of members) {
      const invite = expectStatus(
        await as(t.app, owner).post(`/api/user-groups/${group.id}/invites`, {}),
        201,
      );
      expectStatus(
        await as(t.app, member).post('/api/user-groups/invites/accept', { token: invite.token }),
        200,
      );
    }
    return group.id;
  }

  test('one tool per catalogue action of the four domains, with JSON schemas', () => {
    assert.deepEqual(tools.map((tool) => tool.actionKey).sort(), [...domainKeys].sort());
    for (const tool of tools) {
      const action = ACTIONS.find((a) => a.key === tool.actionKey)!;
      assert.equal(tool.title, action.title);
      assert.ok(tool.description.length > 0);
      assert.equal(z.toJSONSchema(tool.input, { io: 'input' }).type, 'object');
      assert.equal(z.toJSONSchema(tool.output, { io: 'output' }).type, 'object');
    }
  });

  test('tasks, labels, checklists and dependencies', async () => {
    const user = await registerUser(t.app);
    const agent = scopedAgent(user.id, {});

    const label = await call('tasks.labels.create', agent, { name: 'Home' });
    assert.equal(label.color, '#6b7280');
    assert.deepEqual(
      (await call('tasks.labels.list', agent)).labels.map((l: Answer) => l.id),
      [label.id],
    );
    const recoloured = await call('tasks.labels.update', agent, { labelId: label.id, color: '#ff0000' });
    assert.equal(recoloured.color, '#ff0000');
    await refusedWith('tasks.labels.create', agent, { name: 'Home' }, 'CONFLICT');

    const a = await call('tasks.create', agent, {
      title: 'Clean',
      labelIds: [label.id],
      checklist: ['kitchen'],
      dueAt: '2025-06-02T10:00:00+02:00',
    });
    assert.equal(a.dueAt, '2025-06-02T08:00:00.000Z');
    assert.deepEqual(a.labelIds, [label.id]);
    const b = await call('tasks.create', agent, { title: 'Buy soap' });
    assert.deepEqual(await call('tasks.get', agent, { taskId: a.id }), a);

    const labelled = await call('tasks.list', agent, { labelId: label.id });
    assert.deepEqual(
      labelled.items.map((task: Answer) => task.id),
      [a.id],
    );
    assert.equal(labelled.nextCursor, null);
    const first = await call('tasks.list', agent, { limit: 1 });
    assert.equal(first.items.length, 1);
    const second = await call('tasks.list', agent, { limit: 1, cursor: first.nextCursor });
    assert.deepEqual(
      second.items.map((task: Answer) => task.id),
      [b.id],
    );

    const updated = await call('tasks.update', agent, {
      taskId: a.id,
      status: 'in_progress',
      priority: 'high',
    });
    assert.equal(updated.status, 'in_progress');
    assert.equal(updated.priority, 'high');

    const item = await call('tasks.checklist.add', agent, { taskId: a.id, text: 'bathroom' });
    assert.equal(item.position, 1);
    const moved = await call('tasks.checklist.update', agent, {
      taskId: a.id,
      itemId: item.id,
      done: true,
      position: 0,
    });
    assert.deepEqual(moved, { id: item.id, text: 'bathroom', done: true, position: 0 });
    assert.deepEqual(await call('tasks.checklist.delete', agent, { taskId: a.id, itemId: item.id }), {
      deleted: true,
    });
    assert.deepEqual(
      (await call('tasks.get', agent, { taskId: a.id })).checklist.map((i: Answer) => i.text),
      ['kitchen'],
    );

    const waiting = await call('tasks.dependencies.add', agent, { taskId: a.id, blockedByTaskId: b.id });
    assert.deepEqual(waiting.blockedByTaskIds, [b.id]);
    assert.equal(waiting.isBlocked, true);
    await refusedWith(
      'tasks.dependencies.add',
      agent,
      { taskId: b.id, blockedByTaskId: a.id },
      'DEPENDENCY_CYCLE',
    );
    await refusedWith('tasks.update', agent, { taskId: a.id, status: 'done' }, 'TASK_BLOCKED');
    assert.deepEqual(
      await call('tasks.dependencies.remove', agent, { taskId: a.id, blockedByTaskId: b.id }),
      {
        deleted: true,
      },
    );
    await notFound('tasks.dependencies.remove', agent, { taskId: a.id, blockedByTaskId: b.id });

    assert.deepEqual(await call('tasks.labels.delete', agent, { labelId: label.id }), { deleted: true });
    assert.deepEqual((await call('tasks.get', agent, { taskId: a.id })).labelIds, []);
    assert.deepEqual(await call('tasks.delete', agent, { taskId: b.id }), { deleted: true });
    await notFound('tasks.get', agent, { taskId: b.id });

    // Another user's tasks do not exist for this agent.
    const other = scopedAgent((await registerUser(t.app)).id, {}, 2);
    await notFound('tasks.get', other, { taskId: a.id });
    await notFound('tasks.update', other, { taskId: a.id, title: 'mine' });
    await notFound('tasks.checklist.add', other, { taskId: a.id, text: 'x' });
  });

  test('task tools refuse bad input through their schemas', async () => {
    const agent = scopedAgent((await registerUser(t.app)).id, {});
    await rejectsInput('tasks.list', agent, {
      dueFrom: '2025-02-01T00:00:00Z',
      dueTo: '2025-01-01T00:00:00Z',
    });
    await rejectsInput('tasks.list', agent, { limit: 500 });
    await rejectsInput('tasks.get', agent, { taskId: 0 });
    await rejectsInput('tasks.create', agent, { title: '   ' });
    await rejectsInput('tasks.create', agent, { title: 'ok', colour: 'red' });
    await rejectsInput('tasks.update', agent, { taskId: 1, status: 'finished' });
    await rejectsInput('tasks.delete', agent, {});
    await rejectsInput('tasks.labels.list', agent, { q: 'x' });
    await rejectsInput('tasks.labels.create', agent, { name: 'Work', color: 'red' });
    await rejectsInput('tasks.labels.update', agent, { labelId: 1, name: '' });
    await rejectsInput('tasks.labels.delete', agent, { labelId: '1' });
    await rejectsInput('tasks.checklist.add', agent, { taskId: 1, text: 'x'.repeat(501) });
    await rejectsInput('tasks.checklist.update', agent, { taskId: 1, itemId: 1, position: -1 });
    await rejectsInput('tasks.checklist.delete', agent, { taskId: 1 });
    await rejectsInput('tasks.dependencies.add', agent, { taskId: 1 });
    await rejectsInput('tasks.dependencies.remove', agent, { taskId: 1, blockedByTaskId: 2.5 });
  });

  test('routines', async () => {
    const user = await registerUser(t.app);
    // Running a routine makes tasks: the agent holds tasks.create as well.
    const agent = agentActor(user.id, { id: 1, actions: new Set(['tasks.create']), scope: {} });
    const created = await call('routines.create', agent, {
      name: 'Weekly chores',
      timezone: 'Europe/Berlin',
      startDate: '2025-06-02',
      recurrence: ['RRULE:FREQ=WEEKLY;BYDAY=MO'],
      templates: [{ title: 'Take out the bins', dueTime: '08:00' }],
    });
    assert.deepEqual(
      (await call('routines.list', agent)).routines.map((r: Answer) => r.id),
      [created.id],
    );
    assert.deepEqual(await call('routines.get', agent, { routineId: created.id }), created);
    const renamed = await call('routines.update', agent, { routineId: created.id, name: 'Chores' });
    assert.equal(renamed.name, 'Chores');

    const run = await call('routines.run', agent, { routineId: created.id, occurrenceDate: '2025-06-09' });
    assert.equal(run.created, true);
    assert.equal(run.occurrenceDate, '2025-06-09');
    assert.equal(run.tasks.length, 1);
    assert.equal(run.tasks[0].dueAt, '2025-06-09T06:00:00.000Z');
    const again = await call('routines.run', agent, { routineId: created.id, occurrenceDate: '2025-06-09' });
    assert.equal(again.created, false);
    assert.deepEqual(
      again.tasks.map((task: Answer) => task.id),
      run.tasks.map((task: Answer) => task.id),
    );
    const latest = await call('routines.run', agent, { routineId: created.id });
    assert.equal(latest.created, true);
    await refusedWith(
      'routines.run',
      agent,
      { routineId: created.id, occurrenceDate: '2025-06-10' },
      'VALIDATION_FAILED',
    );

    assert.deepEqual(await call('routines.delete', agent, { routineId: created.id }), { deleted: true });
    await notFound('routines.get', agent, { routineId: created.id });
    await notFound('routines.run', scopedAgent((await registerUser(t.app)).id, {}, 2), {
      routineId: created.id,
    });
  });

  test('routine tools refuse bad input through their schemas', async () => {
    const agent = scopedAgent((await registerUser(t.app)).id, {});
    const valid = {
      name: 'R',
      startDate: '2025-06-02',
      recurrence: ['RRULE:FREQ=DAILY'],
      templates: [{ title: 'T' }],
    };
    await rejectsInput('routines.list', agent, { limit: 1 });
    await rejectsInput('routines.get', agent, { routineId: -1 });
    await rejectsInput('routines.create', agent, { ...valid, recurrence: [] });
    await rejectsInput('routines.create', agent, { ...valid, templates: [{ title: 'T', dueTime: '25:00' }] });
    await rejectsInput('routines.update', agent, { routineId: 1, startDate: '2025-13-01' });
    await rejectsInput('routines.run', agent, { routineId: 1, occurrenceDate: '9 June' });
    await rejectsInput('routines.delete', agent, { id: 1 });
  });

  test('household items, within the agent group scope', async () => {
    const owner = await registerUser(t.app);
    const member = await registerUser(t.app);
    const groupId = await groupWith(owner, member);
    const otherGroupId = await groupWith(owner);
    const agent = scopedAgent(owner.id, {});

    const fridge = await call('household.items.create', agent, {
      name: 'Milk',
      location: 'Fridge',
      expiresAt: '2025-06-05T00:00:00Z',
    });
    assert.equal(fridge.groupId, null);
    assert.equal(fridge.quantity, 1);
    const shared = await call('household.items.create', agent, {
      name: 'Rice',
      quantity: 2,
      unit: 'kg',
      groupId,
    });
    assert.equal(shared.groupId, groupId);
    const list = await call('household.items.list', agent);
    assert.deepEqual(
      list.items.map((item: Answer) => item.id),
      [fridge.id, shared.id],
    );
    assert.equal(list.nextCursor, null);
    assert.deepEqual(
      (await call('household.items.list', agent, { groupId })).items.map((item: Answer) => item.id),
      [shared.id],
    );
    assert.deepEqual(await call('household.items.get', agent, { itemId: shared.id }), shared);
    const changed = await call('household.items.update', agent, { itemId: shared.id, quantity: 0.5 });
    assert.equal(changed.quantity, 0.5);

    // The member reaches the shared item (not the private one) and may not move it.
    const memberAgent = scopedAgent(member.id, {}, 2);
    assert.equal((await call('household.items.get', memberAgent, { itemId: shared.id })).id, shared.id);
    await notFound('household.items.get', memberAgent, { itemId: fridge.id });
    await refusedWith(
      'household.items.update',
      memberAgent,
      { itemId: shared.id, groupId: null },
      'FORBIDDEN',
    );

    // Scoped to another group: the shared item and its group do not exist; private items stay visible.
    const scoped = scopedAgent(owner.id, { groupIds: [otherGroupId] }, 3);
    await notFound('household.items.get', scoped, { itemId: shared.id });
    await notFound('household.items.list', scoped, { groupId });
    await notFound('household.items.create', scoped, { name: 'Beans', groupId });
    await notFound('household.items.update', scoped, { itemId: shared.id, quantity: 9 });
    await notFound('household.items.update', scoped, { itemId: fridge.id, groupId });
    await notFound('household.items.delete', scoped, { itemId: shared.id });
    assert.deepEqual(
      (await call('household.items.list', scoped)).items.map((item: Answer) => item.id),
      [fridge.id],
    );
    const inScope = await call('household.items.create', scoped, { name: 'Oats', groupId: otherGroupId });
    assert.equal(inScope.groupId, otherGroupId);
    const noGroups = scopedAgent(owner.id, { groupIds: [] }, 4);
    assert.deepEqual(
      (await call('household.items.list', noGroups)).items.map((item: Answer) => item.id),
      [fridge.id],
    );

    assert.deepEqual(await call('household.items.delete', agent, { itemId: shared.id }), { deleted: true });
    await notFound('household.items.get', agent, { itemId: shared.id });
  });

  test('household tools refuse bad input through their schemas', async () => {
    const agent = scopedAgent((await registerUser(t.app)).id, {});
    await rejectsInput('household.items.list', agent, { expiringBefore: 'tomorrow' });
    await rejectsInput('household.items.get', agent, { itemId: 'one' });
    await rejectsInput('household.items.create', agent, { name: 'Milk', quantity: -1 });
    await rejectsInput('household.items.update', agent, { itemId: 1, notes: 'x'.repeat(2001) });
    await rejectsInput('household.items.delete', agent, {});
  });

  test('automation rules, audit and event tags, within the agent calendar scope', async () => {
    const user = await registerUser(t.app);
    const home = await defaultCalendarId(t.app, user);
    const work = (await createCalendar(t.app, user, { name: 'Work' })).id;
    const event = await createEvent(t.app, user, home, { title: 'Dentist' });
    // A rule an agent writes runs as that agent, read at run time: a real one, allowed to tag events.
    const real = (
      await t.app.inject({
        method: 'POST',
        url: '/api/agents',
        headers: user.auth,
        payload: { name: 'Rules' },
      })
    ).json() as { id: number };
    const granted = await t.app.inject({
      method: 'PUT',
      url: `/api/agents/${real.id}/permissions`,
      headers: user.auth,
      payload: {
        permissions: [{ actionKey: 'automation.rules.create' }, { actionKey: 'calendar.events.update' }],
      },
    });
    assert.equal(granted.statusCode, 200, granted.body);
    const agent = scopedAgent(user.id, {}, real.id);

    const rule = await call('automation.rules.create', agent, {
      name: 'Tag home',
      trigger: 'manual',
      conditions: { calendarId: home },
      actions: [{ type: 'tag_event', label: 'seen' }],
    });
    assert.equal(rule.enabled, true);
    assert.deepEqual(
      (await call('automation.rules.list', agent)).rules.map((r: Answer) => r.id),
      [rule.id],
    );
    assert.deepEqual(await call('automation.rules.get', agent, { ruleId: rule.id }), rule);
    const renamed = await call('automation.rules.update', agent, { ruleId: rule.id, name: 'Tagger' });
    assert.equal(renamed.name, 'Tagger');

    const entry = await call('automation.rules.trigger', agent, { ruleId: rule.id, eventId: event.id });
    assert.equal(entry.outcome, 'succeeded');
    assert.equal(entry.subjectId, event.id);
    const skipped = await call('automation.rules.trigger', agent, { ruleId: rule.id });
    assert.equal(skipped.outcome, 'skipped');
    const tags = await call('automation.eventTags.list', agent, { eventId: event.id });
    assert.deepEqual(
      tags.tags.map((tag: Answer) => [tag.label, tag.ruleId]),
      [['seen', rule.id]],
    );
    const audit = await call('automation.audit.list', agent, { ruleId: rule.id, limit: 1 });
    assert.deepEqual(
      audit.items.map((e: Answer) => e.id),
      [skipped.id],
    );
    assert.notEqual(audit.nextCursor, null);

    // Scoped to the work calendar: the rule pinned to home and home's event do not exist.
    const scoped = scopedAgent(user.id, { calendarIds: [work] }, 2);
    assert.deepEqual((await call('automation.rules.list', scoped)).rules, []);
    await notFound('automation.rules.get', scoped, { ruleId: rule.id });
    await notFound('automation.rules.update', scoped, { ruleId: rule.id, enabled: false });
    await notFound('automation.rules.trigger', scoped, { ruleId: rule.id });
    await notFound('automation.rules.delete', scoped, { ruleId: rule.id });
    await notFound('automation.eventTags.list', scoped, { eventId: event.id });
    await notFound('automation.rules.create', scoped, {
      name: 'Sneaky',
      trigger: 'event.created',
      conditions: { calendarId: home },
      actions: [{ type: 'tag_event', label: 'x' }],
    });
    assert.deepEqual((await call('automation.audit.list', scoped)).items, []);
    const own = await call('automation.rules.create', scoped, {
      name: 'Work tasks',
      trigger: 'event.created',
      conditions: { calendarId: work },
      actions: [{ type: 'create_task', task: { title: 'Prepare {{title}}' } }],
    });
    await notFound('automation.rules.trigger', scoped, { ruleId: own.id, eventId: event.id });

    assert.deepEqual(await call('automation.rules.delete', agent, { ruleId: rule.id }), { deleted: true });
    await notFound('automation.rules.get', agent, { ruleId: rule.id });
    assert.equal((await call('automation.eventTags.list', agent, { eventId: event.id })).tags.length, 1);
  });

  test('automation tools refuse bad input through their schemas', async () => {
    const agent = scopedAgent((await registerUser(t.app)).id, {});
    const valid = { name: 'R', trigger: 'manual', actions: [{ type: 'tag_event', label: 'x' }] };
    await rejectsInput('automation.rules.list', agent, { enabled: true });
    await rejectsInput('automation.rules.get', agent, {});
    await rejectsInput('automation.rules.create', agent, { ...valid, actions: [] });
    await rejectsInput('automation.rules.create', agent, { ...valid, actions: [{ type: 'send_email' }] });
    await rejectsInput('automation.rules.update', agent, { ruleId: 1, trigger: 'hourly' });
    await rejectsInput('automation.rules.delete', agent, { ruleId: 1, force: true });
    await rejectsInput('automation.rules.trigger', agent, { ruleId: 1, eventId: 1, taskId: 2 });
    await rejectsInput('automation.audit.list', agent, { outcome: 'exploded' });
    await rejectsInput('automation.eventTags.list', agent, { eventId: -1 });
  });

  test('every tool was called successfully and refused a bad input', () => {
    assert.deepEqual([...succeeded].sort(), [...domainKeys].sort());
    assert.deepEqual([...refused].sort(), [...domainKeys].sort());
  });
});
