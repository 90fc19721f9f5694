// Changing the password (the other sessions end) and the email address (a link goes to the new
// address, a notice to the old; the address changes when the link is opened).
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { noBody, unwrap } from '../../api/client.js';
import { fieldErrors } from '../../api/errors.js';
import { queryKeys } from '../../api/queryKeys.js';
import { authed } from '../../api/session.js';
import { Status } from '../account-ui.js';
import { submitted, useFormState } from '../form-state.js';
import { Field, FormError, SubmitActions } from '../ui.js';

const PASSWORD_FIELDS = ['currentPassword', 'newPassword'];

/** The password form's values and the change; the two new passwords must match before it is sent. */
function usePasswordChange() {
  const queryClient = useQueryClient();
  const {
    values: form,
    setValues: setForm,
    bind,
  } = useFormState({
    currentPassword: '',
    newPassword: '',
    repeatPassword: '',
  });
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
      setForm({ currentPassword: '', newPassword: '', repeatPassword: '' });
      return queryClient.invalidateQueries({ queryKey: queryKeys.sessions() });
    },
  });
  const submit = () => {
    const differ = form.newPassword !== form.repeatPassword;
    setMismatch(differ);
    if (!differ) change.mutate();
  };
  return { change, field: bind(fieldErrors(change.error)), mismatch, submit };
}

export function ChangePassword() {
  const { change, field, mismatch, submit } = usePasswordChange();
  return (
    <form aria-labelledby="password-heading" onSubmit={submitted(submit)}>
      <h2 id="password-heading">Password</h2>
      <Field
        label="Current password"
        type="password"
        autoComplete="current-password"
        {...field.text('currentPassword')}
      />
      <Field
        label="New password (at least 10 characters)"
        type="password"
        autoComplete="new-password"
        {...field.text('newPassword')}
      />
      <Field
        label="New password again"
        type="password"
        autoComplete="new-password"
        {...field.text('repeatPassword')}
        error={mismatch ? 'The two new passwords differ.' : undefined}
      />
      {change.isError ? <FormError error={change.error} shown={PASSWORD_FIELDS} /> : null}
      <Status>
        {change.isSuccess && !change.isPending ? 'Password changed. Your other sessions were ended.' : ''}
      </Status>
      <SubmitActions pending={change.isPending} label="Change password" />
    </form>
  );
}

const EMAIL_FIELDS = ['newEmail', 'password'];

export function ChangeEmail() {
  const { values: form, setValues: setForm, bind } = useFormState({ newEmail: '', password: '' });
  const [sentTo, setSentTo] = useState<string | null>(null);
  const change = useMutation({
    mutationFn: () => unwrap(authed.POST('/api/auth/email', { body: form }).then(noBody)),
    onSuccess: () => {
      setSentTo(form.newEmail);
      setForm({ newEmail: '', password: '' });
    },
  });
  const field = bind(fieldErrors(change.error));
  return (
    <form aria-labelledby="email-heading" onSubmit={submitted(change.mutate)}>
      <h2 id="email-heading">Change email address</h2>
      <Field label="New email address" type="email" autoComplete="email" {...field.text('newEmail')} />
      <Field
        label="Your password"
        type="password"
        autoComplete="current-password"
        {...field.text('password')}
      />
      {change.isError ? <FormError error={change.error} shown={EMAIL_FIELDS} /> : null}
      <Status>
        {change.isSuccess && sentTo
          ? `We sent a link to ${sentTo}. Your address changes when you open it.`
          : ''}
      </Status>
      <SubmitActions pending={change.isPending} label="Change email" />
    </form>
  );
}
