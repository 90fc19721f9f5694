// The organisation's requireTwoFactor (OWNER): its owners, admins and managers without
// two-factor are refused its staff screens until they set it up.
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link } from 'react-router';
import { ApiError, unwrap } from '../../api/client.js';
import { queryKeys } from '../../api/queryKeys.js';
import { authed } from '../../api/session.js';
import type { Organisation } from '../../api/types.js';
import { Status } from '../account-ui.js';
import { submitted } from '../form-state.js';
import { Check, FormError, SubmitActions } from '../ui.js';

export function RequireTwoFactor(props: { org: Organisation }) {
  const { org } = props;
  const queryClient = useQueryClient();
  const [required, setRequired] = useState(org.requireTwoFactor);
  const save = useMutation({
    mutationFn: () =>
      unwrap(
        authed.PATCH('/api/organisations/{id}', {
          params: { path: { id: org.id } },
          body: { requireTwoFactor: required },
        }),
      ),
    onSettled: () => queryClient.invalidateQueries({ queryKey: queryKeys.organisations() }),
  });
  return (
    <form aria-labelledby="require-two-factor-heading" onSubmit={submitted(save.mutate)}>
      <h3 id="require-two-factor-heading">Two-factor for staff</h3>
      <Check
        name="requireTwoFactor"
        label="Require two-factor authentication of owners, admins and managers"
        checked={required}
        onChange={setRequired}
      />
      <p className="hint">
        Until they turn it on under Security, they cannot open this organisation's staff screens.
      </p>
      {save.error instanceof ApiError && save.error.code === 'TWO_FACTOR_REQUIRED' ? (
        <p role="alert" className="error">
          Turn on two-factor for your own account first, or you would lock yourself out:{' '}
          <Link to="/app/security">Security</Link>.
        </p>
      ) : save.isError ? (
        <FormError error={save.error} shown={['requireTwoFactor']} />
      ) : null}
      <Status>{save.isSuccess && !save.isPending ? 'Saved.' : ''}</Status>
      <SubmitActions pending={save.isPending} label="Save two-factor setting" />
    </form>
  );
}
