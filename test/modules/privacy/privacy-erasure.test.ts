import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sha256 } from '../../../src/lib/crypto.js';
import { ANONYMISED_CUSTOMER_NAME } from '../../../src/modules/reservations/privacy.js';
import { PRIVACY_DECLARATIONS } from '../../../src/privacy-declarations.js';
import { createTestApp, registerUser, type TestApp } from '../../helpers/app.js';
import { ok } from '../../helpers/http.js';
import { mcpInitialize } from '../../helpers/mcp.js';
import { tokenRequest } from '../../helpers/oauth.js';
import {
  columnsContaining,
  holdingsOf,
  PRIVACY,
  parseExport,
  personalTables,
} from '../../helpers/privacy.js';
import { type Seeded, seedEverything } from '../../helpers/privacy-seed.js';

describe('privacy: export and erasure of a person with data in every module', () => {
  let t: TestApp;
  let s: Seeded;
  before(async () => {
    t = await createTestApp();
    s = await seedEverything(t.app, t.db);
  });
  after(() => t.close());

  const subject = () => ({ userId: s.person.id, email: s.person.email, name: s.person.name });

  test('the seed reaches every table that can hold personal data', async () => {
    const holdings = await holdingsOf(t.db, subject());
    const missing = personalTables().filter((table) => !holdings[table]);
    assert.deepEqual(missing, [], 'tables without any of the person’s rows');
  });

  test('the access report counts each category, names the consents and who acts for the person', async () => {
    const report = await ok(t.app, s.person, 'GET', `${PRIVACY}/access`);
    assert.equal(report.userId, s.person.id);
    const byId = Object.fromEntries(report.categories.map((c: { id: string }) => [c.id, c]));
    const declared = PRIVACY_DECLARATIONS.flatMap((d) => d.categories.map((c) => c.id));
    assert.deepEqual(Object.keys(byId).sort(), [...declared].sort());
    const holdings = await holdingsOf(t.db, subject());
    for (const category of report.categories) {
      assert.ok(category.purpose && category.retention, `${category.id} explains itself`);
      for (const table of category.tables) assert.equal(table.count, holdings[table.table] ?? 0, table.table);
    }
    assert.equal(byId.account.count, 1);
    assert.equal(byId.network.linkedToAccount, false);
    assert.equal(byId.network.count, 3, 'one error report, one CSP report, one honeypot hit name the email');
    assert.deepEqual(
      report.consents.map((c: { consentType: string; decision: string }) => `${c.consentType}:${c.decision}`),
      ['marketing_email:revoked', 'privacy_policy:accepted'],
    );
    assert.equal(report.policyAcceptance.version, '2025-01');
    const agents = report.actingForYou.agents.map(
      (a: { name: string; liveKeys: number }) => `${a.name}:${a.liveKeys}`,
    );
    assert.equal(agents.length, 2);
    assert.ok(agents.includes('Planner:1'));
    assert.equal(report.actingForYou.oauthClients.length, 1);
    assert.equal(report.actingForYou.oauthClients[0].clientId, s.secrets.oauthClientId);
    assert.equal(report.actingForYou.oauthClients[0].clientName, 'Test MCP Host');
    assert.doesNotMatch(JSON.stringify(report), new RegExp(s.colleague.email));
  });

  test('the export is a JSON attachment holding every personal row, and no secret or other person’s data', async () => {
    const response = await t.app.inject({ method: 'GET', url: `${PRIVACY}/export`, headers: s.person.auth });
    assert.match(String(response.headers['content-type']), /^application\/json/);
    assert.match(
      String(response.headers['content-disposition']),
      new RegExp(`^attachment; filename="privacy-export-${s.person.id}-\\d{4}-\\d{2}-\\d{2}\\.json"$`),
    );
    assert.equal(response.headers['cache-control'], 'no-store');
    const doc = parseExport(response);
    assert.equal(doc.userId, s.person.id);

    // Completeness, table by table through the declarations: as many records as rows held.
    const holdings = await holdingsOf(t.db, subject());
    const exported: Record<string, number> = {};
    for (const [name, about] of Object.entries(doc.sections) as Array<[string, { table: string }]>) {
      assert.ok(Array.isArray(doc.data[name]), `section ${name}`);
      exported[about.table] = (exported[about.table] ?? 0) + doc.data[name].length;
    }
    for (const table of personalTables())
      assert.equal(exported[table], holdings[table], `export of ${table}`);

    // Spot checks of the content.
    assert.equal(doc.data.profile[0].email, s.person.email);
    assert.equal(doc.data.profile[0].name, s.person.name);
    assert.equal(doc.data.organisationMemberships.length, 2);
    assert.equal(doc.data.organisationRolesYouAssigned.length, 1);
    assert.deepEqual(
      doc.data.events.find((e: { title: string }) => e.title === 'Planning meeting').recurrence,
      ['RRULE:FREQ=WEEKLY;COUNT=5'],
    );
    assert.equal(doc.data.reservations.length, 2);
    assert.equal(doc.data.taskDependencies.length, 1);
    assert.equal(doc.data.consentHistory.length, 3);
    assert.ok(doc.data.consentHistory.every((c: { ipAddress: string }) => typeof c.ipAddress === 'string'));
    assert.deepEqual(doc.data.consentHistory.find((c: { metadata: unknown }) => c.metadata).metadata, {
      by: s.person.name,
    });
    assert.equal(doc.data.oauthGrants.length, 1);
    assert.equal(doc.data.mcpSessions.length, 1);
    assert.equal(doc.data.mcpSessions[0].id, undefined, 'no session id');

    // Never a secret, never another person's data.
    const text = response.body;
    const secrets = {
      password: s.person.password,
      passwordHash: s.secrets.passwordHash,
      apiKey: s.secrets.apiKey,
      apiKeyHash: sha256(s.secrets.apiKey),
      agentKey: s.secrets.agentKey,
      agentKeyHash: sha256(s.secrets.agentKey),
      accessToken: s.secrets.oauth.access_token,
      refreshToken: s.secrets.oauth.refresh_token,
      refreshTokenHash: sha256(s.secrets.oauth.refresh_token),
      loginRefreshCookie: s.secrets.refreshCookie,
      loginRefreshHash: sha256(s.secrets.refreshCookie),
      sealedProviderToken: s.secrets.sealedToken,
      channelTokenHash: sha256('channel-token'),
      totpSecret: s.secrets.secondFactors.totpSecret,
      recoveryCode: s.secrets.secondFactors.recoveryCode,
      recoveryCodeHash: sha256(s.secrets.secondFactors.recoveryCode.replace('-', '')),
      twoFactorChallenge: s.secrets.secondFactors.loginChallenge,
      twoFactorChallengeHash: sha256(s.secrets.secondFactors.loginChallenge),
      passkeyChallenge: s.secrets.secondFactors.passkeyChallenge,
    };
    for (const [what, value] of Object.entries(secrets))
      assert.ok(!text.includes(value), `export holds ${what}`);
    for (const key of ['passwordHash', 'keyHash', 'tokenHash', 'codeHash', 'accessTokenEnc', 'codeChallenge'])
      assert.ok(!text.includes(`"${key}"`), `export has a ${key} field`);
    for (const other of [
      s.colleague.email,
      s.neighbour.email,
      s.colleague.name,
      s.neighbour.name,
      ...s.othersTexts,
    ])
      assert.ok(!text.includes(other), `export holds ${other}`);
  });

  test('another person’s export holds none of the person’s data', async () => {
    const doc = parseExport(
      await t.app.inject({ method: 'GET', url: `${PRIVACY}/export`, headers: s.colleague.auth }),
    );
    const text = JSON.stringify(doc);
    assert.ok(!text.includes(s.person.email));
    assert.ok(!text.includes(s.person.name));
    assert.ok(!text.includes('Planning meeting'));
  });

  describe('after a delete request is processed', () => {
    let requestId: number;
    before(async () => {
      const request = await ok(t.app, s.person, 'POST', `${PRIVACY}/requests`, {
        requestType: 'delete',
        reason: `Please forget ${s.person.name}`,
        confirmEmail: s.person.email.toUpperCase(),
      });
      requestId = request.id;
      const started = await t.app.services.privacy.operator.process(requestId);
      assert.equal(started.status, 'in_progress');
      await t.app.jobs.idle();
    });

    test('the request is completed, kept without personal data, and audited with row counts', async () => {
      const { request, account, audit } = await t.app.services.privacy.operator.show(requestId);
      assert.equal(request.status, 'completed');
      assert.ok(request.completedAt);
      assert.equal(request.userId, null);
      assert.equal(request.reason, null);
      assert.equal(request.confirmEmail, null);
      assert.equal(account, null);
      assert.deepEqual(
        audit.map((a) => a.action),
        ['created', 'started', 'erased'],
      );
      const erased = audit[2]!.details as { verified: boolean; rowsChanged: Record<string, number> };
      assert.equal(erased.verified, true);
      assert.equal(erased.rowsChanged.users, 1);
      assert.ok(erased.rowsChanged.events! >= 2);
    });

    test('every declaration holds nothing of the person any more', async () => {
      assert.deepEqual(await holdingsOf(t.db, subject()), {});
    });

    test('no text column anywhere names the person’s email or name', async () => {
      assert.deepEqual(await columnsContaining(t.db, s.person.email), []);
      assert.deepEqual(await columnsContaining(t.db, s.person.name), []);
    });

    test('every credential of the person is refused', async () => {
      const me = (headers: Record<string, string>) =>
        t.app.inject({ method: 'GET', url: '/api/auth/me', headers });
      assert.equal((await me(s.person.auth)).statusCode, 401, 'login JWT');
      assert.equal((await me({ 'x-api-key': s.secrets.apiKey })).statusCode, 401, 'API key');
      const refresh = await t.app.inject({
        method: 'POST',
        url: '/api/auth/refresh',
        cookies: { refresh_token: s.secrets.refreshCookie, csrf_token: s.secrets.csrfCookie },
        headers: { 'x-csrf-token': s.secrets.csrfCookie },
      });
      assert.equal(refresh.statusCode, 401, 'refresh cookie');
      assert.equal(
        (await mcpInitialize(t.app, { 'x-agent-key': s.secrets.agentKey })).statusCode,
        401,
        'agent key',
      );
      assert.equal(
        (await mcpInitialize(t.app, { authorization: `Bearer ${s.secrets.oauth.access_token}` })).statusCode,
        401,
        'OAuth access token',
      );
      const rotated = await tokenRequest(t.app, {
        grant_type: 'refresh_token',
        client_id: s.secrets.oauthClientId,
        refresh_token: s.secrets.oauth.refresh_token,
      });
      assert.equal(rotated.statusCode, 400);
      assert.equal(rotated.json().error, 'invalid_grant');
    });

    test('signing in with the erased email fails exactly as an unknown email does', async () => {
      const login = (email: string) =>
        t.app.inject({
          method: 'POST',
          url: '/api/auth/login',
          payload: { email, password: s.person.password },
        });
      const erased = await login(s.person.email);
      const unknown = await login('nobody-ever@example.test');
      assert.equal(erased.statusCode, 401);
      assert.equal(erased.statusCode, unknown.statusCode);
      assert.equal(erased.json().error.code, unknown.json().error.code);
      assert.equal(erased.json().error.message, unknown.json().error.message);
      // The email is free again: a new, unrelated account.
      const again = await t.app.inject({
        method: 'POST',
        url: '/api/auth/register',
        payload: { email: s.person.email, password: 'another long password', name: 'Someone New' },
      });
      assert.equal(again.statusCode, 201);
      const report = await ok(
        t.app,
        { ...s.person, auth: { authorization: `Bearer ${again.json().accessToken}` } },
        'GET',
        `${PRIVACY}/requests`,
      );
      assert.equal(report.total, 0, 'no request of the erased account is linked to the new one');
    });

    test('reservations stay for accounting: times and price kept, the person’s details gone', async () => {
      const rows = await t.db.kysely
        .selectFrom('reservations')
        .selectAll()
        .where('id', 'in', [s.ids.ownBookingId, s.ids.otherBookingId])
        .orderBy('id')
        .execute();
      const [own, other] = rows;
      assert.equal(own!.customerName, ANONYMISED_CUSTOMER_NAME);
      assert.equal(own!.customerEmail, '');
      assert.equal(own!.customerPhone, null);
      assert.equal(own!.notes, null);
      assert.equal(own!.createdByUserId, null);
      assert.equal(own!.priceAmount, 1500);
      assert.ok(own!.startTime && own!.endTime);
      // A booking the person made for someone else keeps that customer's details.
      assert.equal(other!.customerName, 'Grace Hopper');
      assert.equal(other!.customerEmail, 'grace@example.test');
      assert.equal(other!.createdByUserId, null);
      const list = await ok(t.app, s.colleague, 'GET', '/api/reservations');
      const listed = list.items.filter((r: { id: number }) =>
        [s.ids.ownBookingId, s.ids.otherBookingId].includes(r.id),
      );
      assert.equal(listed.length, 2, 'the organisation still lists them');
    });

    test('organisations are never stranded; the others keep their data', async () => {
      const org = await ok(t.app, s.colleague, 'GET', `/api/organisations/${s.ids.organisationId}`);
      assert.equal(org.role, 'OWNER', 'the colleague succeeded the last owner');
      assert.equal(org.isActive, true);
      const solo = await t.db.kysely
        .selectFrom('organisations')
        .selectAll()
        .where('id', '=', s.ids.soloOrganisationId)
        .executeTakeFirstOrThrow();
      assert.equal(Boolean(solo.isActive), false, 'the one-person organisation is archived');
      assert.equal(solo.email, null);
      assert.equal(solo.phone, null);
      // The neighbour's group, item and the colleague's task survive; the person's group is gone.
      const group = await ok(t.app, s.neighbour, 'GET', `/api/user-groups/${s.ids.neighbourGroupId}`);
      assert.deepEqual(
        group.members.map((m: { userId: number }) => m.userId),
        [s.neighbour.id],
      );
      await ok(t.app, s.neighbour, 'GET', `/api/household/items/${s.ids.sharedItemOfNeighbourId}`);
      await ok(t.app, s.colleague, 'GET', `/api/user-groups/${s.ids.personGroupId}`, undefined, 404);
      const tasks = await ok(t.app, s.colleague, 'GET', '/api/tasks');
      assert.ok(tasks.items.some((task: { title: string }) => task.title === s.othersTexts[0]));
      const colleagueHoldings = await holdingsOf(t.db, {
        userId: s.colleague.id,
        email: s.colleague.email,
        name: s.colleague.name,
      });
      assert.ok(colleagueHoldings.users === 1 && colleagueHoldings.organisation_memberships === 1);
    });

    test('processing the request again does nothing', async () => {
      await t.app.services.privacy.operator.run({ requestId });
      const { audit } = await t.app.services.privacy.operator.show(requestId);
      assert.equal(audit.length, 3);
    });
  });
});

