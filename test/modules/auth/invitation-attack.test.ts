import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { type MailCatcher, startMailCatcher } from '../../../tools/emulators/mail/server.js';
import { mailTo, tokenIn } from '../../helpers/account-mail.js';
import { createTestApp, type SignedInUser, type TestApp } from '../../helpers/app.js';
import { call, expectStatus } from '../../helpers/http.js';
import { ownerWithOrganisation } from '../../helpers/organisations.js';

/** Signs up through the route; answers the person as the helpers know them. */
async function signUp(
  app: FastifyInstance,
  email: string,
  password: string,
  name: string,
): Promise<SignedInUser> {
  const response = await app.inject({
    method: 'POST',
    url: '/api/auth/register',
    payload: { email, password, name },
  });
  assert.equal(response.statusCode, 201, response.body);
  const body = response.json();
  return {
    id: body.user.id,
    email,
    password,
    token: body.accessToken,
    auth: { authorization: `Bearer ${body.accessToken}` },
    response,
  };
}

async function signIn(app: FastifyInstance, email: string, password: string): Promise<SignedInUser> {
  const response = await app.inject({ method: 'POST', url: '/api/auth/login', payload: { email, password } });
  assert.equal(response.statusCode, 200, response.body);
  const body = response.json();
  return {
    id: body.user.id,
    email,
    password,
    token: body.accessToken,
    auth: { authorization: `Bearer ${body.accessToken}` },
    response,
  };
}

/**
 * The attack of issue 48: Alice invites carol@corp.example as ADMIN; Mallory registers that
 * address before Carol does. Registering proves nothing about a mailbox, so Mallory's account
 * never sees or accepts the invitation. Addresses are unique, so Carol gets hers back the way
 * a mailbox owner can: "forgot password" mails her a link, and resetting with it proves the
 * mailbox (the address becomes verified) and ends every session Mallory had.
 */
describe('the invitation attack', () => {
  let t: TestApp;
  let catcher: MailCatcher;
  before(async () => {
    catcher = await startMailCatcher();
    t = await createTestApp({ SMTP_URL: catcher.smtpUrl });
  });
  after(async () => {
    await t.close();
    await catcher.close();
  });

  const invitations = (user: SignedInUser) => call(t.app, user, 'GET', '/api/organisations/invitations');
  const accept = (user: SignedInUser, id: number) =>
    call(t.app, user, 'POST', `/api/organisations/${id}/invitation/accept`);

  test("Mallory's unverified account never sees or accepts Carol's invitation; Carol's verified account does", async () => {
    const alice = await ownerWithOrganisation(t.app, { name: 'Alice & Co' });
    const carolAddress = `carol-${randomBytes(4).toString('hex')}@corp.example`;
    expectStatus(
      await call(t.app, alice, 'POST', `/api/organisations/${alice.organisationId}/users/assign`, {
        email: carolAddress,
        role: 'ADMIN',
      }),
      201,
    );

    const mallory = await signUp(t.app, carolAddress, 'mallory password', 'Mallory');
    assert.deepEqual(expectStatus(await invitations(mallory), 200), []);
    expectStatus(await accept(mallory, alice.organisationId), 403, 'EMAIL_NOT_VERIFIED');
    expectStatus(
      await call(t.app, mallory, 'POST', `/api/organisations/${alice.organisationId}/invitation/decline`),
      404,
      'NOT_FOUND',
    );
    expectStatus(await call(t.app, mallory, 'GET', `/api/organisations/${alice.organisationId}`), 404);
    const members = expectStatus(
      await call(t.app, alice, 'GET', `/api/organisations/${alice.organisationId}/users/list`),
      200,
    ) as Array<{ status: string; role: string }>;
    assert.deepEqual(
      members.map((m) => [m.status, m.role]),
      [
        ['active', 'OWNER'],
        ['invited', 'ADMIN'],
      ],
      'the invitation is still open, and Mallory is no member',
    );

    // Carol: the address is taken, so she asks for a reset; only her mailbox gets the link.
    const taken = await t.app.inject({
      method: 'POST',
      url: '/api/auth/register',
      payload: { email: carolAddress, password: 'carol password', name: 'Carol' },
    });
    expectStatus(taken, 409, 'EMAIL_TAKEN');
    expectStatus(
      await t.app.inject({
        method: 'POST',
        url: '/api/auth/password/forgot',
        payload: { email: carolAddress },
      }),
      202,
    );
    const token = tokenIn(await mailTo(catcher, carolAddress, /^Reset your password$/), 'reset-password');
    expectStatus(
      await t.app.inject({
        method: 'POST',
        url: '/api/auth/password/reset',
        payload: { token, password: 'carol password' },
      }),
      200,
    );
    expectStatus(await invitations(mallory), 401);
    expectStatus(
      await t.app.inject({
        method: 'POST',
        url: '/api/auth/login',
        payload: { email: carolAddress, password: 'mallory password' },
      }),
      401,
    );

    const carol = await signIn(t.app, carolAddress, 'carol password');
    const [offer] = expectStatus(await invitations(carol), 200);
    assert.equal(offer.organisationName, 'Alice & Co');
    assert.equal(offer.role, 'ADMIN');
    const joined = expectStatus(await accept(carol, alice.organisationId), 200);
    assert.equal(joined.role, 'ADMIN');
  });

  test('a person who signs up with the invited address and opens the mailed link sees and accepts it', async () => {
    const alice = await ownerWithOrganisation(t.app, { name: 'Second Shop' });
    const address = `dana-${randomBytes(4).toString('hex')}@corp.example`;
    expectStatus(
      await call(t.app, alice, 'POST', `/api/organisations/${alice.organisationId}/users/assign`, {
        email: address,
        role: 'MANAGER',
      }),
      201,
    );
    const dana = await signUp(t.app, address, 'dana password', 'Dana');
    assert.deepEqual(expectStatus(await invitations(dana), 200), []);
    const token = tokenIn(await mailTo(catcher, address, /^Confirm your email address$/), 'verify-email');
    expectStatus(
      await t.app.inject({ method: 'POST', url: '/api/auth/verify-email', payload: { token } }),
      200,
    );
    assert.equal(expectStatus(await invitations(dana), 200).length, 1);
    assert.equal(expectStatus(await accept(dana, alice.organisationId), 200).role, 'MANAGER');
  });

  test('invitations: at most 10 an hour per inviter (429 RATE_LIMITED)', async () => {
    const alice = await ownerWithOrganisation(t.app, { name: 'Busy Shop' });
    const send = (i: number) =>
      call(t.app, alice, 'POST', `/api/organisations/${alice.organisationId}/users`, {
        email: `guest-${i}-${randomBytes(3).toString('hex')}@example.test`,
      });
    for (let i = 0; i < 10; i += 1) expectStatus(await send(i), 201);
    const limited = await send(10);
    expectStatus(limited, 429, 'RATE_LIMITED');
    assert.ok(Number(limited.headers['retry-after']) > 0);
  });
});
