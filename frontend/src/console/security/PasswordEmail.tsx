// Changing the password (the other sessions end) and the email address (a link goes to the new
// address, a notice to the old; the address changes when the link is opened).
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { noBody, unwrap } from '../../api/client.js';
import { fieldErrors } from '../../api/errors.js';
import { queryKeys } from '../../api/queryKeys.js';
import { authed } from '../../api/session.js';
import { Status } from '../account-ui.js';
import { Field, FormError } from '../ui.js';

const PASSWORD_FIELDS = ['currentPassword', 'newPassword'];

export function ChangePassword() {
  const queryClient = useQueryClient();
  const [form, setForm] = useState({ currentPassword: '', newPassword: '', repeat: '' });
  const [mismatch, setMismatch] = useState(false);
  const change = useMutation({
    mutationFn: () =>
      unwrap(
        authed
          .POST('/api/auth/password', {
            body: { currentPassword: form.currentPassword, newPassword: form.newPassword },
          })
          .then(noBody),
      ),
    onSuccess: () => {
      setForm({ currentPassword: '', newPassword: '', repeat: '' });
      return queryClient.invalidateQueries({ queryKey: queryKeys.sessions() });
    },
  });
  const errors = fieldErrors(change.error);
  const set = (key: keyof typeof form) => (value: string) => setForm((f) => ({ ...f, [key]: value }));
  return (
    <form
      aria-labelledby="password-heading"
      onSubmit={(e: FormEvent) => {
        e.preventDefault();
        const differ = form.newPassword !== form.repeat;
        setMismatch(differ);
        if (!differ) change.mutate();
      }}
    >
      <h2 id="password-heading">Password</h2>
      <Field
        name="currentPassword"
        label="Current password"
        type="password"
        autoComplete="current-password"
        value={form.currentPassword}
        error={errors.currentPassword}
        onChange={set('currentPassword')}
      />
      <Field
        name="newPassword"
        label="New password (at least 10 characters)"
        type="password"
        autoComplete="new-password"
        value={form.newPassword}
        error={errors.newPassword}
        onChange={set('newPassword')}
      />
      <Field
        name="repeatPassword"
        label="New password again"
        type="password"
        autoComplete="new-password"
        value={form.repeat}
        error={mismatch ? 'The two new passwords differ.' : undefined}
        onChange={set('repeat')}
      />
      {change.isError ? <FormError error={change.error} shown={PASSWORD_FIELDS} /> : null}
      <Status>
        {change.isSuccess && !change.isPending ? 'Password changed. Your other sessions were ended.' : ''}
      </Status>
      <div className="actions">
        <button type="submit" className="primary" disabled={change.isPending}>
          Change password
        </button>
      </div>
    </form>
  );
}

const EMAIL_FIELDS = ['newEmail', 'password'];

export function ChangeEmail() {
  const [form, setForm] = useState({ newEmail: '', password: '' });
  const [sentTo, setSentTo] = useState<string | null>(null);
  const change = useMutation({
    mutationFn: () => unwrap(authed.POST('/api/auth/email', { body: form }).then(noBody)),
    onSuccess: () => {
      setSentTo(form.newEmail);
      setForm({ newEmail: '', password: '' });
    },
  });
  const errors = fieldErrors(change.error);
  const set = (key: keyof typeof form) => (value: string) => setForm((f) => ({ ...f, [key]: value }));
  return (
    <form
      aria-labelledby="email-heading"
      onSubmit={(e: FormEvent) => {
        e.preventDefault();
        change.mutate();
      }}
    >
      <h2 id="email-heading">Change email address</h2>
      <Field
        name="newEmail"
        label="New email address"
        type="email"
        autoComplete="email"
        value={form.newEmail}
        error={errors.newEmail}
        onChange={set('newEmail')}
      />
      <Field
        name="password"
        label="Your password"
        type="password"
        autoComplete="current-password"
        value={form.password}
        error={errors.password}
        onChange={set('password')}
      />
      {change.isError ? <FormError error={change.error} shown={EMAIL_FIELDS} /> : null}
      <Status>
        {change.isSuccess && sentTo
          ? `We sent a link to ${sentTo}. Your address changes when you open it.`
          : ''}
      </Status>
      <div className="actions">
        <button type="submit" className="primary" disabled={change.isPending}>
          Change email
        </button>
      </div>
    </form>
  );
}
