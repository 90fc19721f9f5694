// The quiet reminder while the person's address is unverified: the link was mailed at sign-up;
// "resend" mails a new one (at most 5 an hour).
import { useMutation } from '@tanstack/react-query';
import { noBody, unwrap } from '../../api/client.js';
import { errorText } from '../../api/errors.js';
import { useMe } from '../../api/hooks.js';
import { authed } from '../../api/session.js';
import { Status } from '../account-ui.js';

/** Mails the verification link again (at most 5 an hour). */
export const resendVerification = () => unwrap(authed.POST('/api/auth/verify-email/resend').then(noBody));

/** Says "we sent a link", with a resend; `children` say why it matters where it stands. */
export function ResendVerification(props: { email: string }) {
  const resend = useMutation({ mutationFn: resendVerification });
  return (
    <>
      <button type="button" className="link" disabled={resend.isPending} onClick={() => resend.mutate()}>
        Resend the link
      </button>
      {resend.isError ? (
        <span role="alert" className="error">
          {' '}
          {errorText(resend.error)}
        </span>
      ) : null}
      <Status>{resend.isSuccess ? `We sent a new link to ${props.email}.` : ''}</Status>
    </>
  );
}

export function VerifyBanner() {
  const me = useMe();
  if (!me.data || me.data.emailVerified) return null;
  return (
    <aside className="verify-banner" aria-label="Verify your address">
      <p>
        Check your mail: we sent a link to <strong>{me.data.email}</strong> to verify your address.
      </p>
      <ResendVerification email={me.data.email} />
    </aside>
  );
}
