// Passkeys: the person's registered ones (name, added, last used), a new one added from this
// device, one deleted. SimpleWebAuthn loads only when a passkey is added.
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { usePasskeys } from '../../api/account-hooks.js';
import { ApiError, noBody, unwrap } from '../../api/client.js';
import { errorText, fieldErrors } from '../../api/errors.js';
import { queryKeys } from '../../api/queryKeys.js';
import { authed } from '../../api/session.js';
import { Status } from '../account-ui.js';
import { submitted } from '../form-state.js';
import { Field, FormError, LoadError, Loading, SubmitActions } from '../ui.js';

const when = (iso: string | null | undefined) => (iso ? new Date(iso).toLocaleString() : 'never');
const nameOf = (passkey: { name: string | null }) => passkey.name ?? 'Unnamed passkey';

/** Asks the browser for a new passkey and registers it under `name`. */
async function addPasskey(name: string) {
  const { startRegistration } = await import('@simplewebauthn/browser');
  const options = await unwrap(authed.POST('/api/auth/passkeys/register/options'));
  const response = await startRegistration({ optionsJSON: options });
  return unwrap(
    authed.POST('/api/auth/passkeys/register/verify', { body: { ...response, ...(name ? { name } : {}) } }),
  );
}

/** Words for an add that did not finish: the browser's refusal is not the API's. */
const addError = (error: unknown) =>
  error instanceof ApiError
    ? errorText(error)
    : 'The browser did not create a passkey (cancelled, timed out, or this device has one for this account already).';

export function Passkeys() {
  const queryClient = useQueryClient();
  const list = usePasskeys();
  const refresh = () => queryClient.invalidateQueries({ queryKey: queryKeys.passkeys() });
  const remove = useMutation({
    mutationFn: (id: number) =>
      unwrap(authed.DELETE('/api/auth/passkeys/{id}', { params: { path: { id } } }).then(noBody)),
    onSettled: refresh,
  });
  return (
    <section aria-labelledby="passkeys-heading">
      <h2 id="passkeys-heading">Passkeys</h2>
      <p className="hint">A passkey signs you in with this device's screen lock instead of your password.</p>
      {list.isPending ? <Loading /> : null}
      {list.isError ? <LoadError error={list.error} /> : null}
      {list.data && list.data.length === 0 ? <p className="empty">No passkeys yet.</p> : null}
      {list.data && list.data.length > 0 ? (
        <ul className="record-list" aria-label="Your passkeys">
          {list.data.map((p) => (
            <li key={p.id}>
              <div>
                <strong>{nameOf(p)}</strong>
                <div className="hint">
                  Added {when(p.createdAt)}, last used {when(p.lastUsedAt)}
                </div>
              </div>
              <button
                type="button"
                className="danger secondary"
                aria-label={`Delete passkey ${nameOf(p)}`}
                disabled={remove.isPending}
                onClick={() => remove.mutate(p.id)}
              >
                Delete
              </button>
            </li>
          ))}
        </ul>
      ) : null}
      {remove.isError ? <LoadError error={remove.error} /> : null}
      <Status>{remove.isSuccess && !remove.isPending ? 'Passkey deleted.' : ''}</Status>
      <AddPasskey onAdded={refresh} />
    </section>
  );
}

function AddPasskey(props: { onAdded: () => Promise<void> }) {
  const [name, setName] = useState('');
  const add = useMutation({
    mutationFn: () => addPasskey(name.trim()),
    onSuccess: () => {
      setName('');
      return props.onAdded();
    },
  });
  return (
    <form aria-label="Add a passkey" onSubmit={submitted(add.mutate)}>
      <Field
        name="passkeyName"
        label="Name of the new passkey (e.g. work laptop)"
        autoComplete="off"
        required={false}
        value={name}
        error={fieldErrors(add.error).name}
        onChange={setName}
      />
      {add.isError && add.error instanceof ApiError ? <FormError error={add.error} shown={['name']} /> : null}
      {add.isError && !(add.error instanceof ApiError) ? (
        <p role="alert" className="error">
          {addError(add.error)}
        </p>
      ) : null}
      <Status>{add.isSuccess && !add.isPending ? 'Passkey added.' : ''}</Status>
      <SubmitActions pending={add.isPending} label="Add a passkey" />
    </form>
  );
}
