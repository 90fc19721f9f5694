// The pages of the account links people are mailed, outside the signed-in console: verify an
// address (/verify-email/<token>), ask for a reset link (/forgot-password) and set a new
// password with it (/reset-password/<token>).
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, type ReactNode, useEffect, useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { ApiError, api, noBody, unwrap } from '../../api/client.js';
import { errorText, fieldErrors } from '../../api/errors.js';
import { queryKeys } from '../../api/queryKeys.js';
import { refresh, useSession } from '../../api/session.js';
import { useBrandColour } from '../../components/Branding.js';
import { Status } from '../account-ui.js';
import { submitted } from '../form-state.js';
import { Field, FormError, SubmitActions } from '../ui.js';
import { resendVerification } from './VerifyBanner.js';
import '../console.css';

function AccountFrame(props: { title: string; children: ReactNode }) {
  useBrandColour(null);
  useEffect(() => {
    document.title = `${props.title} · Reservation Service`;
  }, [props.title]);
  return (
    <div className="console">
      <header className="console-bar">
        <Link to="/app" className="console-home">
          Console
        </Link>
      </header>
      <main className="page">
        <h1>{props.title}</h1>
        {props.children}
      </main>
    </div>
  );
}

/** Whether a refusal means the link is spent: expired, used, or replaced by a newer one. */
const isExpired = (error: unknown) => error instanceof ApiError && error.code === 'LINK_EXPIRED';

export function VerifyEmailPage() {
  const { token = '' } = useParams();
  const queryClient = useQueryClient();
  // A query, not an effect: asked once per token even when React runs effects twice.
  const verify = useQuery({
    queryKey: queryKeys.verifyEmail(token),
    queryFn: () => unwrap(api.POST('/api/auth/verify-email', { body: { token } })),
    retry: false,
    staleTime: Number.POSITIVE_INFINITY,
  });
  useEffect(() => {
    if (verify.isSuccess) void queryClient.invalidateQueries({ queryKey: queryKeys.me() });
  }, [verify.isSuccess, queryClient]);
  return (
    <AccountFrame title="Verify your email">
      {verify.isPending ? <p className="loading">Verifying…</p> : null}
      {verify.isSuccess ? (
        <>
          <p role="status">Your email address is verified.</p>
          <p>
            <Link to="/app">Open the console</Link>, or see{' '}
            <Link to="/app/invitations">your invitations</Link>.
          </p>
        </>
      ) : null}
      {verify.isError ? (
        <>
          <p role="alert" className="error">
            {isExpired(verify.error)
              ? 'This link has expired or was used already.'
              : verify.error instanceof ApiError && verify.error.status === 400
                ? 'This link is not valid: check that it was copied whole.'
                : errorText(verify.error)}
          </p>
          <ResendFromLink />
        </>
      ) : null}
    </AccountFrame>
  );
}

/** "Send a new link": as the signed-in person (resumed from the refresh cookie), else sign in first. */
function ResendFromLink() {
  const session = useSession();
  const navigate = useNavigate();
  const resend = useMutation({
    mutationFn: async () => {
      if (!(session ?? (await refresh()))) return false;
      await resendVerification();
      return true;
    },
    onSuccess: (sent) => {
      if (!sent) navigate('/app/sign-in', { state: { from: '/app/security' } });
    },
  });
  return (
    <>
      <div className="actions">
        <button type="button" className="primary" disabled={resend.isPending} onClick={() => resend.mutate()}>
          Send a new link
        </button>
      </div>
      {resend.isError ? (
        <p role="alert" className="error">
          {errorText(resend.error)}
        </p>
      ) : null}
      <Status>{resend.data ? 'We sent a new link: check your mail.' : ''}</Status>
    </>
  );
}

export function ForgotPasswordPage() {
  const [email, setEmail] = useState('');
  const forgot = useMutation({
    mutationFn: () => unwrap(api.POST('/api/auth/password/forgot', { body: { email } }).then(noBody)),
  });
  return (
    <AccountFrame title="Forgot your password?">
      <p>Enter the address you sign in with: we mail you a link to set a new password.</p>
      <form onSubmit={submitted(forgot.mutate)}>
        <Field
          name="email"
          label="Email"
          type="email"
          autoComplete="email"
          value={email}
          error={fieldErrors(forgot.error).email}
          onChange={setEmail}
        />
        {forgot.isError ? <FormError error={forgot.error} shown={['email']} /> : null}
        <Status>
          {forgot.isSuccess && !forgot.isPending
            ? 'If an account exists for that address, we sent it a link to reset the password. The link works for 30 minutes.'
            : ''}
        </Status>
        <SubmitActions pending={forgot.isPending} label="Send the link" />
      </form>
      <p>
        <Link to="/app/sign-in">Back to sign in</Link>
      </p>
    </AccountFrame>
  );
}

export function ResetPasswordPage() {
  const { token = '' } = useParams();
  const [form, setForm] = useState({ password: '', repeat: '' });
  const [mismatch, setMismatch] = useState(false);
  const reset = useMutation({
    mutationFn: () =>
      unwrap(api.POST('/api/auth/password/reset', { body: { token, password: form.password } }).then(noBody)),
  });
  if (reset.isSuccess)
    return (
      <AccountFrame title="Password changed">
        <p role="status">Your password is changed, and every session of your account was ended.</p>
        <p>
          <Link to="/app/sign-in">Sign in with the new password</Link>
        </p>
      </AccountFrame>
    );
  const spent =
    isExpired(reset.error) ||
    (reset.error instanceof ApiError && reset.error.status === 400 && !fieldErrors(reset.error).password);
  return (
    <AccountFrame title="Set a new password">
      <form
        onSubmit={(e: FormEvent) => {
          e.preventDefault();
          const differ = form.password !== form.repeat;
          setMismatch(differ);
          if (!differ) reset.mutate();
        }}
      >
        <Field
          name="password"
          label="New password (at least 10 characters)"
          type="password"
          autoComplete="new-password"
          value={form.password}
          error={fieldErrors(reset.error).password}
          onChange={(password) => setForm((f) => ({ ...f, password }))}
        />
        <Field
          name="repeat"
          label="New password again"
          type="password"
          autoComplete="new-password"
          value={form.repeat}
          error={mismatch ? 'The two passwords differ.' : undefined}
          onChange={(repeat) => setForm((f) => ({ ...f, repeat }))}
        />
        {spent ? (
          <p role="alert" className="error">
            This link has expired or was used already. <Link to="/forgot-password">Ask for a new link</Link>.
          </p>
        ) : reset.isError ? (
          <FormError error={reset.error} shown={['password']} />
        ) : null}
        <SubmitActions pending={reset.isPending} label="Set the new password" />
      </form>
    </AccountFrame>
  );
}
