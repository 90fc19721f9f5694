// The privacy tests' seed: a person with data in every module that stores any, beside two
// other people whose data must survive the person's erasure untouched.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { Secret, TOTP } from 'otpauth';
import type { Db } from '../../src/db/database.js';
import { cookieValue, registerUser, type SignedInUser } from './app.js';
import { at, futureMonday } from './booking.js';
import { client, expectStatus, type Method, ok } from './http.js';
import { mcpInitialize } from './mcp.js';
import { grant, type Tokens } from './oauth.js';
import { PRIVACY, uniqueName } from './privacy.js';
import { seedCalendarSync, seedMailAndWebhooks } from './privacy-seed-rows.js';
import { SoftwareAuthenticator, TEST_RP } from './webauthn.js';

export interface Seeded {
  person: SignedInUser & { name: string };
  colleague: SignedInUser & { name: string };
  neighbour: SignedInUser & { name: string };
  secrets: {
    apiKey: string;
    agentKey: string;
    oauth: Tokens;
    oauthClientId: string;
    refreshCookie: string;
    csrfCookie: string;
    passwordHash: string;
    sealedToken: string;
    secondFactors: Awaited<ReturnType<typeof seedSecondFactors>>;
  };
  ids: {
    organisationId: number;
    soloOrganisationId: number;
    ownBookingId: number;
    otherBookingId: number;
    personGroupId: number;
    neighbourGroupId: number;
    sharedItemOfNeighbourId: number;
  };
  /** Texts only the other users wrote: never in the person's export, still there after erasure. */
  othersTexts: string[];
}

type Person = SignedInUser & { name: string };
/** A call as one of the seeded people that must answer `status` (see `ok`). */
// biome-ignore lint/suspicious/noExplicitAny: test bodies are read loosely
type Call = (method: Method, url: string, body?: unknown, status?: number) => Promise<any>;

/** The three people and their calls: P the person, C the colleague, N the neighbour. */
export interface Seeding {
  app: FastifyInstance;
  db: Db;
  person: Person;
  colleague: Person;
  neighbour: Person;
  P: Call;
  C: Call;
  N: Call;
}

async function people(app: FastifyInstance, db: Db): Promise<Seeding> {
  const personName = uniqueName('Ada');
  const colleagueName = uniqueName('Carl');
  const neighbourName = uniqueName('Nina');
  const person = { ...(await registerUser(app, personName)), name: personName };
  const colleague = { ...(await registerUser(app, colleagueName)), name: colleagueName };
  const neighbour = { ...(await registerUser(app, neighbourName)), name: neighbourName };
  const callsOf =
    (user: Person): Call =>
    (method, url, body, status) =>
      ok(app, user, method, url, body, status);
  return {
    app,
    db,
    person,
    colleague,
    neighbour,
    P: callsOf(person),
    C: callsOf(colleague),
    N: callsOf(neighbour),
  };
}

/**
 * A person with data in every module that stores any, and two other people sharing
 * an organisation and people groups with them (whose data must survive untouched).
 */
