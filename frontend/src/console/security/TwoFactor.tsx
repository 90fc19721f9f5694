// Two-factor (TOTP): set up with the QR code (or the secret typed in), confirmed with a code,
// the recovery codes shown once; turned off with the password and a code. The QR encoder
// loads only when a set-up starts.
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useEffect, useId, useState } from 'react';
import { noBody, unwrap } from '../../api/client.js';
import { fieldErrors } from '../../api/errors.js';
import { queryKeys } from '../../api/queryKeys.js';
import { authed } from '../../api/session.js';
import type { TwoFactorSetup } from '../../api/types.js';
import { Status } from '../account-ui.js';
import { submitted } from '../form-state.js';
import { Field, FormError, SubmitActions } from '../ui.js';

export function TwoFactor(props: { enabled: boolean }) {
  const queryClient = useQueryClient();
  const [recoveryCodes, setRecoveryCodes] = useState<string[] | null>(null);
  const done = () => queryClient.invalidateQueries({ queryKey: queryKeys.me() });
  return (
    <section aria-labelledby="two-factor-heading">
      <h2 id="two-factor-heading">Two-factor authentication</h2>
      {recoveryCodes ? (
        <RecoveryCodes codes={recoveryCodes} onDone={() => setRecoveryCodes(null)} />
      ) : props.enabled ? (
        <Disable onDisabled={done} />
      ) : (
        <SetUp
          onEnabled={(codes) => {
            setRecoveryCodes(codes);
            return done();
          }}
        />
      )}
    </section>
  );
}

/** The otpauth URL as a QR code image (a data: URL, which the pages' CSP allows). */
function QrCode(props: { url: string }) {
  const [image, setImage] = useState<string | null>(null);
  useEffect(() => {
    let live = true;
    import('qrcode')
      .then((qr) => qr.toDataURL(props.url, { margin: 2, width: 192, errorCorrectionLevel: 'M' }))
      .then((data) => live && setImage(data))
      .catch(() => live && setImage(null));
    return () => {
      live = false;
    };
  }, [props.url]);
  return image ? (
    <img className="qr-code" src={image} alt="QR code to add this account to an authenticator app" />
  ) : null;
}

function SetUp(props: { onEnabled: (recoveryCodes: string[]) => void }) {
  const [setup, setSetup] = useState<TwoFactorSetup | null>(null);
  const [code, setCode] = useState('');
  const start = useMutation({
    mutationFn: () => unwrap(authed.POST('/api/auth/2fa/setup')),
    onSuccess: setSetup,
  });
  const enable = useMutation({
    mutationFn: () =>
      unwrap(authed.POST('/api/auth/2fa/enable', { body: { code: code.replace(/\s/g, '') } })),
    onSuccess: (answer) => props.onEnabled(answer.recoveryCodes),
  });
  const secretId = useId();
  if (!setup)
    return (
      <>
        <p>
          Off. With two-factor on, signing in also asks for a code from an authenticator app on your phone.
        </p>
        {start.isError ? <FormError error={start.error} shown={[]} /> : null}
        <div className="actions">
          <button type="button" className="primary" disabled={start.isPending} onClick={() => start.mutate()}>
            Set up two-factor
          </button>
        </div>
      </>
    );
  return (
    <form aria-label="Confirm two-factor" onSubmit={submitted(enable.mutate)}>
      <p>Scan this code with your authenticator app, or type the secret into it.</p>
      <QrCode url={setup.otpauthUrl} />
      <p>
        Secret:{' '}
        <code id={secretId} className="secret-text">
          {setup.secret}
        </code>
      </p>
      <Field
        name="enableCode"
        label="Code from the app"
        autoComplete="one-time-code"
        inputMode="numeric"
        value={code}
        error={fieldErrors(enable.error).code}
        onChange={setCode}
      />
      {enable.isError ? <FormError error={enable.error} shown={['code']} /> : null}
      <SubmitActions pending={enable.isPending} label="Turn on two-factor" />
    </form>
  );
}

/** The recovery codes, this once, with a copy button. */
function RecoveryCodes(props: { codes: string[]; onDone: () => void }) {
  const [copied, setCopied] = useState<'yes' | 'no' | null>(null);
  return (
    <section className="notice secret" aria-labelledby="recovery-heading">
      <h3 id="recovery-heading">Two-factor is on: store your recovery codes</h3>
      <p>
        Each code signs you in once if you lose your phone. They are shown only now: copy them somewhere safe.
      </p>
      <ul className="recovery-codes" id="recovery-codes">
        {props.codes.map((c) => (
          <li key={c}>
            <code>{c}</code>
          </li>
        ))}
      </ul>
      <div className="actions">
        <button
          type="button"
          className="primary"
          onClick={() =>
            navigator.clipboard.writeText(props.codes.join('\n')).then(
              () => setCopied('yes'),
              () => setCopied('no'),
            )
          }
        >
          Copy recovery codes
        </button>
        <button type="button" className="secondary" onClick={props.onDone}>
          I have stored them
        </button>
      </div>
      <Status>
        {copied === 'yes'
          ? 'Copied.'
          : copied === 'no'
            ? 'The browser refused to copy: select the codes.'
            : ''}
      </Status>
    </section>
  );
}

function Disable(props: { onDisabled: () => void }) {
  const [form, setForm] = useState({ password: '', code: '' });
  const disable = useMutation({
    mutationFn: () =>
      unwrap(
        authed
          .POST('/api/auth/2fa/disable', {
            body: { password: form.password, code: form.code.replace(/\s/g, '') },
          })
          .then(noBody),
      ),
    onSuccess: props.onDisabled,
  });
  const errors = fieldErrors(disable.error);
  return (
    <form aria-label="Turn off two-factor" onSubmit={submitted(disable.mutate)}>
      <p>On: signing in asks for a code from your authenticator app.</p>
      <p className="hint">To turn it off, confirm with your password and a current code.</p>
      <Field
        name="disablePassword"
        label="Password"
        type="password"
        autoComplete="current-password"
        value={form.password}
        error={errors.password}
        onChange={(password) => setForm((f) => ({ ...f, password }))}
      />
      <Field
        name="disableCode"
        label="Code from the app"
        autoComplete="one-time-code"
        inputMode="numeric"
        value={form.code}
        error={errors.code}
        onChange={(code) => setForm((f) => ({ ...f, code }))}
      />
      {disable.isError ? <FormError error={disable.error} shown={['password', 'code']} /> : null}
      <div className="actions">
        <button type="submit" className="danger secondary" disabled={disable.isPending}>
          Turn off two-factor
        </button>
      </div>
    </form>
  );
}
