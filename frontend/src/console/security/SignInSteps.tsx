// The sign-in's other ways: the second step when the account has two-factor on (a code of the
// authenticator app, or a recovery code), and signing in with a passkey.
import { useMutation } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { ApiError } from '../../api/client.js';
import { errorText } from '../../api/errors.js';
import { type SecondStep, signIn, signInWithPasskey } from '../../api/session.js';
import { submitted } from '../form-state.js';
import { Field } from '../ui.js';

/** Words for a refused second step: a wrong or used code, or a challenge that ran out. */
function secondStepError(error: unknown): string {
  if (error instanceof ApiError && error.code === 'TWO_FACTOR_INVALID')
    return 'That code is not right, or it was used already. Try the next code your app shows.';
  if (error instanceof ApiError && (error.status === 401 || error.status === 410))
    return 'This sign-in took too long. Start again with your email and password.';
  return errorText(error);
}

export function SecondStepForm(props: { step: SecondStep; onRestart: () => void }) {
  const [recovery, setRecovery] = useState(false);
  const [value, setValue] = useState('');
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), []);
  const submit = useMutation({
    mutationFn: () =>
      signIn(
        recovery
          ? { challenge: props.step.challenge, recoveryCode: value.trim() }
          : { challenge: props.step.challenge, code: value.replace(/\s/g, '') },
      ),
  });
  return (
    <main className="page">
      <h1 ref={heading} tabIndex={-1}>
        Two-factor authentication
      </h1>
      <p>
        {recovery
          ? 'Enter one of the recovery codes you stored when you set up two-factor. Each works once.'
          : 'Enter the 6-digit code your authenticator app shows for this account.'}
      </p>
      <form onSubmit={submitted(submit.mutate)}>
        <CodeField recovery={recovery} value={value} onChange={setValue} />
        {submit.isError ? (
          <p role="alert" className="error">
            {secondStepError(submit.error)}
          </p>
        ) : null}
        <div className="actions">
          <button type="submit" className="primary" disabled={submit.isPending}>
            Verify
          </button>
          <button
            type="button"
            className="secondary"
            onClick={() => {
              setRecovery((r) => !r);
              setValue('');
              submit.reset();
            }}
          >
            {recovery ? 'Use a code from the app' : 'Use a recovery code'}
          </button>
        </div>
      </form>
      <p>
        <button type="button" className="link" onClick={props.onRestart}>
          Start again
        </button>
      </p>
    </main>
  );
}

/** The authenticator app's code, or a recovery code. */
function CodeField(props: { recovery: boolean; value: string; onChange: (value: string) => void }) {
  const { recovery, value, onChange } = props;
  return recovery ? (
    <Field
      key="recovery"
      name="recoveryCode"
      label="Recovery code"
      autoComplete="off"
      value={value}
      onChange={onChange}
    />
  ) : (
    <Field
      key="code"
      name="code"
      label="Code"
      autoComplete="one-time-code"
      inputMode="numeric"
      value={value}
      onChange={onChange}
    />
  );
}

/** Words for a passkey sign-in that did not finish. */
function passkeyError(error: unknown): string {
  if (error instanceof ApiError)
    return error.status === 401 ? 'This passkey was not accepted.' : errorText(error);
  return 'The passkey sign-in was cancelled or timed out. Try again, or sign in with your password.';
}

/** "Sign in with a passkey", where the browser can. */
export function PasskeySignIn() {
  const submit = useMutation({ mutationFn: signInWithPasskey });
  if (typeof window === 'undefined' || !('PublicKeyCredential' in window)) return null;
  return (
    <section aria-labelledby="passkey-heading">
      <h2 id="passkey-heading">Or use a passkey</h2>
      <div className="actions">
        <button
          type="button"
          className="secondary"
          disabled={submit.isPending}
          onClick={() => submit.mutate()}
        >
          Sign in with a passkey
        </button>
      </div>
      {submit.isError ? (
        <p role="alert" className="error">
          {passkeyError(submit.error)}
        </p>
      ) : null}
    </section>
  );
}
