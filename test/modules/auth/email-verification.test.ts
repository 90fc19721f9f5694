import assert from 'node:assert/strict';
import { after, before, describe, mock, test } from 'node:test';
import { type MailCatcher, startMailCatcher } from '../../../tools/emulators/mail/server.js';
import { mailTo, tokenIn } from '../../helpers/account-mail.js';
import {
  createTestApp,
  registerUser,
  type SignedInUser,
  type TestApp,
  uniqueEmail,
} from '../../helpers/app.js';

const HOUR = 60 * 60 * 1000;

describe('verified email', () => {
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

  const verify = (token: string) =>
    t.app.inject({ method: 'POST', url: '/api/auth/verify-email', payload: { token } });
  const resend = (user: SignedInUser) =>
    t.app.inject({ method: 'POST', url: '/api/auth/verify-email/resend', headers: user.auth });
  const verified = async (user: SignedInUser) =>
    (await t.app.inject({ method: 'GET', url: '/api/auth/me', headers: user.auth })).json().emailVerified;
  const verificationMail = (user: SignedInUser) =>
    mailTo(catcher, user.email, /^Confirm your email address$/);

  test('sign-up mails a link that verifies the address once; an altered one is 400 and changes nothing', async () => {
    const user = await registerUser(t.app, 'Vera');
    assert.equal(await verified(user), false);
    const mail = await verificationMail(user);
    assert.match(mail.text ?? '', /Hello Vera,/);
    const token = tokenIn(mail, 'verify-email');
    assert.equal(Buffer.from(token, 'base64url').length, 32, '256 bits');

    const altered = await verify(`${token.slice(0, -1)}${token.endsWith('A') ? 'B' : 'A'}`);
    assert.equal(altered.statusCode, 400);
    assert.equal(altered.json().error.code, 'VALIDATION_FAILED');
    assert.equal(altered.json().error.details[0].path, 'body.token');
    assert.equal(await verified(user), false);

    const done = await verify(token);
    assert.equal(done.statusCode, 200, done.body);
    assert.deepEqual(done.json(), { emailVerified: true });
    assert.equal(await verified(user), true);
    const again = await verify(token);
    assert.equal(again.statusCode, 410);
    assert.equal(again.json().error.code, 'LINK_EXPIRED');
    // The token is kept only as a hash.
    const stored = await t.db.kysely
      .selectFrom('accountLinks')
      .select('tokenHash')
      .where('userId', '=', user.id)
      .execute();
    assert.ok(stored.length > 0 && stored.every((row) => row.tokenHash !== token));
  });

  test('resend mails a new link that replaces the old; at most 5 an hour', async () => {
    const user = await registerUser(t.app);
    const first = tokenIn(await verificationMail(user), 'verify-email');
    catcher.clear();
    const answer = await resend(user);
    assert.equal(answer.statusCode, 202, answer.body);
    const second = tokenIn(await verificationMail(user), 'verify-email');
    assert.notEqual(first, second);
    assert.equal((await verify(first)).statusCode, 410, 'only the newest link works');
    assert.equal((await verify(second)).statusCode, 200);
    for (let i = 0; i < 4; i += 1) assert.equal((await resend(user)).statusCode, 202);
    const limited = await resend(user);
    assert.equal(limited.statusCode, 429);
    assert.equal(limited.json().error.code, 'RATE_LIMITED');
    assert.equal(
      (await t.app.inject({ method: 'POST', url: '/api/auth/verify-email/resend' })).statusCode,
      401,
    );
  });

  test('a link older than 24 hours is 410 LINK_EXPIRED and verifies nothing', async () => {
    const start = Date.now();
    const user = await registerUser(t.app);
    const token = tokenIn(await verificationMail(user), 'verify-email');
    mock.timers.enable({ apis: ['Date'], now: start + 24 * HOUR + 60_000 });
    try {
      const late = await verify(token);
      assert.equal(late.statusCode, 410);
      assert.equal(late.json().error.code, 'LINK_EXPIRED');
    } finally {
      mock.timers.reset();
    }
    assert.equal(await verified(user), false);
    mock.timers.enable({ apis: ['Date'], now: start + 24 * HOUR - 60_000 });
    try {
      assert.equal((await verify(token)).statusCode, 200, 'just within its life it works');
    } finally {
      mock.timers.reset();
    }
  });

  test('changing the address: a link to the new one, a notice to the old; the address changes when verified', async () => {
    const user = await registerUser(t.app, 'Mover');
    const newEmail = uniqueEmail('moved');
    const change = (body: Record<string, unknown>) =>
      t.app.inject({ method: 'POST', url: '/api/auth/email', headers: user.auth, payload: body });
    const wrong = await change({ newEmail, password: 'not my password' });
    assert.equal(wrong.statusCode, 400);
    assert.equal(wrong.json().error.details[0].path, 'body.password');
    assert.equal((await change({ newEmail: 'not an address', password: user.password })).statusCode, 400);
    const taken = await change({ newEmail: (await registerUser(t.app)).email, password: user.password });
    assert.equal(taken.statusCode, 409);
    assert.equal(taken.json().error.code, 'EMAIL_TAKEN');

    assert.equal((await change({ newEmail, password: user.password })).statusCode, 202);
    const notice = await mailTo(catcher, user.email, /^Your email address is being changed$/);
    assert.match(notice.text ?? '', new RegExp(newEmail.replace(/[.]/g, '\\.')));
    const token = tokenIn(
      await mailTo(catcher, newEmail, /^Confirm your new email address$/),
      'verify-email',
    );
    const me = async () =>
      (await t.app.inject({ method: 'GET', url: '/api/auth/me', headers: user.auth })).json();
    assert.equal((await me()).email, user.email, 'nothing changes before the link is used');
    assert.equal((await verify(token)).statusCode, 200);
    assert.equal((await me()).email, newEmail);
    assert.equal((await me()).emailVerified, true);
    const login = await t.app.inject({
      method: 'POST',
      url: '/api/auth/login',
      payload: { email: newEmail, password: user.password },
    });
    assert.equal(login.statusCode, 200);
  });

  test('an address another account took while the link was out: 409 EMAIL_TAKEN, nothing changes', async () => {
    const user = await registerUser(t.app);
    const wanted = uniqueEmail('wanted');
    const asked = await t.app.inject({
      method: 'POST',
      url: '/api/auth/email',
      headers: user.auth,
      payload: { newEmail: wanted, password: user.password },
    });
    assert.equal(asked.statusCode, 202);
    const token = tokenIn(await mailTo(catcher, wanted, /^Confirm your new email address$/), 'verify-email');
    const other = await t.app.inject({
      method: 'POST',
      url: '/api/auth/register',
      payload: { email: wanted, password: 'another long password', name: 'Quick' },
    });
    assert.equal(other.statusCode, 201);
    const late = await verify(token);
    assert.equal(late.statusCode, 409);
    assert.equal(late.json().error.code, 'EMAIL_TAKEN');
    const me = (await t.app.inject({ method: 'GET', url: '/api/auth/me', headers: user.auth })).json();
    assert.equal(me.email, user.email);
  });
});
