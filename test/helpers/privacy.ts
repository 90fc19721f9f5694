import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { sql } from 'kysely';
import type { Db } from '../../src/db/database.js';
import { sha256 } from '../../src/lib/crypto.js';
import type { DataSubject } from '../../src/privacy/declaration.js';
import { PRIVACY_DECLARATIONS } from '../../src/privacy-declarations.js';
import { cookieValue, registerUser, type SignedInUser } from './app.js';
import { at, futureMonday } from './catalogue.js';
import { grant, type Tokens } from './oauth.js';
import { seedSecondFactors } from './second-factors.js';

export const PRIVACY = '/api/compliance/me/privacy';

/** One call as `user` that must answer `status`; the parsed body. */
export async function ok(
  app: FastifyInstance,
  user: SignedInUser,
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE',
  url: string,
  payload?: unknown,
  status = method === 'POST' ? 201 : 200,
  // biome-ignore lint/suspicious/noExplicitAny: test bodies are read loosely
): Promise<any> {
  const response = await app.inject({
    method,
    url,
    headers: user.auth,
    ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }),
  });
  assert.equal(response.statusCode, status, `${method} ${url}: ${response.statusCode} ${response.body}`);
  return response.body ? response.json() : undefined;
}

/** A name no other row of the database contains by accident. */
export const uniqueName = (first: string) => `${first} Quillfeather${randomBytes(3).toString('hex')}`;

/** Every table of the schema the app runs on (PostgreSQL: the test's own schema). */
export async function schemaTables(db: Db): Promise<string[]> {
  if (db.dialect === 'sqlite') {
    const { rows } = await sql<{ name: string }>`
      select name from sqlite_master where type = 'table' and name not like 'sqlite_%'`.execute(db.kysely);
    return rows.map((r) => r.name).sort();
  }
  const { rows } = await sql<{ name: string }>`
    select table_name as name from information_schema.tables
    where table_schema = current_schema() and table_type = 'BASE TABLE'`.execute(db.kysely);
  return rows.map((r) => r.name).sort();
}

/** Every text column of the schema, as [table, column]. */
export async function textColumns(db: Db): Promise<Array<[string, string]>> {
  if (db.dialect === 'postgres') {
    const { rows } = await sql<{ t: string; c: string }>`
      select table_name as t, column_name as c from information_schema.columns
      where table_schema = current_schema() and data_type in ('text', 'character varying')`.execute(
      db.kysely,
    );
    return rows.map((r) => [r.t, r.c]);
  }
  const columns: Array<[string, string]> = [];
  for (const table of await schemaTables(db)) {
    const { rows } = await sql<{
      name: string;
      type: string;
    }>`select name, type from pragma_table_info(${table})`.execute(db.kysely);
    for (const row of rows) if (row.type.toLowerCase() === 'text') columns.push([table, row.name]);
  }
  return columns;
}

/** `table.column` of every text value containing `needle` (any case). */
export async function columnsContaining(db: Db, needle: string): Promise<string[]> {
  const found: string[] = [];
  const pattern = `%${needle.toLowerCase()}%`;
  for (const [table, column] of await textColumns(db)) {
    // The raw connection: these are snake_case names straight from the catalogue.
    const { rows } = await sql<{ n: number | string }>`
      select count(*) as n from ${sql.raw(`"${table}"`)} where lower(${sql.raw(`"${column}"`)}) like ${pattern}`.execute(
      db.kysely.withoutPlugins(),
    );
    if (Number(rows[0]?.n ?? 0) > 0) found.push(`${table}.${column}`);
  }
  return found;
}

/** What every declaration says it holds about the person, by table (non-zero only). */
export async function holdingsOf(db: Db, subject: DataSubject): Promise<Record<string, number>> {
  const all: Record<string, number> = {};
  for (const declaration of PRIVACY_DECLARATIONS)
    for (const [table, count] of Object.entries(await declaration.holdings(db.kysely, subject)))
      if (count > 0) all[table] = count;
  return all;
}

/** Every table declared as holding personal data linked to an account. */
export function personalTables(): string[] {
  return PRIVACY_DECLARATIONS.flatMap((d) =>
    Object.entries(d.tables)
      .filter(([, about]) => about.kind === 'personal')
      .map(([table]) => table),
  ).sort();
}

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

const MCP_HEADERS = { accept: 'application/json, text/event-stream', 'content-type': 'application/json' };
const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: {
    protocolVersion: '2025-11-25',
    capabilities: {},
    clientInfo: { name: 'privacy-test', version: '1.0.0' },
  },
};

/** Calls /api/mcp `initialize` with these headers; the status. */
export async function mcpInitialize(app: FastifyInstance, headers: Record<string, string>): Promise<number> {
  const response = await app.inject({
    method: 'POST',
    url: '/api/mcp',
    headers: { ...MCP_HEADERS, ...headers },
    payload: INITIALIZE,
  });
  return response.statusCode;
}

