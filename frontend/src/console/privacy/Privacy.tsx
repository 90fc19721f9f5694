// The privacy centre of the signed-in person: what the service holds about them (the access
// report), a download of every personal record (the export), their consent decisions and
// history, and their data-subject requests (access, export, erasure) with cancel while pending.

import { useInfiniteQuery, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { unwrap } from '../../api/client.js';
import { errorText, fieldErrors } from '../../api/errors.js';
import { queryKeys } from '../../api/queryKeys.js';
import { authed } from '../../api/session.js';
import type { AccessReport, Consent, ConsentType, PrivacyRequest } from '../../api/types.js';
import { Status } from '../account-ui.js';
import { Field, FormError, LoadError, Loading, Select, TextArea } from '../ui.js';
import { attachmentName, download } from './download.js';

const CONSENT_WORDS: Record<ConsentType, string> = {
  privacy_policy: 'Privacy policy',
  terms_of_service: 'Terms of service',
  marketing_email: 'Marketing email',
  data_processing: 'Data processing',
  cookie_analytics: 'Analytics cookies',
};
const CONSENT_TYPES = Object.keys(CONSENT_WORDS) as ConsentType[];
const REQUEST_WORDS: Record<PrivacyRequest['requestType'], string> = {
  access: 'A copy of what you hold about me (access)',
  export: 'My data in a portable file (export)',
  delete: 'Erase my account and data (delete)',
};
const when = (iso: string) => new Date(iso).toLocaleString();

export default function Privacy() {
  return (
    <main className="page">
      <h1>Privacy</h1>
      <p className="hint">Your own data, whichever organisation you work in.</p>
      <ExportSection />
      <AccessSection />
      <ConsentSection />
      <RequestSection />
    </main>
  );
}

function ExportSection() {
  const exportData = useMutation({
    mutationFn: async () => {
      const call = authed.GET('/api/compliance/me/privacy/export', { parseAs: 'blob' });
      const blob = await unwrap(call);
      const { response } = await call;
      const name = attachmentName(
        response.headers.get('content-disposition'),
        `privacy-export-${new Date().toISOString().slice(0, 10)}.json`,
      );
      download(blob, name);
      return name;
    },
  });
  return (
    <section aria-labelledby="export-heading">
      <h2 id="export-heading">Download your data</h2>
      <p>Every personal record the service keeps about you, as one JSON file.</p>
      {exportData.isError ? (
        <p role="alert" className="error">
          {errorText(exportData.error)}
        </p>
      ) : null}
      <Status>
        {exportData.isPending
          ? 'Preparing your file…'
          : exportData.isSuccess
            ? `Downloaded ${exportData.data}.`
            : ''}
      </Status>
      <div className="actions">
        <button
          type="button"
          className="primary"
          disabled={exportData.isPending}
          onClick={() => exportData.mutate()}
        >
          Download my data
        </button>
      </div>
    </section>
  );
}

function AccessSection() {
  const report = useQuery({
    queryKey: queryKeys.privacyAccess(),
    queryFn: () => unwrap(authed.GET('/api/compliance/me/privacy/access')),
  });
  return (
    <section aria-labelledby="access-heading">
      <h2 id="access-heading">What the service holds about you</h2>
      {report.isPending ? <Loading /> : null}
      {report.isError ? <LoadError error={report.error} /> : null}
      {report.data ? <AccessReportView report={report.data} /> : null}
    </section>
  );
}

function AccessReportView(props: { report: AccessReport }) {
  const { report } = props;
  const held = report.categories.filter((c) => c.count > 0);
  const { agents, oauthClients } = report.actingForYou;
  return (
    <>
      <p className="hint">As of {when(report.generatedAt)}.</p>
      {held.length === 0 ? <p className="empty">Nothing is held about you.</p> : null}
      {held.length > 0 ? (
        <ul className="record-list access-categories">
          {held.map((c) => (
            <li key={c.id}>
              <div>
                <strong>{c.label}</strong>{' '}
                <span className="hint">
                  {c.count} {c.count === 1 ? 'record' : 'records'}
                </span>
                <p className="category-detail">{c.purpose}</p>
                <p className="hint category-detail">Kept: {c.retention}</p>
              </div>
            </li>
          ))}
        </ul>
      ) : null}
      <h3>Acting for you</h3>
      {agents.length === 0 && oauthClients.length === 0 ? (
        <p className="empty">No agents or connected apps can act for you.</p>
      ) : (
        <ul className="record-list">
          {agents.map((a) => (
            <li key={`agent-${a.id}`}>
              <span>
                <strong>{a.name}</strong> <span className="hint">agent, {a.status}</span>
              </span>
              <span className="hint">
                {a.liveKeys} live {a.liveKeys === 1 ? 'key' : 'keys'}, last used{' '}
                {a.lastUsedAt ? when(a.lastUsedAt) : 'never'}
              </span>
            </li>
          ))}
          {oauthClients.map((c) => (
            <li key={`client-${c.clientId}-${c.agentId}`}>
              <span>
                <strong>{c.clientName ?? c.clientId}</strong> <span className="hint">connected app</span>
              </span>
              <span className="hint">until {when(c.expiresAt)}</span>
            </li>
          ))}
        </ul>
      )}
      <p className="hint">
        Privacy policy:{' '}
        {report.policyAcceptance
          ? `version ${report.policyAcceptance.version} accepted ${when(report.policyAcceptance.acceptedAt)}`
          : 'not accepted through this service'}
        .
      </p>
    </>
  );
}

function ConsentSection() {
  const queryClient = useQueryClient();
  const consents = useQuery({
    queryKey: queryKeys.privacyConsents(),
    queryFn: () => unwrap(authed.GET('/api/compliance/me/privacy/consents')),
  });
  const change = useMutation({
    mutationFn: (v: { type: ConsentType; decision: Consent['decision']; policyVersion: string }) =>
      unwrap(
        authed.PUT('/api/compliance/me/privacy/consents/{consentType}', {
          params: { path: { consentType: v.type } },
          body: { decision: v.decision, policyVersion: v.policyVersion, source: 'console' },
        }),
      ),
    onSuccess: () =>
      Promise.all(
        [queryKeys.privacyConsents(), queryKeys.privacyConsentHistory(), queryKeys.privacyAccess()].map(
          (queryKey) => queryClient.invalidateQueries({ queryKey }),
        ),
      ),
  });
  return (
    <section aria-labelledby="consent-heading">
      <h2 id="consent-heading">Consents</h2>
      {consents.isPending ? <Loading /> : null}
      {consents.isError ? <LoadError error={consents.error} /> : null}
      {consents.data ? (
        <ul className="record-list consents">
          {CONSENT_TYPES.map((type) => {
            const current = consents.data.find((c) => c.consentType === type);
            const accepted = current?.decision === 'accepted';
            // The API publishes no current policy version: a decision names the version of the last one.
            const policyVersion = current?.policyVersion ?? '1';
            return (
              <li key={type}>
                <span>
                  <strong>{CONSENT_WORDS[type]}</strong>{' '}
                  <span className="hint">
                    {current
                      ? `${accepted ? 'given' : 'withdrawn'} ${when(current.decidedAt)} (version ${current.policyVersion})`
                      : 'not decided'}
                  </span>
                </span>
                <button
                  type="button"
                  className="secondary"
                  disabled={change.isPending}
                  onClick={() =>
                    change.mutate({ type, decision: accepted ? 'revoked' : 'accepted', policyVersion })
                  }
                >
                  {accepted ? 'Withdraw' : 'Give'} consent: {CONSENT_WORDS[type]}
                </button>
              </li>
            );
          })}
        </ul>
      ) : null}
      {change.isError ? (
        <p role="alert" className="error">
          {errorText(change.error)}
        </p>
      ) : null}
      <Status>{change.isSuccess && !change.isPending ? 'Consent recorded.' : ''}</Status>
      <ConsentHistory />
    </section>
  );
}

function ConsentHistory() {
  const history = useInfiniteQuery({
    queryKey: queryKeys.privacyConsentHistory(),
    initialPageParam: undefined as string | undefined,
    queryFn: ({ pageParam }) =>
      unwrap(
        authed.GET('/api/compliance/me/privacy/consents/history', {
          params: { query: { limit: 20, ...(pageParam ? { cursor: pageParam } : {}) } },
        }),
      ),
    getNextPageParam: (last) => last.nextCursor ?? undefined,
  });
  const items = history.data?.pages.flatMap((p) => p.items) ?? [];
  return (
    <>
      <h3>History</h3>
      {history.isPending ? <Loading /> : null}
      {history.isError ? <LoadError error={history.error} /> : null}
      {history.data && items.length === 0 ? <p className="empty">No decisions yet.</p> : null}
      {items.length > 0 ? (
        <ul className="history">
          {items.map((c) => (
            <li key={`${c.consentType}-${c.decidedAt}-${c.decision}`}>
              {when(c.decidedAt)}: {CONSENT_WORDS[c.consentType]}{' '}
              {c.decision === 'accepted' ? 'given' : 'withdrawn'}{' '}
              <span className="hint">
                (version {c.policyVersion}
                {c.source ? `, through ${c.source}` : ''})
              </span>
            </li>
          ))}
        </ul>
      ) : null}
      {history.hasNextPage ? (
        <button
          type="button"
          className="secondary"
          disabled={history.isFetchingNextPage}
          onClick={() => history.fetchNextPage()}
        >
          Show older decisions
        </button>
      ) : null}
    </>
  );
}

const STATUS_WORDS: Record<PrivacyRequest['status'], string> = {
  pending: 'waiting',
  in_progress: 'being worked on',
  completed: 'done',
  rejected: 'rejected',
  cancelled: 'cancelled',
};

function RequestSection() {
  const queryClient = useQueryClient();
  const requests = useQuery({
    queryKey: queryKeys.privacyRequests(),
    queryFn: () =>
      unwrap(authed.GET('/api/compliance/me/privacy/requests', { params: { query: { limit: 50 } } })),
  });
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

function NewRequest() {
  const queryClient = useQueryClient();
  const [form, setForm] = useState({
    requestType: 'access' as PrivacyRequest['requestType'],
    reason: '',
    confirmEmail: '',
  });
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
  const errors = fieldErrors(create.error);
  return (
    <form
      noValidate
      aria-labelledby="new-request"
      onSubmit={(e: FormEvent) => {
        e.preventDefault();
        create.mutate();
      }}
    >
      <h3 id="new-request">New request</h3>
      <Select
        name="requestType"
        label="What you ask for"
        value={form.requestType}
        error={errors.requestType}
        onChange={(requestType) =>
          setForm((f) => ({ ...f, requestType: requestType as PrivacyRequest['requestType'] }))
        }
      >
        {(Object.keys(REQUEST_WORDS) as PrivacyRequest['requestType'][]).map((t) => (
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
        onChange={(reason) => setForm((f) => ({ ...f, reason }))}
      />
      <Field
        name="confirmEmail"
        label="Your account's email, to confirm (optional)"
        type="email"
        autoComplete="email"
        required={false}
        value={form.confirmEmail}
        error={errors.confirmEmail}
        onChange={(confirmEmail) => setForm((f) => ({ ...f, confirmEmail }))}
      />
      {create.isError ? (
        <FormError error={create.error} shown={['requestType', 'reason', 'confirmEmail']} />
      ) : null}
      <Status>{create.isSuccess && !create.isPending ? 'Request sent.' : ''}</Status>
      <div className="actions">
        <button type="submit" className="primary" disabled={create.isPending}>
          Send request
        </button>
      </div>
    </form>
  );
}
