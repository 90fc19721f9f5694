import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { personActor } from '../../src/lib/actor.js';
import { rememberActiveTenant } from '../../src/tenancy/active-tenant.js';
import { createTenantGate, type Membership, type Tenant } from '../../src/tenancy/gate.js';

const tenant: Tenant = {
  organisationId: 7,
  role: 'MEMBER',
  timezone: 'Europe/Berlin',
  schedulePolicy: null,
  defaultCurrency: 'EUR',
  requireTwoFactor: false,
  memberHasTwoFactor: false,
};

/** A gate whose reader counts its reads and answers `stored` (by organisation: `others`). */
function gateReading(stored: Tenant | undefined, others: Tenant[] = []) {
  const reads: number[] = [];
  const gate = createTenantGate<Membership>({
    async activeTenant(userId) {
      reads.push(userId);
      return stored;
    },
    async tenantIn(organisationId) {
      return others.find((other) => other.organisationId === organisationId);
    },
    async membership() {
      return undefined;
    },
  });
  return { gate, reads };
}

describe('the tenant gate', () => {
  test('takes the tenant the guard read with the credential in this request, and reads nothing', async () => {
    const { gate, reads } = gateReading(undefined);
    const actor = personActor(3);
    rememberActiveTenant(actor, tenant);
    assert.deepEqual(await gate.requireTenant(actor), tenant);
    assert.deepEqual(reads, []);
  });

  test('a credential read that found none is 409 NO_ACTIVE_ORGANISATION, without a second read', async () => {
    const { gate, reads } = gateReading(tenant);
    const actor = personActor(3);
    rememberActiveTenant(actor, null);
    await assert.rejects(gate.requireTenant(actor), { code: 'NO_ACTIVE_ORGANISATION' });
    assert.deepEqual(reads, []);
  });

  test('an actor no guard read for (an agent, another request) is read now, every time', async () => {
    const { gate, reads } = gateReading(tenant);
    const remembered = personActor(3);
    rememberActiveTenant(remembered, null);
    // Another request of the same person: its own Actor, nothing remembered for it.
    const next = personActor(3);
    assert.deepEqual(await gate.requireTenant(next), tenant);
    assert.deepEqual(await gate.requireTenant(next), tenant);
    assert.deepEqual(reads, [3, 3]);
  });

  test('an actor bound to an organisation (an approved call) works in it, never the active one', async () => {
    const asked: Tenant = { ...tenant, organisationId: 8, role: 'OWNER' };
    const { gate, reads } = gateReading(tenant, [asked]);
    assert.deepEqual(await gate.requireTenant({ ...personActor(3), organisationId: 8 }), asked);
    // Left or archived since, or asked in none: no tenant, and never the active one instead.
    await assert.rejects(gate.requireTenant({ ...personActor(3), organisationId: 9 }), {
      code: 'NO_ACTIVE_ORGANISATION',
    });
    await assert.rejects(gate.requireTenant({ ...personActor(3), organisationId: null }), {
      code: 'NO_ACTIVE_ORGANISATION',
    });
    assert.deepEqual(reads, []);
  });

  test('the role matrix applies to a remembered tenant as to a read one', async () => {
    const { gate } = gateReading(undefined);
    const actor = personActor(3);
    rememberActiveTenant(actor, tenant);
    await assert.rejects(gate.requireTenant(actor, { can: 'archiveOrganisation' }), {
      code: 'FORBIDDEN',
    });
  });
});
