// The Security page: the person's address and whether it is verified, their password and email,
// two-factor, passkeys and signed-in sessions.
import { useMe } from '../../api/hooks.js';
import { LoadError, Loading } from '../ui.js';
import { Passkeys } from './Passkeys.js';
import { ChangeEmail, ChangePassword } from './PasswordEmail.js';
import { Sessions } from './Sessions.js';
import { TwoFactor } from './TwoFactor.js';
import { ResendVerification } from './VerifyBanner.js';

export default function Security() {
  const me = useMe();
  return (
    <main className="page">
      <h1>Security</h1>
      {me.isPending ? <Loading /> : null}
      {me.isError ? <LoadError error={me.error} /> : null}
      {me.data ? (
        <>
          <section aria-labelledby="address-heading">
            <h2 id="address-heading">Email address</h2>
            {/* A div: the resend control answers in a paragraph of its own, which a <p> cannot hold. */}
            <div>
              {me.data.email}:{' '}
              {me.data.emailVerified ? (
                'verified.'
              ) : (
                <>
                  not verified yet. <ResendVerification email={me.data.email} />
                </>
              )}
            </div>
          </section>
          <ChangePassword />
          <ChangeEmail />
          <TwoFactor enabled={me.data.twoFactorEnabled} />
          <Passkeys />
          <Sessions />
        </>
      ) : null}
    </main>
  );
}