export async function seedEverything(app: FastifyInstance, db: Db): Promise<Seeded> {
  const s = await people(app, db);
  const { person, colleague, neighbour, P } = s;

  // Auth: an API key; the refresh cookie of the registration.
  const apiKey = (await P('POST', '/api/auth/api-keys', { label: 'script' })).key as string;

  const { organisation, solo } = await seedOrganisations(s);
  const { resource, ownBooking, otherBooking } = await seedBookings(s);
  const work = await seedCalendars(s, resource.id);
  const { personGroup, neighbourGroup } = await seedGroups(s, work.id);
  await seedTasks(s);
  const neighbourItem = await seedHousehold(s, neighbourGroup.id);
  const { agentKey, oauthGrant } = await seedAgents(s);

  // Calendar sync: written directly (the module's own flows need the provider emulators).
  const now = new Date().toISOString();
  await seedMailAndWebhooks(s, organisation.id, ownBooking, now);
  const sealedToken = await seedCalendarSync(s, work.id, now);
  await seedPrivacy(s);
  await seedPlatformReports(s);
  const othersTexts = await seedOthersData(s, neighbourGroup.id);

  // Last: with two-factor on, a password alone no longer signs the person in.
  const secondFactors = await seedSecondFactors(app, person);
  const passwordHash = (
    await db.kysely
      .selectFrom('users')
      .select('passwordHash')
      .where('id', '=', person.id)
      .executeTakeFirstOrThrow()
  ).passwordHash;
  return {
    person,
    colleague,
    neighbour,
    secrets: {
      apiKey,
      agentKey,
      oauth: oauthGrant.tokens,
      oauthClientId: oauthGrant.client.client_id,
      refreshCookie: cookieValue(person.response, 'refresh_token')!,
      csrfCookie: cookieValue(person.response, 'csrf_token')!,
      passwordHash,
      sealedToken,
      secondFactors,
    },
    ids: {
      organisationId: organisation.id,
      soloOrganisationId: solo.id,
      ownBookingId: ownBooking.id,
      otherBookingId: otherBooking.id,
      personGroupId: personGroup.id,
      neighbourGroupId: neighbourGroup.id,
      sharedItemOfNeighbourId: neighbourItem.id,
    },
    othersTexts,
  };
}

/** Organisations: the person owns one with a colleague (to be succeeded) and, alone, a second one. */
async function seedOrganisations(s: Seeding) {
  const { app, person, colleague, P, C, N } = s;
  await app.services.auth.updateUserByEmail(person.email, { plan: 'ENTERPRISE' });
  const organisation = await P('POST', '/api/organisations', { name: 'Acme Rooms', email: 'desk@acme.test' });
  await P('POST', `/api/organisations/${organisation.id}/users/assign`, {
    userId: colleague.id,
    role: 'ADMIN',
  });
  await C('POST', `/api/organisations/${organisation.id}/invitation/accept`, undefined, 200);
  // Invitations: one the person sent (by email) and one to the person (by email too).
  await P('POST', `/api/organisations/${organisation.id}/users`, { email: 'guest@example.test' });
  const neighbourOrganisation = await N('POST', '/api/organisations', { name: 'Street Shop' });
  await N('POST', `/api/organisations/${neighbourOrganisation.id}/users`, { email: person.email });
  const solo = await P('POST', '/api/organisations', {
    name: 'Solo Studio',
    email: person.email,
    phone: '+44 1',
  });
  return { organisation, solo };
}

/** Resources and reservations in the shared organisation (the person's active one), and a waitlist entry. */
async function seedBookings(s: Seeding) {
  const { app, person, P, C } = s;
  const type = await P('POST', '/api/resource-types', {
    name: 'Room',
    priceAmount: 1500,
    priceCurrency: 'eur',
    pricingEnabled: true,
  });
  const resource = await P('POST', '/api/resources', {
    name: 'Room 1',
    resourceTypeId: type.id,
    managedById: person.id,
  });
  const monday = futureMonday();
  // Sent with an Idempotency-Key: the stored answer (naming the customer) is the person's too.
  const booked = await client(app, person).request(
    'POST',
    '/api/reservations',
    {
      resourceId: resource.id,
      startTime: at(monday, 9),
      endTime: at(monday, 10),
      customer: { name: person.name, email: person.email, phone: '+44 20 7946 0000' },
      notes: `Booked by ${person.name}`,
    },
    { 'idempotency-key': `seed-${person.id}` },
  );
  const ownBooking = expectStatus(booked, 201);
  const otherBooking = await P('POST', '/api/reservations', {
    resourceId: resource.id,
    startTime: at(monday, 11),
    endTime: at(monday, 12),
    customer: { name: 'Grace Hopper', email: 'grace@example.test', phone: '+1 555 0100' },
    notes: 'Window seat',
  });
  // The waitlist: the person waits for a class the colleague booked full.
  const classType = await P('POST', '/api/resource-types', { name: 'Class', waitlistEnabled: true });
  const classRoom = await P('POST', '/api/resources', { name: 'Class 1', resourceTypeId: classType.id });
  const full = { resourceId: classRoom.id, startTime: at(monday, 15), endTime: at(monday, 16) };
  await C('POST', '/api/reservations', {
    ...full,
    customer: { name: 'Grace Hopper', email: 'grace@example.test' },
  });
  await P('POST', '/api/reservations/waitlist', {
    ...full,
    customer: { name: person.name, email: person.email },
  });
  return { resource, ownBooking, otherBooking };
}

