import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type MailCatcher, startMailCatcher } from '../../../tools/emulators/mail/server.js';
import { mailsBesidesSignUps } from '../../helpers/account-mail.js';
import { createTestApp, registerUser, type SignedInUser, type TestApp } from '../../helpers/app.js';
import { call, expectStatus } from '../../helpers/http.js';
import { accept, createOrganisation, invite } from '../../helpers/organisations.js';
import { feedReader } from './helpers.js';

/**
 * Membership changes write their events with themselves (issue 24): an invitation (new or
 * renewed) `membership.invited` with the invitation's record, an acceptance
 * `membership.accepted` with the new member's; the invited person sees both in their own
 * feed once the invitation names their account, and the invitation is mailed from the
 * outbox. Refused and declined ones write nothing.
 */
describe('membership events', () => {
  let t: TestApp;
  let catcher: MailCatcher;
  let owner: SignedInUser;
  let organisationId: number;
  let feed: ReturnType<typeof feedReader>;
  before(async () => {
    catcher = await startMailCatcher();
    t = await createTestApp({ SMTP_URL: catcher.smtpUrl });
    owner = await registerUser(t.app);
    organisationId = (await createOrganisation(t.app, owner, { name: 'Studio' })).id;
    feed = feedReader(t.app, owner, `/api/organisations/${organisationId}/events`);
  });
  after(async () => {
    await t.close();
    await catcher.close();
  });

  test('an invitation by account, its renewal and its acceptance each write their event', async () => {
    const invitee = await registerUser(t.app);
    const own = feedReader(t.app, invitee, '/api/me/events');
    await own.next();

    const invited = await feed.around(() => invite(t.app, owner, organisationId, invitee, 'MANAGER'));
    assert.deepEqual(invited.types, ['membership.invited']);
    const [event] = invited.events;
    assert.equal(event!.organisationId, organisationId);
    assert.equal(event!.userId, invitee.id);
    const listed = (
      expectStatus(
        await call(t.app, owner, 'GET', `/api/organisations/${organisationId}/users/list`),
        200,
      ) as Array<Record<string, unknown>>
    ).find((entry) => entry.status === 'invited' && entry.userId === invitee.id);
    assert.deepEqual(event!.data, listed, 'the invitation as the member list shows it');

    const renewed = await feed.around(async () =>
      expectStatus(
        await call(t.app, owner, 'POST', `/api/organisations/${organisationId}/users/assign`, {
          userId: invitee.id,
          role: 'MEMBER',
        }),
        200,
      ),
    );
    assert.deepEqual(renewed.types, ['membership.invited']);
    assert.equal(renewed.events[0]!.data.role, 'MEMBER');

    const accepted = await feed.around(() => accept(t.app, invitee, organisationId));
    assert.deepEqual(accepted.types, ['membership.accepted']);
    const member = expectStatus(
      await call(t.app, owner, 'GET', `/api/organisations/${organisationId}/users/list`),
      200,
    ).find((entry: Record<string, unknown>) => entry.status === 'active' && entry.userId === invitee.id);
    assert.deepEqual(accepted.events[0]!.data, member, 'the member as the member list shows them');
    assert.equal(accepted.events[0]!.userId, invitee.id);

    assert.deepEqual(
      (await own.next()).map((e) => e.type),
      ['membership.invited', 'membership.invited', 'membership.accepted'],
      "the invited person's own feed",
    );
  });

  test('refused, declined and repeated acceptances write nothing', async () => {
    const member = await registerUser(t.app);
    await invite(t.app, owner, organisationId, member, 'MEMBER');
    await accept(t.app, member, organisationId);
    const refused = await feed.around(async () =>
      expectStatus(
        await call(t.app, owner, 'POST', `/api/organisations/${organisationId}/users/assign`, {
          userId: member.id,
          role: 'MEMBER',
        }),
        409,
        'ALREADY_MEMBER',
      ),
    );
    assert.deepEqual(refused.types, []);

    const other = await registerUser(t.app);
    await invite(t.app, owner, organisationId, other, 'MEMBER');
    const declined = await feed.around(async () =>
      expectStatus(
        await call(t.app, other, 'POST', `/api/organisations/${organisationId}/invitation/decline`),
        204,
      ),
    );
    assert.deepEqual(declined.types, []);
  });

  test('an invitation by email is mailed from the outbox, once', async () => {
    await t.app.services.mail.drain();
    catcher.clear();
    const address = `new-${process.pid}@example.test`;
    const invited = await feed.around(async () =>
      expectStatus(
        await call(t.app, owner, 'POST', `/api/organisations/${organisationId}/users/assign`, {
          email: address,
          role: 'MEMBER',
        }),
        201,
      ),
    );
    assert.deepEqual(invited.types, ['membership.invited']);
    assert.equal(invited.events[0]!.userId, null, 'no account is named: the feed tells nothing');
    assert.equal('email' in invited.events[0]!.data, false);
    await t.app.services.mail.drain();
    await t.app.services.mail.drain();
    assert.deepEqual(
      (await mailsBesidesSignUps(catcher)).map((message) => message.envelope.to[0]),
      [address],
    );
  });
});
