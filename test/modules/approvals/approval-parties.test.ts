// Who an approval is about: the agent that asked (by name) and the customer whose reservation
// the call books or changes, as GET /api/approvals and /api/approvals/:id answer them.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestApp, type TestApp } from '../../helpers/app.js';
import { at, customer, futureMonday } from '../../helpers/booking.js';
import { createResource, createType } from '../../helpers/catalogue.js';
import { as, expectStatus } from '../../helpers/http.js';
import { type OrgOwner, ownerWithOrganisation } from '../../helpers/organisations.js';

describe('approvals name the agent and the customer', () => {
  let t: TestApp;
  let owner: OrgOwner;
  let room: { id: number };
  let agentId: number;
  let key: string;

  before(async () => {
    t = await createTestApp();
    owner = await ownerWithOrganisation(t.app, { timezone: 'Europe/Berlin' });
    const type = await createType(t.app, owner);
    room = await createResource(t.app, owner, { name: 'Room A', resourceTypeId: type.id });
    const api = as(t.app, owner);
    // Cancelling is destructive: only a global admin may grant it (the full preset).
    await t.app.services.auth.updateUserByEmail(owner.email, { isGlobalAdmin: true });
    agentId = expectStatus(
      await api.post('/api/agents', { name: 'Front desk bot', permissionGroupId: 'full_mcp_admin' }),
      201,
    ).id;
    const put = (url: string, payload: Record<string, unknown>) =>
      t.app.inject({ method: 'PUT', url, headers: owner.auth, payload });
    key = expectStatus(await api.post(`/api/agents/${agentId}/keys`, { label: 'k' }), 201).key;
    expectStatus(await put(`/api/agents/${agentId}/policy`, { requireApproval: 'writes' }), 200);
  });
  after(() => t.close());

  /** The agent calls `action`; answers the approval id the call waits for. */
  async function ask(action: string, input: Record<string, unknown>): Promise<number> {
    const response = await t.app.inject({
      method: 'POST',
      url: '/api/mcp/execute',
      headers: { 'x-agent-key': key },
      payload: { action, input },
    });
    const id = response.json().result?.approval?.id;
    assert.equal(typeof id, 'number', response.body);
    return id;
  }

  test('a booking asked for: the agent by name and the customer of its arguments', async () => {
    const id = await ask('reservations.create', {
      resourceId: room.id,
      startTime: at(futureMonday(), 9),
      endTime: at(futureMonday(), 10),
      customer: { ...customer, phone: '+49 30 1234' },
    });
    const one = expectStatus(await as(t.app, owner).get(`/api/approvals/${id}`), 200);
    assert.equal(one.agentId, agentId);
    assert.equal(one.agentName, 'Front desk bot');
    assert.deepEqual(one.customer, { name: customer.name, email: customer.email });
    const listed = expectStatus(await as(t.app, owner).get('/api/approvals?status=pending'), 200);
    const row = listed.items.find((a: { id: number }) => a.id === id);
    assert.equal(row.agentName, 'Front desk bot');
    assert.deepEqual(row.customer, { name: customer.name, email: customer.email });
  });

  test('a cancellation asked for: the customer of the reservation it names', async () => {
    const booked = expectStatus(
      await as(t.app, owner).post('/api/reservations', {
        resourceId: room.id,
        startTime: at(futureMonday(), 12),
        endTime: at(futureMonday(), 13),
        customer: { name: 'Ada Lovelace', email: 'ada@example.test' },
      }),
      201,
    );
    const id = await ask('reservations.cancel', { reservationId: booked.id });
    const one = expectStatus(await as(t.app, owner).get(`/api/approvals/${id}`), 200);
    assert.equal(one.agentName, 'Front desk bot');
    assert.deepEqual(one.customer, { name: 'Ada Lovelace', email: 'ada@example.test' });
    assert.match(one.summary, /^Cancel Room A, /);
  });

  test('a call that names no reservation or customer: customer null', async () => {
    const id = await ask('resourceTypes.create', { name: 'Desk' });
    const one = expectStatus(await as(t.app, owner).get(`/api/approvals/${id}`), 200);
    assert.equal(one.agentName, 'Front desk bot');
    assert.equal(one.customer, null);
  });
});
