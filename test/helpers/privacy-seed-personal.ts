// The privacy seed's personal side (privacy-seed.ts): calendars, people groups, tasks and household.
import type { Seeding } from './privacy-seed-people.js';

/** Calendars and events; automation on event creation tags the next event and makes a task; feeds. */
export async function seedCalendars(s: Seeding, resourceId: number) {
  const { P } = s;
  const work = await P('POST', '/api/calendars', { name: 'Work', description: 'Client meetings' });
  await P('POST', '/api/automation/rules', {
    name: 'Tag meetings',
    trigger: 'event.created',
    conditions: { titleContains: 'meeting' },
    actions: [
      { type: 'tag_event', label: 'meeting' },
      { type: 'create_task', task: { title: 'Notes for {{title}}' } },
    ],
  });
  await P('POST', `/api/calendars/${work.id}/events`, {
    title: 'Planning meeting',
    description: 'Quarterly plan',
    location: 'Room 1',
    startTime: '2025-06-02T09:00:00Z',
    endTime: '2025-06-02T10:00:00Z',
    recurrence: ['RRULE:FREQ=WEEKLY;COUNT=5'],
    reminders: [{ minutes: 15, method: 'popup' }],
  });
  await P('POST', `/api/calendars/${work.id}/events`, {
    title: 'Dentist',
    startTime: '2025-06-03T09:00:00Z',
    endTime: '2025-06-03T10:00:00Z',
  });
  // Subscription feeds the person made: their calendar's, and their organisation resource's.
  await P('POST', `/api/calendars/${work.id}/feed`);
  await P('POST', `/api/resources/${resourceId}/feed`);
  return work;
}

/** People groups: the person's own (the colleague joins), and the neighbour's (the person joins). */
export async function seedGroups(s: Seeding, workId: number) {
  const { P, C, N } = s;
  const personGroup = await P('POST', '/api/user-groups', { name: 'Book club' });
  const invite = await P('POST', `/api/user-groups/${personGroup.id}/invites`, {});
  await C('POST', '/api/user-groups/invites/accept', { token: invite.token }, 200);
  await P('POST', `/api/user-groups/${personGroup.id}/calendars/attach`, { calendarIds: [workId] }, 200);
  const neighbourGroup = await N('POST', '/api/user-groups', { name: 'Street' });
  const neighbourInvite = await N('POST', `/api/user-groups/${neighbourGroup.id}/invites`, {});
  await P('POST', '/api/user-groups/invites/accept', { token: neighbourInvite.token }, 200);
  await P('POST', `/api/user-groups/${neighbourGroup.id}/calendars/attach`, { calendarIds: [workId] }, 200);
  return { personGroup, neighbourGroup };
}

/** Tasks, labels, checklist, dependency; a routine and one run. */
export async function seedTasks(s: Seeding) {
  const { P } = s;
  const label = await P('POST', '/api/task-labels', { name: 'home' });
  const first = await P('POST', '/api/tasks', {
    title: 'Buy paint',
    labelIds: [label.id],
    checklist: ['white', 'blue'],
  });
  const second = await P('POST', '/api/tasks', { title: 'Paint the hall', notes: 'after buying paint' });
  await P('POST', `/api/tasks/${second.id}/dependencies`, { blockedByTaskId: first.id }, 200);
  const routine = await P('POST', '/api/routines', {
    name: 'Weekly review',
    startDate: '2025-01-06',
    recurrence: ['RRULE:FREQ=WEEKLY'],
    templates: [{ title: 'Review the week' }],
  });
  await P('POST', `/api/routines/${routine.id}/run`, { occurrenceDate: '2025-01-13' });
}

/** Household: private, and shared with the neighbour's group; the neighbour shares one too. */
export async function seedHousehold(s: Seeding, neighbourGroupId: number) {
  const { P, N } = s;
  await P('POST', '/api/household/items', { name: 'Rice', quantity: 2, unit: 'kg', notes: 'basmati' });
  await P('POST', '/api/household/items', { name: 'Ladder', groupId: neighbourGroupId });
  const neighbourItem = await N('POST', '/api/household/items', {
    name: 'Lawn mower',
    groupId: neighbourGroupId,
  });
  return neighbourItem;
}