/** Calendars and events; automation on event creation tags the next event and makes a task; feeds. */
async function seedCalendars(s: Seeding, resourceId: number) {
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
async function seedGroups(s: Seeding, workId: number) {
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
async function seedTasks(s: Seeding) {
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
async function seedHousehold(s: Seeding, neighbourGroupId: number) {
  const { P, N } = s;
  await P('POST', '/api/household/items', { name: 'Rice', quantity: 2, unit: 'kg', notes: 'basmati' });
  await P('POST', '/api/household/items', { name: 'Ladder', groupId: neighbourGroupId });
  const neighbourItem = await N('POST', '/api/household/items', {
    name: 'Lawn mower',
    groupId: neighbourGroupId,
  });
  return neighbourItem;
}

/** Agents: one with a key and a recorded tool call; one created by an OAuth grant; an MCP session. */
async function seedAgents(s: Seeding) {
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

/** Privacy: consents, a policy acceptance, an earlier request. */
async function seedPrivacy(s: Seeding) {
  const { person, P } = s;
  await P('PUT', `${PRIVACY}/consents/marketing_email`, {
    decision: 'accepted',
    policyVersion: 'v1',
    source: 'web',
    metadata: { by: person.name },
  });
  await P('PUT', `${PRIVACY}/consents/marketing_email`, { decision: 'revoked', policyVersion: 'v1' });
  await P('POST', `${PRIVACY}/policy-acceptance`, { version: '2025-01' });
  await P('POST', `${PRIVACY}/requests`, {
    requestType: 'export',
    reason: `Signed ${person.name}`,
    confirmEmail: person.email,
  });
}

/** Platform: reports that name the person's email (the honeypot from another address, or it blocks sign-in). */
async function seedPlatformReports(s: Seeding) {
  const { app, person } = s;
  const anyone = client(app, null);
  await anyone.request('POST', '/api/monitoring/frontend-errors', {
    source: 'web',
    message: `Crash for ${person.email}`,
  });
  await anyone.request('POST', '/api/security/reports/csp', {
    'csp-report': { 'document-uri': `https://app.test/?u=${person.email}` },
  });
  // app.inject itself: the client has no say over the caller's address.
  await app.inject({
    method: 'GET',
    url: `/api/security/honeypot/admin-login?u=${encodeURIComponent(person.email)}`,
    headers: { 'user-agent': `probe ${person.email}` },
    remoteAddress: '203.0.113.9',
  });
}

/** The other people's own data, which the person can partly see but which is theirs. */
async function seedOthersData(s: Seeding, neighbourGroupId: number): Promise<string[]> {
  const { C, N } = s;
  const othersTexts = [
    `Colleague task ${randomBytes(3).toString('hex')}`,
    `Neighbour event ${randomBytes(3).toString('hex')}`,
  ];
  await C('POST', '/api/tasks', { title: othersTexts[0] });
  const neighbourCalendar = await N('POST', '/api/calendars', { name: 'Garden' });
  await N('POST', `/api/calendars/${neighbourCalendar.id}/events`, {
    title: othersTexts[1],
    startTime: '2025-06-02T09:00:00Z',
    endTime: '2025-06-02T10:00:00Z',
  });
  await N(
    'POST',
    `/api/user-groups/${neighbourGroupId}/calendars/attach`,
    { calendarIds: [neighbourCalendar.id] },
    200,
  );
  return othersTexts;
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
