import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { agentActor } from '../../../src/lib/actor.js';
import { exportDocument } from '../../../src/modules/privacy/export.js';
import { CONSENT_TYPES } from '../../../src/modules/privacy/schemas.js';
import { PRIVACY_DECLARATIONS } from '../../../src/privacy-declarations.js';
import { createTestApp, registerUser, type SignedInUser, type TestApp } from '../../helpers/app.js';
import { ok } from '../../helpers/http.js';
import { PRIVACY } from '../../helpers/privacy.js';

function validation(response: LightMyRequestResponse, path?: string) {
  assert.equal(response.statusCode, 400, response.body);
  const body = response.json();
  assert.equal(body.success, false);
  assert.equal(body.error.code, 'VALIDATION_FAILED');
  assert.equal(typeof body.error.requestId, 'string');
  if (path)
    assert.ok(
      body.error.details?.some((d: { path: string }) => d.path === path || d.path.startsWith(`${path}.`)),
      `no detail at ${path}: ${response.body}`,
    );
}

describe('privacy routes', () => {
  let t: TestApp;
  let alice: SignedInUser;
  let bob: SignedInUser;
  before(async () => {
    t = await createTestApp();
    alice = await registerUser(t.app, 'Alice Privacy');
    bob = await registerUser(t.app, 'Bob Privacy');
  });
  after(() => t.close());

  const call = (user: SignedInUser | null, method: 'GET' | 'POST' | 'PUT', url: string, payload?: unknown) =>
    t.app.inject({
      method,
      url: `${PRIVACY}${url}`,
      headers: user ? user.auth : {},
      ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }),
    });

  test('every route needs a person’s credential', async () => {
    for (const [method, url] of [
      ['GET', '/access'],
      ['GET', '/export'],
      ['GET', '/requests'],
      ['POST', '/requests'],
      ['GET', '/requests/1'],
      ['POST', '/requests/1/cancel'],
      ['GET', '/consents'],
      ['GET', '/consents/history'],
      ['PUT', '/consents/marketing_email'],
      ['POST', '/policy-acceptance'],
    ] as const) {
      const response = await call(null, method, url, method === 'GET' ? undefined : {});
      assert.equal(response.statusCode, 401, `${method} ${url}`);
      assert.equal(response.json().error.code, 'UNAUTHENTICATED');
    }
    // An API key works like the login JWT.
    const key = await ok(t.app, alice, 'POST', '/api/auth/api-keys', { label: 'privacy' });
    const viaKey = await t.app.inject({
      method: 'GET',
      url: `${PRIVACY}/access`,
      headers: { 'x-api-key': key.key },
    });
    assert.equal(viaKey.statusCode, 200);
  });

  describe('creating requests', () => {
    test('requestType is one of access, export, delete', async () => {
      for (const requestType of ['access', 'export', 'delete']) {
        const created = await ok(t.app, alice, 'POST', `${PRIVACY}/requests`, { requestType });
        assert.equal(created.requestType, requestType);
        assert.equal(created.status, 'pending');
        assert.equal(created.reason, null);
        assert.equal(created.confirmEmail, null);
        assert.equal(created.completedAt, null);
        assert.ok(created.createdAt && created.updatedAt);
      }
      validation(await call(alice, 'POST', '/requests', {}), 'body.requestType');
      validation(await call(alice, 'POST', '/requests', { requestType: 'erase' }), 'body.requestType');
      validation(await call(alice, 'POST', '/requests', { requestType: 'ACCESS' }), 'body.requestType');
      validation(await call(alice, 'POST', '/requests', { requestType: 'access', extra: 1 }), 'body');
      validation(await call(alice, 'POST', '/requests', { requestType: 'access', reason: 5 }), 'body.reason');
    });

    test('reason is at most 1000 characters; blank means none', async () => {
      const longest = await ok(t.app, alice, 'POST', `${PRIVACY}/requests`, {
        requestType: 'access',
        reason: 'r'.repeat(1000),
      });
      assert.equal(longest.reason.length, 1000);
      validation(
        await call(alice, 'POST', '/requests', { requestType: 'access', reason: 'r'.repeat(1001) }),
        'body.reason',
      );
      const blank = await ok(t.app, alice, 'POST', `${PRIVACY}/requests`, {
        requestType: 'access',
        reason: '   ',
      });
      assert.equal(blank.reason, null);
    });

    test('confirmEmail is lowercased, at most 254 characters, and must be the account’s', async () => {
      const created = await ok(t.app, alice, 'POST', `${PRIVACY}/requests`, {
        requestType: 'export',
        confirmEmail: `  ${alice.email.toUpperCase()} `,
      });
      assert.equal(created.confirmEmail, alice.email);
      validation(
        await call(alice, 'POST', '/requests', { requestType: 'export', confirmEmail: bob.email }),
        'body.confirmEmail',
      );
      validation(
        await call(alice, 'POST', '/requests', {
          requestType: 'export',
          confirmEmail: `${'a'.repeat(243)}@example.test`,
        }),
        'body.confirmEmail',
      );
      validation(
        await call(alice, 'POST', '/requests', { requestType: 'export', confirmEmail: 42 }),
        'body.confirmEmail',
      );
    });
  });

  describe('listing requests', () => {
    let carol: SignedInUser;
    const ids: number[] = [];
    before(async () => {
      carol = await registerUser(t.app, 'Carol Privacy');
      const kinds = ['access', 'export', 'delete', 'access', 'export', 'access', 'delete'] as const;
      for (const [i, requestType] of kinds.entries()) {
        const created = await ok(t.app, carol, 'POST', `${PRIVACY}/requests`, {
          requestType,
          reason: i === 2 ? 'Please ERASE me 100%_now' : `reason ${i}`,
        });
        ids.push(created.id);
      }
      // One cancelled, one in progress, one rejected (by the operator).
      await ok(t.app, carol, 'POST', `${PRIVACY}/requests/${ids[0]}/cancel`, {}, 200);
      await t.app.services.privacy.operator.reject(ids[1]!, 'Duplicate of another request');
      await t.db.kysely
        .updateTable('dataSubjectRequests')
        .set({ status: 'in_progress' })
        .where('id', '=', ids[2]!)
        .execute();
      // Someone else's request never shows up.
      await ok(t.app, bob, 'POST', `${PRIVACY}/requests`, { requestType: 'delete', reason: 'reason 1' });
    });

    const list = async (query = '') => ok(t.app, carol, 'GET', `${PRIVACY}/requests${query}`);
    const idsOf = (page: { items: Array<{ id: number }> }) => page.items.map((item) => item.id);

    test('only the caller’s own, newest first, with total, offset and limit', async () => {
      const all = await list();
      assert.deepEqual(idsOf(all), [...ids].reverse());
      assert.equal(all.total, 7);
      assert.equal(all.offset, 0);
      assert.equal(all.limit, 50);
      const bobs = await ok(t.app, bob, 'GET', `${PRIVACY}/requests`);
      assert.ok(idsOf(bobs).every((id) => !ids.includes(id)));
    });

    test('statuses and requestTypes as comma lists, repeated, or both', async () => {
      const byStatus = (page: { items: Array<{ status: string }> }) => page.items.map((i) => i.status).sort();
      assert.deepEqual(byStatus(await list('?statuses=cancelled,rejected')), ['cancelled', 'rejected']);
      assert.deepEqual(byStatus(await list('?statuses=cancelled&statuses=in_progress')), [
        'cancelled',
        'in_progress',
      ]);
      assert.deepEqual(byStatus(await list('?statuses=cancelled,%20rejected&statuses=in_progress')), [
        'cancelled',
        'in_progress',
        'rejected',
      ]);
      assert.equal((await list('?statuses=pending,pending')).total, 4);
      assert.equal((await list('?requestTypes=delete')).total, 2);
      assert.equal((await list('?requestTypes=access,export')).total, 5);
      assert.equal((await list('?requestTypes=access&requestTypes=delete')).total, 5);
      assert.equal((await list('?requestTypes=access&statuses=pending')).total, 2);
      assert.equal((await list('?statuses=')).total, 7, 'an empty list filters nothing');
      validation(await call(carol, 'GET', '/requests?statuses=pending,done'), 'querystring.statuses');
      validation(await call(carol, 'GET', '/requests?statuses=PENDING'), 'querystring.statuses');
      validation(
        await call(carol, 'GET', '/requests?requestTypes=access&requestTypes=erase'),
        'querystring.requestTypes',
      );
    });

    test('search looks in the reason, any case, wildcards taken literally; at most 120 characters', async () => {
      assert.deepEqual(idsOf(await list('?search=erase%20ME')), [ids[2]]);
      assert.deepEqual(idsOf(await list('?search=100%25_')), [ids[2]]);
      assert.equal((await list('?search=_')).total, 1, '_ is not a wildcard');
      assert.equal((await list('?search=reason')).total, 6);
      assert.equal((await list('?search=no%20such%20text')).total, 0);
      assert.equal((await list(`?search=${'x'.repeat(120)}`)).total, 0);
      validation(await call(carol, 'GET', `/requests?search=${'x'.repeat(121)}`), 'querystring.search');
    });

    test('offset and limit page through; limit is 1..500, offset >= 0', async () => {
      const pages = [
        await list('?limit=3'),
        await list('?limit=3&offset=3'),
        await list('?limit=3&offset=6'),
      ];
      assert.deepEqual(pages.flatMap(idsOf), [...ids].reverse());
      assert.deepEqual(
        pages.map((p) => [p.total, p.offset, p.limit, p.items.length]),
        [
          [7, 0, 3, 3],
          [7, 3, 3, 3],
          [7, 6, 3, 1],
        ],
      );
      const beyond = await list('?offset=100');
      assert.deepEqual([beyond.items.length, beyond.total], [0, 7]);
      assert.equal((await list('?limit=500')).limit, 500);
      assert.equal((await list('?limit=1')).items.length, 1);
      for (const query of [
        'limit=0',
        'limit=501',
        'limit=-1',
        'limit=abc',
        'limit=1.5',
        'offset=-1',
        'offset=x',
        'offset=99999999999',
      ])
        validation(await call(carol, 'GET', `/requests?${query}`), `querystring.${query.split('=')[0]}`);
      validation(await call(carol, 'GET', '/requests?page=2'), 'querystring');
    });

    test('one request: the caller’s own only', async () => {
      assert.equal((await ok(t.app, carol, 'GET', `${PRIVACY}/requests/${ids[3]}`)).id, ids[3]);
      const other = await call(bob, 'GET', `/requests/${ids[3]}`);
      assert.equal(other.statusCode, 404);
      assert.equal(other.json().error.code, 'NOT_FOUND');
      validation(await call(carol, 'GET', '/requests/abc'), 'params.id');
      validation(await call(carol, 'GET', '/requests/0'), 'params.id');
    });

    test('cancelling: own pending only (409 otherwise, 404 for someone else’s)', async () => {
      const cancelled = await ok(t.app, carol, 'POST', `${PRIVACY}/requests/${ids[3]}/cancel`, {}, 200);
      assert.equal(cancelled.status, 'cancelled');
      assert.ok(cancelled.completedAt);
      for (const id of [ids[3], ids[1], ids[2]]) {
        const again = await call(carol, 'POST', `/requests/${id}/cancel`, {});
        assert.equal(again.statusCode, 409, `request ${id}`);
        assert.equal(again.json().error.code, 'CONFLICT');
      }
      assert.equal((await call(bob, 'POST', `/requests/${ids[4]}/cancel`, {})).statusCode, 404);
      const rejected = await ok(t.app, carol, 'GET', `${PRIVACY}/requests/${ids[1]}`);
      assert.equal(rejected.status, 'rejected');
      assert.equal(rejected.resolution, 'Duplicate of another request', 'the person sees why');
    });
  });

  describe('consents and policy acceptance', () => {
    test('each of the five types is decided; the newest decision is the current one', async () => {
      for (const consentType of CONSENT_TYPES) {
        const decided = await ok(t.app, alice, 'PUT', `${PRIVACY}/consents/${consentType}`, {
          decision: 'accepted',
          policyVersion: 'v1',
          source: 'signup',
        });
        assert.deepEqual(
          { ...decided, decidedAt: typeof decided.decidedAt },
          { consentType, decision: 'accepted', policyVersion: 'v1', source: 'signup', decidedAt: 'string' },
        );
      }
      await ok(t.app, alice, 'PUT', `${PRIVACY}/consents/marketing_email`, {
        decision: 'revoked',
        policyVersion: 'v2',
      });
      const current = await ok(t.app, alice, 'GET', `${PRIVACY}/consents`);
      assert.equal(current.length, 5);
      const marketing = current.find((c: { consentType: string }) => c.consentType === 'marketing_email');
      assert.deepEqual(
        [marketing.decision, marketing.policyVersion, marketing.source],
        ['revoked', 'v2', null],
      );
      assert.deepEqual(
        await ok(t.app, bob, 'GET', `${PRIVACY}/consents`),
        [],
        'another person’s are not shown',
      );
    });

    test('the history pages newest first, filters by type, and keeps IP and user agent for the export', async () => {
      const first = await ok(t.app, alice, 'GET', `${PRIVACY}/consents/history?limit=4`);
      assert.equal(first.items.length, 4);
      assert.equal(first.items[0].consentType, 'marketing_email');
      assert.equal(first.items[0].decision, 'revoked');
      const rest = await ok(
        t.app,
        alice,
        'GET',
        `${PRIVACY}/consents/history?limit=4&cursor=${first.nextCursor}`,
      );
      assert.equal(rest.items.length, 2);
      assert.equal(rest.nextCursor, null);
      const marketing = await ok(
        t.app,
        alice,
        'GET',
        `${PRIVACY}/consents/history?consentType=marketing_email`,
      );
      assert.deepEqual(
        marketing.items.map((c: { decision: string }) => c.decision),
        ['revoked', 'accepted'],
      );
      assert.equal(first.items[0].ipAddress, undefined, 'IP address only in the export');
      validation(await call(alice, 'GET', '/consents/history?cursor=bogus'), 'query.cursor');
      validation(await call(alice, 'GET', '/consents/history?limit=201'), 'querystring.limit');
      validation(
        await call(alice, 'GET', '/consents/history?consentType=cookies'),
        'querystring.consentType',
      );
      const withAgent = await t.app.inject({
        method: 'PUT',
        url: `${PRIVACY}/consents/cookie_analytics`,
        headers: { ...alice.auth, 'user-agent': 'TestBrowser/1.0' },
        payload: { decision: 'revoked', policyVersion: 'v3' },
      });
      assert.equal(withAgent.statusCode, 200);
      const row = await t.db.kysely
        .selectFrom('consentDecisions')
        .select(['ipAddress', 'userAgent'])
        .where('userId', '=', alice.id)
        .orderBy('id', 'desc')
        .executeTakeFirstOrThrow();
      assert.deepEqual(row, { ipAddress: '127.0.0.1', userAgent: 'TestBrowser/1.0' });
    });

    test('every field is checked', async () => {
      const put = (type: string, body: unknown) => call(alice, 'PUT', `/consents/${type}`, body);
      validation(await put('cookies', { decision: 'accepted', policyVersion: 'v1' }), 'params.consentType');
      validation(await put('marketing_email', { decision: 'maybe', policyVersion: 'v1' }), 'body.decision');
      validation(await put('marketing_email', { policyVersion: 'v1' }), 'body.decision');
      validation(await put('marketing_email', { decision: 'accepted' }), 'body.policyVersion');
      validation(
        await put('marketing_email', { decision: 'accepted', policyVersion: '' }),
        'body.policyVersion',
      );
      validation(
        await put('marketing_email', { decision: 'accepted', policyVersion: 'v'.repeat(65) }),
        'body.policyVersion',
      );
      assert.equal(
        (await put('marketing_email', { decision: 'accepted', policyVersion: 'v'.repeat(64) })).statusCode,
        200,
      );
      validation(
        await put('marketing_email', { decision: 'accepted', policyVersion: 'v1', source: 's'.repeat(65) }),
        'body.source',
      );
      assert.equal(
        (await put('marketing_email', { decision: 'accepted', policyVersion: 'v1', source: 's'.repeat(64) }))
          .statusCode,
        200,
      );
      validation(
        await put('marketing_email', { decision: 'accepted', policyVersion: 'v1', metadata: 'x' }),
        'body.metadata',
      );
      validation(
        await put('marketing_email', { decision: 'accepted', policyVersion: 'v1', metadata: [1] }),
        'body.metadata',
      );
      validation(
        await put('marketing_email', {
          decision: 'accepted',
          policyVersion: 'v1',
          metadata: { big: 'x'.repeat(5000) },
        }),
        'body.metadata',
      );
      validation(
        await put('marketing_email', { decision: 'accepted', policyVersion: 'v1', ip: '1.2.3.4' }),
        'body',
      );
    });

    test('policy acceptance answers {version, acceptedAt} and becomes the privacy_policy consent', async () => {
      const accepted = await ok(t.app, bob, 'POST', `${PRIVACY}/policy-acceptance`, { version: '2025-06' });
      assert.deepEqual(Object.keys(accepted).sort(), ['acceptedAt', 'version']);
      assert.equal(accepted.version, '2025-06');
      const consents = await ok(t.app, bob, 'GET', `${PRIVACY}/consents`);
      assert.deepEqual(
        consents.map((c: { consentType: string; decision: string; policyVersion: string }) => [
          c.consentType,
          c.decision,
          c.policyVersion,
        ]),
        [['privacy_policy', 'accepted', '2025-06']],
      );
      const report = await ok(t.app, bob, 'GET', `${PRIVACY}/access`);
      assert.equal(report.policyAcceptance.version, '2025-06');
      validation(await call(bob, 'POST', '/policy-acceptance', {}), 'body.version');
      validation(await call(bob, 'POST', '/policy-acceptance', { version: 'v'.repeat(65) }), 'body.version');
      validation(await call(bob, 'POST', '/policy-acceptance', { version: 7 }), 'body.version');
      assert.equal(
        (await call(bob, 'POST', '/policy-acceptance', { version: 'v'.repeat(64) })).statusCode,
        201,
      );
    });
  });

  describe('access report and export', () => {
    test('count only the caller’s data', async () => {
      const before = await ok(t.app, bob, 'GET', `${PRIVACY}/access`);
      const tasksOf = (report: { categories: Array<{ id: string; count: number }> }) =>
        report.categories.find((c) => c.id === 'tasks')!.count;
      for (let i = 0; i < 3; i += 1)
        await ok(t.app, alice, 'POST', '/api/tasks', { title: `Alice task ${i}` });
      const after = await ok(t.app, bob, 'GET', `${PRIVACY}/access`);
      assert.equal(tasksOf(after), tasksOf(before));
      assert.equal(tasksOf(await ok(t.app, alice, 'GET', `${PRIVACY}/access`)), 3);
    });

    test('batched reads give the same document whatever the batch size (keyset paging, composite keys too)', async () => {
      const label = await ok(t.app, alice, 'POST', '/api/task-labels', { name: 'x' });
      const other = await ok(t.app, alice, 'POST', '/api/task-labels', { name: 'y' });
      for (let i = 0; i < 4; i += 1)
        await ok(t.app, alice, 'POST', '/api/tasks', {
          title: `Labelled ${i}`,
          labelIds: [label.id, other.id],
        });
      const subject = { userId: alice.id, email: alice.email, name: 'Alice Privacy' };
      const read = async (batch: number) => {
        let text = '';
        for await (const chunk of exportDocument(t.db.kysely, PRIVACY_DECLARATIONS, subject, 'now', batch))
          text += chunk;
        return JSON.parse(text);
      };
      const [one, two, many] = [await read(1), await read(2), await read(1000)];
      assert.deepEqual(one, many);
      assert.deepEqual(two, many);
      assert.equal(many.data.taskLabelLinks.length, 8);
      assert.equal(many.data.tasks.length, 7);
    });

    test('agents cannot use the privacy service, even for their owner', async () => {
      const agent = agentActor(alice.id, { id: 1, actions: new Set(['user.profile.read']), scope: {} });
      await assert.rejects(t.app.services.privacy.accessReport(agent), { code: 'FORBIDDEN' });
      await assert.rejects(t.app.services.privacy.export(agent), { code: 'FORBIDDEN' });
      await assert.rejects(t.app.services.privacy.createRequest(agent, { requestType: 'delete' }), {
        code: 'FORBIDDEN',
      });
    });

    test('the routes are in the OpenAPI document', async () => {
      const doc = (await t.app.inject({ method: 'GET', url: '/api/openapi.json' })).json();
      for (const path of [
        'access',
        'export',
        'requests',
        'requests/{id}/cancel',
        'consents',
        'consents/{consentType}',
        'policy-acceptance',
      ])
        assert.ok(doc.paths[`${PRIVACY}/${path}`], path);
    });
  });

  describe('the operator’s queue', () => {
    test('lists every person’s requests, rejects with a reason, refuses impossible transitions', async () => {
      const request = await ok(t.app, bob, 'POST', `${PRIVACY}/requests`, { requestType: 'access' });
      const { items, total } = await t.app.services.privacy.operator.list({
        statuses: ['pending'],
        offset: 0,
        limit: 500,
      });
      assert.ok(total >= 2);
      const userIds = new Set(items.map((item) => item.userId));
      assert.ok(userIds.has(alice.id) && userIds.has(bob.id));
      await assert.rejects(t.app.services.privacy.operator.reject(request.id, '   '), {
        code: 'VALIDATION_FAILED',
      });
      const rejected = await t.app.services.privacy.operator.reject(request.id, 'Identity not confirmed');
      assert.equal(rejected.status, 'rejected');
      await assert.rejects(t.app.services.privacy.operator.reject(request.id, 'again'), { code: 'CONFLICT' });
      await assert.rejects(t.app.services.privacy.operator.process(request.id), { code: 'CONFLICT' });
      await assert.rejects(t.app.services.privacy.operator.show(2_000_000), { code: 'NOT_FOUND' });
      const { audit } = await t.app.services.privacy.operator.show(request.id);
      assert.deepEqual(
        audit.map((a) => `${a.action}:${a.actor}`),
        ['created:person', 'rejected:operator'],
      );
      assert.ok(!JSON.stringify(audit).includes('Identity'), 'the audit trail holds no free text');
    });

    test('an access request moves pending -> in_progress -> completed', async () => {
      const request = await ok(t.app, bob, 'POST', `${PRIVACY}/requests`, { requestType: 'access' });
      const started = await t.app.services.privacy.operator.process(request.id);
      assert.equal(started.status, 'in_progress');
      await t.app.jobs.idle();
      const done = await ok(t.app, bob, 'GET', `${PRIVACY}/requests/${request.id}`);
      assert.equal(done.status, 'completed');
      const { audit } = await t.app.services.privacy.operator.show(request.id);
      assert.deepEqual(
        audit.map((a) => a.action),
        ['created', 'started', 'access_served'],
      );
    });
  });
});
