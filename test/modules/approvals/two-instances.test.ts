import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { twoInstances } from '../../helpers/app.js';
import { hourAfterHour } from '../../helpers/booking.js';
import { createResource, createType } from '../../helpers/catalogue.js';
import { newAgent } from '../../helpers/mcp.js';
import { type OrgOwner, ownerWithOrganisation } from '../../helpers/organisations.js';

/**
 * Two instances of the service on one database: an approved call runs once whichever
 * instance each approval lands on, a daily limit lets exactly its last unit through,
 * and a disabled agent fails on the other instance's very next call.
 */
describe('agents acting safely, on two instances', () => {
  let first: FastifyInstance;
  let second: FastifyInstance;
  let close: () => Promise<void>;
  let owner: OrgOwner;
  let room: { id: number };

  before(async () => {
    ({ first, second, close } = await twoInstances());
    owner = await ownerWithOrganisation(first, { timezone: 'UTC' });
    const type = await createType(first, owner);
    room = await createResource(first, owner, { name: 'Room', resourceTypeId: type.id });
  });
  after(() => close());

  const agentWith = (policy: Record<string, unknown>) =>
    newAgent(first, owner, { permissionGroupId: 'reservations_operator', policy });

  /** One tool call through the gateway (the same tool path as tools/call) on `app`. */
  const execute = (app: FastifyInstance, key: string, action: string, input: Record<string, unknown>) =>
    app.inject({
      method: 'POST',
      url: '/api/mcp/execute',
      headers: { 'x-agent-key': key },
      payload: { action, input },
    });
  const booking = hourAfterHour(() => room.id, 5);
  const countAt = async (startTime: string) =>
    (
      (
        await first.inject({
          method: 'GET',
          url: `/api/reservations?resourceId=${room.id}&limit=200`,
          headers: owner.auth,
        })
      ).json().items as Array<{ startTime: string }>
    ).filter((r) => r.startTime === startTime).length;

  test('an approved call runs once under concurrent approvals on both instances', async () => {
    const agent = await agentWith({ requireApproval: 'writes' });
    for (let round = 0; round < 3; round += 1) {
      const args = booking();
      const asked = await execute(second, agent.key, 'reservations.create', args);
      assert.equal(asked.statusCode, 200, asked.body);
      const { approval } = asked.json().result as { approval: { id: number } };
      const decisions = await Promise.all(
        [first, second, first, second].map((app) =>
          app.inject({ method: 'POST', url: `/api/approvals/${approval.id}/approve`, headers: owner.auth }),
        ),
      );
      for (const decision of decisions) assert.equal(decision.statusCode, 200, decision.body);
      assert.equal(await countAt(args.startTime), 1);
      const stored = (
        await second.inject({ method: 'GET', url: `/api/approvals/${approval.id}`, headers: owner.auth })
      ).json();
      assert.equal(stored.status, 'executed');
    }
  });

  test('a daily limit lets exactly its last unit through under concurrent calls on both instances', async () => {
    const agent = await agentWith({ limits: { bookingsPerDay: 3 } });
    const calls = Array.from({ length: 8 }, (_, i) =>
      execute(i % 2 ? second : first, agent.key, 'reservations.create', booking()),
    );
    const answers = await Promise.all(calls);
    const codes = answers.map((a) => (a.statusCode === 200 ? 'ok' : a.json().error.code)).sort();
    assert.deepEqual(codes, [...Array(5).fill('AGENT_LIMIT_REACHED'), 'ok', 'ok', 'ok'].sort());
    for (const refused of answers.filter((a) => a.statusCode !== 200)) assert.equal(refused.statusCode, 403);
  });

  test('disabling an agent on one instance fails its next call on the other at once', async () => {
    const agent = await agentWith({});
    assert.equal((await execute(second, agent.key, 'agent.profile', {})).statusCode, 200);
    assert.equal(
      (await first.inject({ method: 'DELETE', url: `/api/agents/${agent.id}`, headers: owner.auth }))
        .statusCode,
      200,
    );
    const next = await execute(second, agent.key, 'agent.profile', {});
    assert.equal(next.statusCode, 401);
    assert.equal(next.json().error.code, 'UNAUTHENTICATED');
  });
});