describe('privacy: erasure of a fresh account and a user who never did anything', () => {
  test('an account with nothing but a sign-up is erased, and an export request is served', async () => {
    const t = await createTestApp();
    try {
      const user = await registerUser(t.app, 'Quiet Person');
      const exportRequest = await ok(t.app, user, 'POST', `${PRIVACY}/requests`, { requestType: 'export' });
      await t.app.services.privacy.operator.process(exportRequest.id);
      await t.app.jobs.idle();
      const served = await t.app.services.privacy.operator.show(exportRequest.id);
      assert.equal(served.request.status, 'completed');
      assert.equal(served.audit.at(-1)!.action, 'export_served');
      const mine = await ok(t.app, user, 'GET', `${PRIVACY}/requests?statuses=completed`);
      assert.equal(mine.items[0].status, 'completed');

      const deleteRequest = await ok(t.app, user, 'POST', `${PRIVACY}/requests`, { requestType: 'delete' });
      await t.app.services.privacy.operator.process(deleteRequest.id);
      await t.app.jobs.idle();
      assert.equal(
        (await t.app.services.privacy.operator.show(deleteRequest.id)).request.status,
        'completed',
      );
      assert.equal(
        (await t.app.inject({ method: 'GET', url: '/api/auth/me', headers: user.auth })).statusCode,
        401,
      );
      // Both of the person's requests remain as unlinked proof.
      const exported = await t.app.services.privacy.operator.show(exportRequest.id);
      assert.equal(exported.request.userId, null);
    } finally {
      await t.close();
    }
  });
});

// The PostgreSQL pass also works a request through the real job queue stored in the database.
if (process.env.TEST_DATABASE_URL)
  describe('privacy: requests worked by pg-boss', () => {
    test('a delete request goes pending -> in_progress -> completed through the queue', async () => {
      const t = await createTestApp({ JOB_QUEUE: 'auto' });
      try {
        assert.equal(t.app.jobs.kind, 'pg-boss');
        const user = await registerUser(t.app, 'Queued Person');
        const request = await ok(t.app, user, 'POST', `${PRIVACY}/requests`, { requestType: 'delete' });
        assert.equal((await t.app.services.privacy.operator.process(request.id)).status, 'in_progress');
        const until = Date.now() + 20_000;
        let status = 'in_progress';
        while (status === 'in_progress' && Date.now() < until) {
          await new Promise((resolve) => setTimeout(resolve, 200));
          status = (await t.app.services.privacy.operator.show(request.id)).request.status;
        }
        assert.equal(status, 'completed');
        assert.equal(
          (await t.app.inject({ method: 'GET', url: '/api/auth/me', headers: user.auth })).statusCode,
          401,
        );
      } finally {
        await t.close();
      }
    });
  });
