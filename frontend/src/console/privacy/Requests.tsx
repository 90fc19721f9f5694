// The person's data-subject requests (access, export, erasure): the list, cancel while pending,
// and a new request.
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { usePrivacyRequests } from '../../api/account-hooks.js';
import { unwrap } from '../../api/client.js';
import { errorText, fieldErrors } from '../../api/errors.js';
import { queryKeys } from '../../api/queryKeys.js';
import { authed } from '../../api/session.js';
import type { PrivacyRequest } from '../../api/types.js';
import { Status } from '../account-ui.js';
import { submitted } from '../form-state.js';
import { Field, FormError, LoadError, Loading, Select, SubmitActions, TextArea } from '../ui.js';
import { REQUEST_WORDS, STATUS_WORDS, when } from './privacy-words.js';

export function RequestSection() {
  const queryClient = useQueryClient();
  const requests = usePrivacyRequests();
  const cancel = useMutation({
    mutationFn: (id: number) =>
      unwrap(authed.POST('/api/compliance/me/privacy/requests/{id}/cancel', { params: { path: { id } } })),
    onSettled: () => queryClient.invalidateQueries({ queryKey: queryKeys.privacyRequests() }),
  });
  const list = requests.data?.items ?? [];
  return (
    <section aria-labelledby="requests-heading">
      <h2 id="requests-heading">Your requests</h2>
      <p className="hint">
        The service's operators work through requests; erasure cannot be undone once done.
      </p>
      {requests.isPending ? <Loading /> : null}
      {requests.isError ? <LoadError error={requests.error} /> : null}
      {requests.data && list.length === 0 ? <p className="empty">No requests yet.</p> : null}
      {list.length > 0 ? (
        <ul className="record-list requests">
          {list.map((r) => (
            <li key={r.id}>
              <span>
                <strong>{REQUEST_WORDS[r.requestType]}</strong>{' '}
                <span className={`badge request-${r.status}`}>{STATUS_WORDS[r.status]}</span>{' '}
                <span className="hint">
                  asked {when(r.createdAt)}
                  {r.resolution ? ` · ${r.resolution}` : ''}
                </span>
              </span>
              {r.status === 'pending' ? (
                <button
                  type="button"
                  className="secondary"
                  disabled={cancel.isPending}
                  onClick={() => cancel.mutate(r.id)}
                >
                  Cancel request {r.id}
                </button>
              ) : null}
            </li>
          ))}
        </ul>
      ) : null}
      {requests.data && requests.data.total > list.length ? (
        <p className="hint">
          The newest {list.length} of {requests.data.total}.
        </p>
      ) : null}
      {cancel.isError ? (
        <p role="alert" className="error">
          {errorText(cancel.error)}
        </p>
      ) : null}
      <NewRequest />
    </section>
  );
}

type RequestType = PrivacyRequest['requestType'];

/** The new request as typed, and sending it (which empties the reason and email). */
function useNewRequest() {
  const queryClient = useQueryClient();
  const [form, setForm] = useState({ requestType: 'access' as RequestType, reason: '', confirmEmail: '' });
  const create = useMutation({
    mutationFn: () =>
      unwrap(
        authed.POST('/api/compliance/me/privacy/requests', {
          body: {
            requestType: form.requestType,
            reason: form.reason.trim() || null,
            confirmEmail: form.confirmEmail.trim() || null,
          },
        }),
      ),
    onSuccess: () => {
      setForm((f) => ({ ...f, reason: '', confirmEmail: '' }));
      return queryClient.invalidateQueries({ queryKey: queryKeys.privacyRequests() });
    },
  });
  const set = (change: Partial<typeof form>) => setForm((f) => ({ ...f, ...change }));
  return { form, set, create };
}

function NewRequest() {
  const { form, set, create } = useNewRequest();
  const errors = fieldErrors(create.error);
  return (
    <form noValidate aria-labelledby="new-request" onSubmit={submitted(create.mutate)}>
      <h3 id="new-request">New request</h3>
      <Select
        name="requestType"
        label="What you ask for"
        value={form.requestType}
        error={errors.requestType}
        onChange={(requestType) => set({ requestType: requestType as RequestType })}
      >
        {(Object.keys(REQUEST_WORDS) as RequestType[]).map((t) => (
          <option key={t} value={t}>
            {REQUEST_WORDS[t]}
          </option>
        ))}
      </Select>
      <TextArea
        name="reason"
        label="Reason (optional)"
        value={form.reason}
        error={errors.reason}
        onChange={(reason) => set({ reason })}
      />
      <Field
        name="confirmEmail"
        label="Your account's email, to confirm (optional)"
        type="email"
        autoComplete="email"
        required={false}
        value={form.confirmEmail}
        error={errors.confirmEmail}
        onChange={(confirmEmail) => set({ confirmEmail })}
      />
      {create.isError ? (
        <FormError error={create.error} shown={['requestType', 'reason', 'confirmEmail']} />
      ) : null}
      <Status>{create.isSuccess && !create.isPending ? 'Request sent.' : ''}</Status>
      <SubmitActions pending={create.isPending} label="Send request" />
    </form>
  );
}