/**
 * A person with data in every module that stores any, and two other people sharing
 * an organisation and people groups with them (whose data must survive untouched).
 */
export async function seedEverything(app: FastifyInstance, db: Db): Promise<Seeded> {
  const personName = uniqueName('Ada');
  const colleagueName = uniqueName('Carl');
  const neighbourName = uniqueName('Nina');
  const person = { ...(await registerUser(app, personName)), name: personName };
  const colleague = { ...(await registerUser(app, colleagueName)), name: colleagueName };
  const neighbour = { ...(await registerUser(app, neighbourName)), name: neighbourName };
  const P = (m: Parameters<typeof ok>[2], url: string, body?: unknown, status?: number) =>
    ok(app, person, m, url, body, status);
  const C = (m: Parameters<typeof ok>[2], url: string, body?: unknown, status?: number) =>
    ok(app, colleague, m, url, body, status);
  const N = (m: Parameters<typeof ok>[2], url: string, body?: unknown, status?: number) =>
    ok(app, neighbour, m, url, body, status);

  // Auth: an API key; the refresh cookie of the registration.
  const apiKey = (await P('POST', '/api/auth/api-keys', { label: 'script' })).key as string;

  // Organisations: the person owns one with a colleague (to be succeeded) and, alone, a second one.
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

  // Resources and reservations in the shared organisation (the person's active one).
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
  const booked = await app.inject({
    method: 'POST',
    url: '/api/reservations',
    headers: { ...person.auth, 'idempotency-key': `seed-${person.id}` },
    payload: {
      resourceId: resource.id,
      startTime: at(monday, 9),
      endTime: at(monday, 10),
      customer: { name: personName, email: person.email, phone: '+44 20 7946 0000' },
      notes: `Booked by ${personName}`,
    },
  });
  assert.equal(booked.statusCode, 201, `POST /api/reservations: ${booked.body}`);
  const ownBooking = booked.json();
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
    customer: { name: personName, email: person.email },
  });

  // Calendars and events; automation on event creation tags the next event and makes a task.
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
  await P('POST', `/api/resources/${resource.id}/feed`);

  // People groups: the person's own (the colleague joins), and the neighbour's (the person joins).
  const personGroup = await P('POST', '/api/user-groups', { name: 'Book club' });
  const invite = await P('POST', `/api/user-groups/${personGroup.id}/invites`, {});
  await C('POST', '/api/user-groups/invites/accept', { token: invite.token }, 200);
  await P('POST', `/api/user-groups/${personGroup.id}/calendars/attach`, { calendarIds: [work.id] }, 200);
  const neighbourGroup = await N('POST', '/api/user-groups', { name: 'Street' });
  const neighbourInvite = await N('POST', `/api/user-groups/${neighbourGroup.id}/invites`, {});
  await P('POST', '/api/user-groups/invites/accept', { token: neighbourInvite.token }, 200);
  await P('POST', `/api/user-groups/${neighbourGroup.id}/calendars/attach`, { calendarIds: [work.id] }, 200);

  // Tasks, labels, checklist, dependency; a routine and one run.
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

  // Household: private, and shared with the neighbour's group; the neighbour shares one too.
  await P('POST', '/api/household/items', { name: 'Rice', quantity: 2, unit: 'kg', notes: 'basmati' });
  await P('POST', '/api/household/items', { name: 'Ladder', groupId: neighbourGroup.id });
  const neighbourItem = await N('POST', '/api/household/items', {
    name: 'Lawn mower',
    groupId: neighbourGroup.id,
  });

  // Agents: one with a key and a recorded tool call; one created by an OAuth grant; an MCP session.
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
  assert.equal(await mcpInitialize(app, { 'x-agent-key': agentKey }), 200);

  // Calendar sync: written directly (the module's own flows need the provider emulators).
  const now = new Date().toISOString();
  // Mail: a message sent to the person, written directly (sending needs an SMTP relay).
  await db.kysely
    .insertInto('mailMessages')
    .values({
      dedupeKey: `seed-${randomBytes(4).toString('hex')}/booking_confirmed/${person.email}`,
      eventId: null,
      kind: 'booking_confirmed',
      organisationId: organisation.id,
      recipient: person.email,
      subject: 'Your booking at Acme Rooms',
      messageId: `<seed-${randomBytes(4).toString('hex')}@acme.test>`,
      status: 'sent',
      attempts: 1,
      lastError: null,
      claimedAt: now,
      sentAt: now,
      createdAt: now,
    })
    .execute();
  // Webhooks: the organisation's endpoint, and a delivery of the person's booking event written
  // directly (the dispatcher would send it to the endpoint's address).
  const endpoint = await P('POST', `/api/organisations/${organisation.id}/webhooks`, {
    url: 'https://93.184.216.34/hooks',
    events: ['reservation.created'],
  });
  await db.kysely
    .insertInto('webhookDeliveries')
    .values({
      endpointId: endpoint.id,
      organisationId: organisation.id,
      eventId: `seed-${randomBytes(4).toString('hex')}`,
      eventType: 'reservation.created',
      userId: person.id,
      payload: JSON.stringify({ type: 'reservation.created', data: ownBooking }),
      status: 'failed',
      nextAttemptAt: null,
      retryUntil: now,
      createdAt: now,
      updatedAt: now,
    })
    .execute();
  const sealedToken = `sealed-${randomBytes(8).toString('hex')}`;
  const connection = await db.kysely
    .insertInto('calendarSyncConnections')
    .values({
      userId: person.id,
      provider: 'calendar_provider_a',
      state: 'connected',
      accessTokenEnc: sealedToken,
      refreshTokenEnc: `${sealedToken}-refresh`,
      accessTokenExpiresAt: now,
      scope: 'calendar',
      externalCalendars: JSON.stringify([{ externalId: person.email, name: personName, primary: true }]),
      lastErrorCode: null,
      lastErrorMessage: null,
      lastErrorAt: null,
      connectedAt: now,
      createdAt: now,
      updatedAt: now,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  const mapping = await db.kysely
    .insertInto('calendarSyncMappings')
    .values({
      userId: person.id,
      provider: 'calendar_provider_a',
      externalCalendarId: person.email,
      localCalendarId: work.id,
      localName: 'Work',
      bidirectionalSync: true,
      importReminders: false,
      triggerAutomationRules: false,
      selectedRuleIds: null,
      state: 'active',
      syncToken: 'cursor-1',
      syncWindowEnd: null,
      lastSyncedAt: now,
      lastPolledAt: null,
      channelId: `channel-${randomBytes(4).toString('hex')}`,
      channelResourceId: null,
      channelTokenHash: sha256('channel-token'),
      channelExpiresAt: null,
      leaseOwner: null,
      leaseUntil: null,
      createdAt: now,
      updatedAt: now,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  await db.kysely
    .insertInto('calendarSyncStates')
    .values({
      stateHash: sha256(randomBytes(8).toString('hex')),
      userId: person.id,
      provider: 'calendar_provider_b',
      codeVerifierEnc: `${sealedToken}-verifier`,
      expiresAt: now,
      usedAt: null,
      createdAt: now,
    })
    .execute();
  await db.kysely
    .insertInto('calendarSyncExceptions')
    .values({
      mappingId: mapping.id,
      seriesExternalId: 's1',
      instanceExternalId: 's1_1',
      exdate: '20250609T090000Z',
      createdAt: now,
    })
    .execute();
  await db.kysely
    .insertInto('calendarSyncConflicts')
    .values({
      userId: person.id,
      mappingId: mapping.id,
      eventId: null,
      externalId: 'x1',
      localChange: 'update',
      resolution: 'provider_wins',
      createdAt: now,
    })
    .execute();
  void connection;

  // Privacy: consents, a policy acceptance, an earlier request.
  await P('PUT', `${PRIVACY}/consents/marketing_email`, {
    decision: 'accepted',
    policyVersion: 'v1',
    source: 'web',
    metadata: { by: personName },
  });
  await P('PUT', `${PRIVACY}/consents/marketing_email`, { decision: 'revoked', policyVersion: 'v1' });
  await P('POST', `${PRIVACY}/policy-acceptance`, { version: '2025-01' });
  await P('POST', `${PRIVACY}/requests`, {
    requestType: 'export',
    reason: `Signed ${personName}`,
    confirmEmail: person.email,
  });

  // Platform: reports that name the person's email (the honeypot from another address, or it blocks sign-in).
  await app.inject({
    method: 'POST',
    url: '/api/monitoring/frontend-errors',
    payload: { source: 'web', message: `Crash for ${person.email}` },
  });
  await app.inject({
    method: 'POST',
    url: '/api/security/reports/csp',
    payload: { 'csp-report': { 'document-uri': `https://app.test/?u=${person.email}` } },
  });
  await app.inject({
    method: 'GET',
    url: `/api/security/honeypot/admin-login?u=${encodeURIComponent(person.email)}`,
    headers: { 'user-agent': `probe ${person.email}` },
    remoteAddress: '203.0.113.9',
  });

  // The other people's own data, which the person can partly see but which is theirs.
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
    `/api/user-groups/${neighbourGroup.id}/calendars/attach`,
    { calendarIds: [neighbourCalendar.id] },
    200,
  );

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

/** Parses the export body; asserts it is one JSON document. */
// biome-ignore lint/suspicious/noExplicitAny: the export is read loosely
export function parseExport(response: LightMyRequestResponse): any {
  assert.equal(response.statusCode, 200, response.body.slice(0, 500));
  return JSON.parse(response.body);
}
