// The privacy seed's ways in (privacy-seed.ts): agents with keys, an OAuth grant and an MCP
// session, and every kind of second factor.
import assert from 'node:assert/strict';
import type { FastifyInstance } from 'fastify';
import { Secret, TOTP } from 'otpauth';
import type { SignedInUser } from './app.js';
import { client, expectStatus } from './http.js';
import { mcpInitialize } from './mcp.js';
import { grant } from './oauth.js';
import type { Seeding } from './privacy-seed-people.js';
import { SoftwareAuthenticator, TEST_RP } from './webauthn.js';

/** Agents: one with a key and a recorded tool call; one created by an OAuth grant; an MCP session. */
export async function seedAgents(s: Seeding) {
  const { app, person, P } = s;
  const agent = await P('POST', '/api/agents', { name: 'Planner', permissionGroupId: 'minimal' });
  const agentKey = (await P('POST', `/api/agents/${agent.id}/keys`, { label: 'laptop' })).key as string;
  await app.services.agents.recordToolCall({
    agentId: agent.id,
    actionKey: 'calendar.list',
    outcome: 'ok',
    errorCode: null,
    durationMs: 3,
    arguments: { title: 'Dentist', customer: { email: 'p@example.com' } },
    targetIds: [7],
  });
  // Its policy, a use of a daily limit, and an approval it asked for.
  await P(
    'PUT',
    `/api/agents/${agent.id}/policy`,
    { requireApproval: 'writes', limits: { bookingsPerDay: 3 } },
    200,
  );
  assert.ok(
    (await app.services.agents.reserveUsage(agent.id, [{ kind: 'booking', amount: 1, limit: 3 }])).ok,
  );
  const asked = await app.services.approvals.gate.admit({
    agent: {
      id: agent.id,
      userId: person.id,
      name: 'Planner',
      status: 'active',
      permissionGroupId: null,
      permissions: [],
      description: null,
      oauthClientId: null,
      createdAt: agent.createdAt,
      lastUsedAt: null,
    },
    actionKey: 'tasks.create',
    title: 'Create task',
    risk: 'write',
    input: { title: 'Call the plumber' },
    actor: { userId: person.id, via: 'agent', agent: { id: agent.id, actions: new Set(), scope: {} } },
    dryRun: undefined,
    approvalId: null,
  });
  assert.equal(asked.kind, 'approval');
  const oauthGrant = await grant(app, person);
  assert.equal((await mcpInitialize(app, { 'x-agent-key': agentKey })).statusCode, 200);
  return { agentKey, oauthGrant };
}

/**
 * Gives `user` every kind of second-factor row: two-factor on (a secret, recovery codes), a
 * login waiting for its second step, a passkey and a passkey registration left open. Answers
 * the secrets, for checks that they never leave the service.
 */
export async function seedSecondFactors(app: FastifyInstance, user: SignedInUser) {
  const authenticator = new SoftwareAuthenticator(TEST_RP);
  const api = client(app, user);
  const options = expectStatus(await api.send('POST', '/api/auth/passkeys/register/options'), 200);
  const passkey = { ...authenticator.register(options), name: 'Laptop' };
  expectStatus(await api.request('POST', '/api/auth/passkeys/register/verify', passkey), 201);
  const openRegistration = expectStatus(await api.send('POST', '/api/auth/passkeys/register/options'), 200);

  const setup = expectStatus(await api.send('POST', '/api/auth/2fa/setup'), 200);
  const code = TOTP.generate({ secret: Secret.fromBase32(setup.secret) });
  const { recoveryCodes } = expectStatus(
    await api.send('POST', '/api/auth/2fa/enable', { body: { code } }),
    200,
  );
  const login = await client(app, null).request('POST', '/api/auth/login', {
    email: user.email,
    password: user.password,
  });
  const { challenge } = expectStatus(login, 200);
  return {
    totpSecret: setup.secret as string,
    recoveryCode: (recoveryCodes as string[])[0]!,
    loginChallenge: challenge as string,
    passkeyChallenge: openRegistration.challenge as string,
  };
}
