import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestApp, registerUser, type TestApp } from '../../helpers/app.js';
import { ok } from '../../helpers/http.js';
import { PRIVACY } from '../../helpers/privacy.js';
import { feedReader } from './helpers.js';

/**
 * A completed data-subject request writes `privacy.request.completed` with the completion:
 * an access or export request into the person's own feed (their report is ready), an
 * erasure naming nobody and carrying none of the request's text.
 */
describe('privacy request events', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp();
  });
  after(() => t.close());

  test('a served access request is in the person’s own feed, as their request reads', async () => {
    const person = await registerUser(t.app);
    const feed = feedReader(t.app, person, '/api/me/events');
    const request = await ok(t.app, person, 'POST', `${PRIVACY}/requests`, {
      requestType: 'access',
      reason: 'What do you hold?',
    });
    const { types, events } = await feed.around(async () => {
      await t.app.services.privacy.operator.process(request.id);
      await t.app.jobs.idle();
    });
    assert.deepEqual(types, ['privacy.request.completed']);
    assert.equal(events[0]!.organisationId, null);
    assert.equal(events[0]!.userId, person.id);
    assert.deepEqual(events[0]!.data, await ok(t.app, person, 'GET', `${PRIVACY}/requests/${request.id}`));
  });

  test('an erasure’s event names nobody and holds nothing of the person', async () => {
    const person = await registerUser(t.app, 'Erin Quillfeather');
    const request = await ok(t.app, person, 'POST', `${PRIVACY}/requests`, {
      requestType: 'delete',
      reason: 'Please forget Erin Quillfeather',
      confirmEmail: person.email,
    });
    await t.app.services.privacy.operator.process(request.id);
    await t.app.jobs.idle();
    assert.equal((await t.app.services.privacy.operator.show(request.id)).request.status, 'completed');

    const events = (await t.app.services.outbox.readAfter(null, 1000)).filter(
      (event) =>
        event.type === 'privacy.request.completed' && (event.data as { id: number }).id === request.id,
    );
    assert.equal(events.length, 1);
    assert.equal(events[0]!.userId, null);
    assert.deepEqual(Object.keys(events[0]!.data as object).sort(), [
      'completedAt',
      'createdAt',
      'id',
      'requestType',
      'status',
    ]);
    const text = JSON.stringify(events[0]);
    assert.ok(!text.includes(person.email) && !text.includes('Quillfeather'), text);
  });
});
