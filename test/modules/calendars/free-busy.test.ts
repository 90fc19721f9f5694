import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/client';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../../src/app.js';
import { loadConfig } from '../../../src/config.js';
import { createTestDatabase, registerUser, type SignedInUser } from '../../helpers/app.js';
import { call, expectStatus, validationDetails } from '../../helpers/http.js';
import { connectClient, MCP_TEST_ENV } from '../../helpers/mcp.js';

type ToolResult = { isError?: boolean; structuredContent?: unknown };
type Busy = { calendars: Array<{ calendarId: number; busy: Array<{ start: string; end: string }> }> };

/**
 * Free/busy (issue 26): `POST /api/calendars/free-busy` and the MCP tool
 * `calendar_freeBusy_read` answer merged busy time of the caller's own calendars, and
 * nothing about the events; an agent scoped to one calendar sees only that one.
 */
describe('free/busy', () => {
  let app: FastifyInstance;
  let dropDb: () => Promise<void>;
  const clients: Client[] = [];
  before(async () => {
    const { db, drop } = await createTestDatabase();
    dropDb = drop;
    app = await buildApp(loadConfig(MCP_TEST_ENV), { db, logger: false });
    await app.listen({ port: 0, host: '127.0.0.1' });
  });
  after(async () => {
    await Promise.all(clients.map((client) => client.close().catch(() => {})));
    await app.close();
    await dropDb();
  });

  const range = { from: '2031-03-24T00:00:00Z', to: '2031-04-07T00:00:00Z' };
  async function calendar(user: SignedInUser, body: Record<string, unknown>): Promise<{ id: number }> {
    return expectStatus(await call(app, user, 'POST', '/api/calendars', body), 201);
  }
  async function event(user: SignedInUser, calendarId: number, body: Record<string, unknown>) {
    expectStatus(
      await call(app, user, 'POST', `/api/calendars/${calendarId}/events`, {
        title: 'Private matter',
        ...body,
      }),
      201,
    );
  }
  const freeBusy = (user: SignedInUser, body: Record<string, unknown>) =>
    call(app, user, 'POST', '/api/calendars/free-busy', body);

  /** A person with two calendars: Work (a weekly series and two overlapping meetings) and Home. */
  async function person() {
    const user = await registerUser(app);
    const work = await calendar(user, { name: 'Work', timezone: 'Europe/Berlin' });
    const home = await calendar(user, { name: 'Home' });
    await event(user, work.id, {
      startTime: '2031-03-24T09:00:00+01:00',
      endTime: '2031-03-24T10:00:00+01:00',
      timezone: 'Europe/Berlin',
      recurrence: ['RRULE:FREQ=WEEKLY;BYDAY=MO;COUNT=3'],
    });
    await event(user, work.id, { startTime: '2031-03-25T13:00:00Z', endTime: '2031-03-25T14:00:00Z' });
    await event(user, work.id, { startTime: '2031-03-25T13:30:00Z', endTime: '2031-03-25T15:00:00Z' });
    await event(user, work.id, {
      title: 'Lunch (free)',
      startTime: '2031-03-26T12:00:00Z',
      endTime: '2031-03-26T13:00:00Z',
      transparency: 'transparent',
    });
    await event(user, home.id, { startTime: '2031-03-23T22:00:00Z', endTime: '2031-03-24T02:00:00Z' });
    return { user, work, home };
  }

  test('merged busy time of own calendars, clipped to the range, across a daylight-saving change', async () => {
    const { user, work, home } = await person();
    const answer = expectStatus(await freeBusy(user, range), 200) as Busy;
    const byId = new Map(answer.calendars.map((c) => [c.calendarId, c.busy]));
    assert.deepEqual(byId.get(work.id), [
      { start: '2031-03-24T08:00:00.000Z', end: '2031-03-24T09:00:00.000Z' },
      { start: '2031-03-25T13:00:00.000Z', end: '2031-03-25T15:00:00.000Z' },
      { start: '2031-03-31T07:00:00.000Z', end: '2031-03-31T08:00:00.000Z' },
    ]);
    assert.deepEqual(byId.get(home.id), [
      { start: '2031-03-24T00:00:00.000Z', end: '2031-03-24T02:00:00.000Z' },
    ]);
    assert.ok(byId.has(answer.calendars[0]!.calendarId), 'the default calendar is answered too');
    assert.equal(answer.calendars.length, 3, 'default, Work and Home');
    const raw = (await freeBusy(user, range)).body;
    assert.ok(!raw.includes('Private') && !raw.includes('eventId'), 'nothing about the events');

    const one = expectStatus(await freeBusy(user, { ...range, calendarIds: [home.id] }), 200) as Busy;
    assert.deepEqual(
      one.calendars.map((c) => c.calendarId),
      [home.id],
    );
  });

  test("bad input: over 62 days, to before from, calendars not the caller's", async () => {
    const { user, work } = await person();
    const other = await registerUser(app);
    const theirs = await calendar(other, { name: 'Theirs' });
    assert.deepEqual(
      validationDetails(await freeBusy(user, { from: '2031-01-01T00:00:00Z', to: '2031-03-05T00:00:00Z' })),
      ['body.to: the range may cover at most 62 days'],
    );
    assert.deepEqual(
      validationDetails(await freeBusy(user, { from: '2031-01-02T00:00:00Z', to: '2031-01-01T00:00:00Z' })),
      ['body.to: must be after from'],
    );
    expectStatus(await freeBusy(user, { ...range, calendarIds: [work.id, theirs.id] }), 404, 'NOT_FOUND');
    expectStatus(await freeBusy(other, { ...range, calendarIds: [work.id] }), 404, 'NOT_FOUND');
    validationDetails(await freeBusy(user, { ...range, extra: 1 }));
    expectStatus(await app.inject({ method: 'POST', url: '/api/calendars/free-busy', payload: range }), 401);
  });

  test('MCP calendar_freeBusy_read: an agent scoped to one calendar sees only that one', async () => {
    const { user, work, home } = await person();
    const post = async (url: string, payload: Record<string, unknown>) =>
      expectStatus(await call(app, user, 'POST', url, payload), 201);
    const agent = await post('/api/agents', { name: 'Scheduler' });
    expectStatus(
      await app.inject({
        method: 'PUT',
        url: `/api/agents/${agent.id}/permissions`,
        headers: user.auth,
        payload: {
          permissions: [{ actionKey: 'calendar.freeBusy.read', scope: { calendarIds: [work.id] } }],
        },
      }),
      200,
    );
    const { key } = await post(`/api/agents/${agent.id}/keys`, { label: 'k' });
    const address = app.server.address();
    if (!address || typeof address === 'string') throw new Error('not listening');
    const { client } = await connectClient(new URL(`http://127.0.0.1:${address.port}/api/mcp`), {
      'x-agent-key': key,
    });
    clients.push(client);
    assert.ok((await client.listTools()).tools.some((tool) => tool.name === 'calendar_freeBusy_read'));

    const all = (await client.callTool({ name: 'calendar_freeBusy_read', arguments: range })) as ToolResult;
    assert.equal(all.isError, undefined, JSON.stringify(all));
    const answer = all.structuredContent as Busy;
    assert.deepEqual(
      answer.calendars.map((c) => c.calendarId),
      [work.id],
    );
    assert.equal(answer.calendars[0]!.busy.length, 3);

    const outside = (await client.callTool({
      name: 'calendar_freeBusy_read',
      arguments: { ...range, calendarIds: [home.id] },
    })) as ToolResult;
    assert.equal(outside.isError, true);
    assert.equal((outside.structuredContent as { error: { code: string } }).error.code, 'NOT_FOUND');
  });
});
