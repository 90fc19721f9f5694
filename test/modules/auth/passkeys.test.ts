import assert from 'node:assert/strict';
import { after, afterEach, before, describe, mock, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import {
  cookieValue,
  createTestApp,
  registerUser,
  type SignedInUser,
  type TestApp,
} from '../../helpers/app.js';
import { call, expectStatus } from '../../helpers/http.js';
import { TEST_RP as RP, SoftwareAuthenticator } from '../../helpers/webauthn.js';

async function registrationOptions(app: FastifyInstance, user: SignedInUser) {
  return expectStatus(await call(app, user, 'POST', '/api/auth/passkeys/register/options'), 200);
}

/** Registers a new software passkey for `user`; answers it and the stored passkey. */
async function registerPasskey(app: FastifyInstance, user: SignedInUser, name?: string) {
  const authenticator = new SoftwareAuthenticator(RP);
  const options = await registrationOptions(app, user);
  const body = { ...authenticator.register(options), ...(name ? { name } : {}) };
  const stored = expectStatus(await call(app, user, 'POST', '/api/auth/passkeys/register/verify', body), 201);
  return { authenticator, stored };
}

async function loginChallenge(app: FastifyInstance): Promise<string> {
  const options = expectStatus(await call(app, null, 'POST', '/api/auth/passkeys/login/options'), 200);
  assert.equal(options.rpId, RP.rpId);
  assert.equal(options.userVerification, 'required');
  assert.equal(options.allowCredentials, undefined, 'discoverable: the browser asks which passkey');
  return options.challenge;
}

const loginVerify = (app: FastifyInstance, body: unknown) =>
  call(app, null, 'POST', '/api/auth/passkeys/login/verify', body);

describe('passkeys', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp();
  });
  after(() => t.close());
  afterEach(() => mock.timers.reset());

  test('registration options name this account and exclude its passkeys', async () => {
    const user = await registerUser(t.app, 'Ada');
    const options = await registrationOptions(t.app, user);
    assert.deepEqual(options.rp, { name: RP.rpId, id: RP.rpId });
    assert.equal(options.user.name, user.email);
    assert.equal(options.user.displayName, 'Ada');
    assert.equal(options.authenticatorSelection.residentKey, 'required');
    assert.equal(options.attestation, 'none');
    assert.deepEqual(options.excludeCredentials, []);
    const { authenticator } = await registerPasskey(t.app, user);
    const again = await registrationOptions(t.app, user);
    assert.deepEqual(
      again.excludeCredentials.map((c: { id: string }) => c.id),
      [authenticator.id],
    );
  });

  test('register, list, sign in with it (as login answers), delete', async () => {
    const user = await registerUser(t.app);
    const { authenticator, stored } = await registerPasskey(t.app, user, 'Laptop');
    assert.equal(stored.name, 'Laptop');
    assert.equal(stored.lastUsedAt, null);
    const listed = expectStatus(await call(t.app, user, 'GET', '/api/auth/passkeys'), 200);
    assert.deepEqual(listed, [stored]);
    assert.deepEqual(Object.keys(listed[0]).sort(), ['createdAt', 'id', 'lastUsedAt', 'name']);

    const signedIn = await loginVerify(t.app, authenticator.assert(await loginChallenge(t.app)));
    const session = expectStatus(signedIn, 200);
    assert.equal(session.user.id, user.id);
    assert.equal(session.tokenType, 'Bearer');
    assert.ok(cookieValue(signedIn, 'refresh_token'));
    assert.ok(cookieValue(signedIn, 'csrf_token'));
    const me = await t.app.inject({
      method: 'GET',
      url: '/api/auth/me',
      headers: { authorization: `Bearer ${session.accessToken}` },
    });
    assert.equal(expectStatus(me, 200).id, user.id);
    const used = expectStatus(await call(t.app, user, 'GET', '/api/auth/passkeys'), 200);
    assert.equal(typeof used[0].lastUsedAt, 'string');

    expectStatus(await call(t.app, user, 'DELETE', `/api/auth/passkeys/${stored.id}`), 204);
    assert.deepEqual(expectStatus(await call(t.app, user, 'GET', '/api/auth/passkeys'), 200), []);
    const afterDelete = await loginVerify(t.app, authenticator.assert(await loginChallenge(t.app)));
    expectStatus(afterDelete, 401, 'UNAUTHENTICATED');
  });

  test('a passkey sign-in needs no second step, even with two-factor on', async () => {
    const user = await registerUser(t.app);
    const { authenticator } = await registerPasskey(t.app, user);
    const { TOTP, Secret } = await import('otpauth');
    const setup = expectStatus(await call(t.app, user, 'POST', '/api/auth/2fa/setup'), 200);
    const code = TOTP.generate({ secret: Secret.fromBase32(setup.secret) });
    expectStatus(await call(t.app, user, 'POST', '/api/auth/2fa/enable', { code }), 200);
    const session = expectStatus(
      await loginVerify(t.app, authenticator.assert(await loginChallenge(t.app))),
      200,
    );
    assert.equal(session.user.twoFactorEnabled, true);
  });

  test("another user's passkey cannot be deleted (404) and stays theirs", async () => {
    const [owner, other] = [await registerUser(t.app), await registerUser(t.app)];
    const { stored } = await registerPasskey(t.app, owner);
    expectStatus(await call(t.app, other, 'DELETE', `/api/auth/passkeys/${stored.id}`), 404, 'NOT_FOUND');
    assert.deepEqual(expectStatus(await call(t.app, other, 'GET', '/api/auth/passkeys'), 200), []);
    assert.equal(expectStatus(await call(t.app, owner, 'GET', '/api/auth/passkeys'), 200).length, 1);
  });

  test('an assertion over a used challenge, from another origin, or for another account is refused', async () => {
    const user = await registerUser(t.app);
    const other = await registerUser(t.app);
    const { authenticator } = await registerPasskey(t.app, user);

    const challenge = await loginChallenge(t.app);
    expectStatus(await loginVerify(t.app, authenticator.assert(challenge)), 200);
    // The same challenge again (a replayed or old one): refused, whatever is signed.
    expectStatus(await loginVerify(t.app, authenticator.assert(challenge)), 401, 'UNAUTHENTICATED');
    expectStatus(
      await loginVerify(t.app, authenticator.assert('bm90LWhhbmRlZC1vdXQ')),
      401,
      'UNAUTHENTICATED',
    );

    const phishing = authenticator.assert(await loginChallenge(t.app), {
      origin: 'https://frontend.test.evil',
    });
    expectStatus(await loginVerify(t.app, phishing), 401, 'UNAUTHENTICATED');
    const otherRp = authenticator.assert(await loginChallenge(t.app), { rpId: 'evil.test' });
    expectStatus(await loginVerify(t.app, otherRp), 401, 'UNAUTHENTICATED');

    // The user handle names another account than the one the passkey belongs to.
    const otherHandle = Buffer.from(String(other.id)).toString('base64url');
    const mismatched = authenticator.assert(await loginChallenge(t.app), { userHandle: otherHandle });
    expectStatus(await loginVerify(t.app, mismatched), 401, 'UNAUTHENTICATED');

    // A counter that does not go up is a cloned key.
    const cloned = authenticator.assert(await loginChallenge(t.app), { counter: 1 });
    expectStatus(await loginVerify(t.app, cloned), 401, 'UNAUTHENTICATED');
    expectStatus(
      await loginVerify(t.app, authenticator.assert(await loginChallenge(t.app), { counter: 9 })),
      200,
    );
  });

  test('a login challenge lasts 5 minutes', async () => {
    const user = await registerUser(t.app);
    const { authenticator } = await registerPasskey(t.app, user);
    mock.timers.enable({ apis: ['Date'], now: Date.now() });
    const challenge = await loginChallenge(t.app);
    mock.timers.tick(5 * 60_000 + 1);
    expectStatus(await loginVerify(t.app, authenticator.assert(challenge)), 401, 'UNAUTHENTICATED');
  });

  test("a registration answers only its own account's challenge, from this origin", async () => {
    const [alice, mallory] = [await registerUser(t.app), await registerUser(t.app)];
    // Mallory's browser answers a challenge handed to Alice: refused, and nothing is stored.
    const forAlice = await registrationOptions(t.app, alice);
    const authenticator = new SoftwareAuthenticator(RP);
    const stolen = await call(
      t.app,
      mallory,
      'POST',
      '/api/auth/passkeys/register/verify',
      authenticator.register(forAlice),
    );
    expectStatus(stolen, 400, 'VALIDATION_FAILED');
    assert.deepEqual(expectStatus(await call(t.app, mallory, 'GET', '/api/auth/passkeys'), 200), []);

    const options = await registrationOptions(t.app, alice);
    const elsewhere = authenticator.register(options, { origin: 'https://evil.test' });
    expectStatus(
      await call(t.app, alice, 'POST', '/api/auth/passkeys/register/verify', elsewhere),
      400,
      'VALIDATION_FAILED',
    );
    // That challenge is spent; a fresh one registers.
    const used = authenticator.register(options);
    expectStatus(
      await call(t.app, alice, 'POST', '/api/auth/passkeys/register/verify', used),
      400,
      'VALIDATION_FAILED',
    );
    const fresh = authenticator.register(await registrationOptions(t.app, alice));
    expectStatus(await call(t.app, alice, 'POST', '/api/auth/passkeys/register/verify', fresh), 201);
    // The same credential twice: 409.
    const twice = authenticator.register(await registrationOptions(t.app, alice));
    expectStatus(
      await call(t.app, alice, 'POST', '/api/auth/passkeys/register/verify', twice),
      409,
      'CONFLICT',
    );
  });

  test('bodies are validated; passkey routes need a signed-in browser session', async () => {
    const user = await registerUser(t.app);
    const bad = await loginVerify(t.app, { id: 'x', rawId: 'x', type: 'public-key', response: {} });
    expectStatus(bad, 400, 'VALIDATION_FAILED');
    expectStatus(
      await call(t.app, null, 'POST', '/api/auth/passkeys/register/options'),
      401,
      'UNAUTHENTICATED',
    );
    const key = expectStatus(await call(t.app, user, 'POST', '/api/auth/api-keys', { label: 'script' }), 201);
    const withKey = await t.app.inject({
      method: 'POST',
      url: '/api/auth/passkeys/register/options',
      headers: { 'x-api-key': key.key },
    });
    expectStatus(withKey, 401, 'UNAUTHENTICATED');
  });
});
