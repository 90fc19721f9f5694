import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestApp, registerUser, type TestApp } from '../helpers/app.js';
import { as, expectStatus } from '../helpers/http.js';
import { connectClient } from '../helpers/mcp.js';
import { ownerWithOrganisation } from '../helpers/organisations.js';
import type { CheckedClient } from '../helpers/tool-result-check.js';

// biome-ignore lint/suspicious/noExplicitAny: the tests read the answers field by field
type Answer = any;

/** time_now and time_convert: every answer names its zone and offset, DST-correct. */
describe('time tools', () => {
  let t: TestApp;
  let clock: CheckedClient;
  let lonerClock: CheckedClient;
  before(async () => {
    t = await createTestApp();
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const address = t.app.server.address();
    if (!address || typeof address === 'string') throw new Error('no port');
    const url = new URL(`http://127.0.0.1:${address.port}/api/mcp`);
    const owner = await ownerWithOrganisation(t.app, { timezone: 'Europe/Berlin' });
    const agent = expectStatus(await as(t.app, owner).post('/api/agents', { name: 'Clock' }), 201);
    const key = expectStatus(
      await as(t.app, owner).post(`/api/agents/${agent.id}/keys`, { label: 'k' }),
      201,
    ).key;
    const loner = await registerUser(t.app);
    const other = expectStatus(await as(t.app, loner).post('/api/agents', { name: 'Clock' }), 201);
    const lonerKey = expectStatus(
      await as(t.app, loner).post(`/api/agents/${other.id}/keys`, { label: 'k' }),
      201,
    ).key;
    clock = (await connectClient(url, { 'x-agent-key': key })).client;
    lonerClock = (await connectClient(url, { 'x-agent-key': lonerKey })).client;
  });
  after(async () => {
    await clock.close();
    await lonerClock.close();
    await t.close();
  });

  /** A tool's structured answer (refusals too: `{error}`). */
  const call = async (name: string, args: Record<string, unknown>, client = clock): Promise<Answer> =>
    (await client.callTool({ name, arguments: args })).structuredContent;

  test("time_now: the organisation's zone with its offset, any zone asked, UTC without an organisation", async () => {
    const now = await call('time_now', {});
    assert.equal(now.timeZone, 'Europe/Berlin');
    assert.equal(now.zoneSource, 'organisation');
    assert.ok(['+01:00', '+02:00'].includes(now.offset), now.offset);
    assert.ok(now.local.endsWith(now.offset));
    assert.ok(Math.abs(Date.parse(now.local) - Date.parse(now.now)) < 1000);
    const tokyo = await call('time_now', { timeZone: 'Asia/Tokyo' });
    assert.deepEqual([tokyo.timeZone, tokyo.offset, tokyo.zoneSource], ['Asia/Tokyo', '+09:00', 'argument']);
    const utc = await call('time_now', {}, lonerClock);
    assert.deepEqual([utc.timeZone, utc.offset, utc.zoneSource], ['UTC', '+00:00', 'utc']);
  });

  test('time_convert: winter and summer offsets, the skipped hour refused, the repeated hour named', async () => {
    const winter = await call('time_convert', { time: '2026-03-03T10:00' });
    assert.equal(winter.instant, '2026-03-03T09:00:00.000Z');
    assert.equal(winter.from.local, '2026-03-03T10:00:00+01:00');
    assert.equal(winter.from.weekday, 'Tuesday');
    assert.equal(winter.note, null);
    const summer = await call('time_convert', { time: '2026-07-01T10:00', toTimeZone: 'America/New_York' });
    assert.equal(summer.instant, '2026-07-01T08:00:00.000Z');
    assert.equal(summer.from.offset, '+02:00');
    assert.equal(summer.to.local, '2026-07-01T04:00:00-04:00');
    const instant = await call('time_convert', {
      time: '2026-12-24T18:30:00Z',
      toTimeZone: 'Asia/Kathmandu',
    });
    assert.equal(instant.to.local, '2026-12-25T00:15:00+05:45');
    assert.equal(instant.from.local, '2026-12-24T19:30:00+01:00');

    const gap = await call('time_convert', { time: '2026-03-29T02:30' });
    assert.equal(gap.error.code, 'VALIDATION_FAILED');
    assert.match(gap.error.message, /does not exist in Europe\/Berlin/);
    const twice = await call('time_convert', { time: '2026-10-25T02:30' });
    assert.equal(twice.instant, '2026-10-25T00:30:00.000Z');
    assert.equal(twice.from.offset, '+02:00');
    assert.match(twice.note, /happens twice .* the later is 2026-10-25T02:30:00\+01:00/);

    for (const input of [
      { time: '2026-02-30T10:00' },
      { time: 'tomorrow at ten' },
      { time: '2026-03-03T10:00', fromTimeZone: 'Mars/Olympus' },
    ]) {
      const bad = await call('time_convert', input);
      assert.equal(bad.error?.code, 'VALIDATION_FAILED', JSON.stringify(input));
    }
  });
});
