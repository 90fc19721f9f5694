import type { FastifyInstance } from 'fastify';
import { Secret, TOTP } from 'otpauth';
import type { SignedInUser } from './app.js';
import { call, expectStatus } from './organisations.js';
import { SoftwareAuthenticator, TEST_RP } from './webauthn.js';

/**
 * Gives `user` every kind of second-factor row: two-factor on (a secret, recovery codes), a
 * login waiting for its second step, a passkey and a passkey registration left open. Answers
 * the secrets, for checks that they never leave the service.
 */
export async function seedSecondFactors(app: FastifyInstance, user: SignedInUser) {
  const authenticator = new SoftwareAuthenticator(TEST_RP);
  const options = expectStatus(await call(app, user, 'POST', '/api/auth/passkeys/register/options'), 200);
  const passkey = { ...authenticator.register(options), name: 'Laptop' };
  expectStatus(await call(app, user, 'POST', '/api/auth/passkeys/register/verify', passkey), 201);
  const openRegistration = expectStatus(
    await call(app, user, 'POST', '/api/auth/passkeys/register/options'),
    200,
  );

  const setup = expectStatus(await call(app, user, 'POST', '/api/auth/2fa/setup'), 200);
  const code = TOTP.generate({ secret: Secret.fromBase32(setup.secret) });
  const { recoveryCodes } = expectStatus(
    await call(app, user, 'POST', '/api/auth/2fa/enable', { code }),
    200,
  );
  const login = await app.inject({
    method: 'POST',
    url: '/api/auth/login',
    payload: { email: user.email, password: user.password },
  });
  const { challenge } = expectStatus(login, 200);
  return {
    totpSecret: setup.secret as string,
    recoveryCode: (recoveryCodes as string[])[0]!,
    loginChallenge: challenge as string,
    passkeyChallenge: openRegistration.challenge as string,
  };
}
