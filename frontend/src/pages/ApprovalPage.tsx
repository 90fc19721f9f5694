// The approval page (`/approvals/<id>`, or `/approvals?id=<id>`; DECISIONS.md "Agents acting
// safely"): the owner signs in, reads what their agent asked to do, and approves or denies it.
import { Fragment, useCallback, useEffect, useState } from 'react';
import { useParams, useSearchParams } from 'react-router';
import { ApiError, unwrap } from '../api/client.js';
import { messageOf } from '../api/errors.js';
import { asSignedIn, authed, type Credentials, SignedOut, signIn } from '../api/session.js';
import type { Approval } from '../api/types.js';
import { AccountPage, Loading, SignInForm, useAnnouncer, useFocus, usePageTitle } from './account-page.js';

type View =
  | { name: 'loading' }
  | { name: 'signin' }
  | { name: 'approval' }
  | { name: 'failure'; message: string };

const OUTCOMES: Record<Approval['status'], string> = {
  pending: 'Waiting for your decision.',
  approved: 'Approved: the call is running.',
  executed: 'Approved: the call ran.',
  failed: 'Approved, but the call failed',
  denied: 'Denied: the call never ran.',
  expired: 'Expired: it was not decided within 24 hours, and the call never ran.',
};

function outcomeOf(approval: Approval): string {
  let text = OUTCOMES[approval.status] ?? approval.status;
  const error = (approval.result as { error?: { message?: unknown } } | null)?.error;
  if (approval.status === 'failed' && typeof error?.message === 'string') text += `: ${error.message}`;
  return text;
}

const when = (iso: string | null) =>
  iso ? new Date(iso).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' }) : '';

const INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/;

/** "startTime" as "Start time", "customer.email" as "Customer email". */
function labelOf(path: string): string {
  const words = path
    .replaceAll('.', ' ')
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** One argument's value in words: instants in the reader's time, yes/no, lists joined. */
function valueText(value: unknown): string {
  if (value === null || value === undefined) return 'none';
  if (typeof value === 'boolean') return value ? 'yes' : 'no';
  if (typeof value === 'string') return INSTANT.test(value) ? `${when(value)} (${value})` : value;
  if (Array.isArray(value) && value.every((v) => typeof v !== 'object' || v === null))
    return value.map(valueText).join(', ');
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
}

/** The stored call's arguments as label and text rows, nested objects one row per field. */
function argumentRows(args: Record<string, unknown>, prefix = ''): [string, string][] {
  return Object.entries(args).flatMap(([key, value]): [string, string][] =>
    value !== null && typeof value === 'object' && !Array.isArray(value)
      ? argumentRows(value as Record<string, unknown>, `${prefix}${key}.`)
      : [[labelOf(`${prefix}${key}`), valueText(value)]],
  );
}

const customerText = (customer: Approval['customer']) =>
  customer ? [customer.name, customer.email].filter(Boolean).join(' · ') : '';

/** The id from the path, else from `?id=`; null when neither is a plain number. */
function useApprovalId(): number | null {
  const { id: fromPath } = useParams();
  const [query] = useSearchParams();
  const id = fromPath ?? query.get('id') ?? '';
  return /^\d{1,10}$/.test(id) ? Number(id) : null;
}

export default function ApprovalPage() {
  const id = useApprovalId();
  const announcer = useAnnouncer();
  const { announce, alertError } = announcer;
  const focus = useFocus();
  const [view, setView] = useState<View>({ name: 'loading' });
  const [approval, setApproval] = useState<Approval | null>(null);
  usePageTitle(approval ? `Approve ${approval.agentName}’s request` : "Approve an agent's request");
  const [busy, setBusy] = useState(false);

  const show = useCallback(
    (next: View) => {
      setView(next);
      focus(`${next.name}-title`);
    },
    [focus],
  );

  const load = useCallback(async () => {
    if (id === null) {
      show({ name: 'failure', message: 'This link does not name a request.' });
      return;
    }
    try {
      const found = await asSignedIn(() =>
        unwrap(authed.GET('/api/approvals/{id}', { params: { path: { id } } })),
      );
      setApproval(found);
      show({ name: 'approval' });
    } catch (error) {
      if (error instanceof SignedOut) show({ name: 'signin' });
      else if (error instanceof ApiError && error.status === 404)
        show({
          name: 'failure',
          message: 'There is no such request for your account. Sign in with the account that owns the agent.',
        });
      else show({ name: 'failure', message: messageOf(error) });
    }
  }, [id, show]);

  useEffect(() => {
    void load();
  }, [load]);

  async function onSignIn(credentials: Credentials) {
    setBusy(true);
    announce('Signing in…');
    try {
      await signIn(credentials);
    } finally {
      setBusy(false);
    }
    announce('Signed in.');
    await load();
  }

  async function decide(action: 'approve' | 'deny') {
    if (busy || !approval) return;
    alertError('');
    setBusy(true);
    announce(action === 'approve' ? 'Approving…' : 'Denying…');
    const path = action === 'approve' ? '/api/approvals/{id}/approve' : '/api/approvals/{id}/deny';
    let decided: Approval;
    try {
      decided = await asSignedIn(() => unwrap(authed.POST(path, { params: { path: { id: approval.id } } })));
    } catch (error) {
      setBusy(false);
      announce('');
      if (error instanceof SignedOut) {
        show({ name: 'signin' });
        return;
      }
      alertError(messageOf(error));
      // Decided elsewhere meanwhile: show where it stands now.
      if (error instanceof ApiError && error.status === 409) await load();
      return;
    }
    setBusy(false);
    setApproval(decided);
    announce(outcomeOf(decided));
    focus('approval-title');
  }

  return (
    <AccountPage busy={busy || view.name === 'loading'} announcer={announcer}>
      {view.name === 'loading' ? <Loading what="the request" /> : null}

      {view.name === 'signin' ? (
        <section id="view-signin" aria-labelledby="signin-title">
          <h1 id="signin-title" tabIndex={-1}>
            Sign in to review your agent's request
          </h1>
          <SignInForm busy={busy} announcer={announcer} onSignIn={onSignIn} />
        </section>
      ) : null}

      {view.name === 'approval' && approval ? (
        <section id="view-approval" aria-labelledby="approval-title">
          <h1 id="approval-title" tabIndex={-1}>
            {approval.agentName} asks to: <span id="summary">{approval.summary}</span>
          </h1>
          <dl className="summary">
            <dt>Status</dt>
            <dd id="approval-status">{approval.status}</dd>
            <dt>Agent</dt>
            <dd id="approval-agent">{approval.agentName}</dd>
            {approval.customer ? (
              <>
                <dt>Customer</dt>
                <dd id="approval-customer">{customerText(approval.customer)}</dd>
              </>
            ) : null}
            <dt>Tool</dt>
            <dd id="approval-action">
              <code>{approval.actionKey.replaceAll('.', '_')}</code>
            </dd>
            <dt>Asked</dt>
            <dd id="approval-created">{when(approval.createdAt)}</dd>
            <dt>Decide by</dt>
            <dd id="approval-expires">{when(approval.expiresAt)}</dd>
          </dl>
          <h2>The exact call</h2>
          {Object.keys(approval.arguments).length ? (
            <dl id="approval-call" className="summary">
              {argumentRows(approval.arguments).map(([label, text]) => (
                <Fragment key={label}>
                  <dt>{label}</dt>
                  <dd>{text}</dd>
                </Fragment>
              ))}
            </dl>
          ) : (
            <p id="approval-call">The tool is called without arguments.</p>
          )}
          <details className="call-details">
            <summary>As the agent sent it (JSON)</summary>
            <pre id="approval-arguments" className="arguments">
              {JSON.stringify(approval.arguments, null, 2)}
            </pre>
          </details>
          {approval.status === 'pending' ? (
            <div id="decision" className="actions decision">
              <button
                id="deny"
                type="button"
                className="secondary"
                disabled={busy}
                onClick={() => decide('deny')}
              >
                Deny
              </button>
              <button
                id="approve"
                type="button"
                className="primary"
                disabled={busy}
                onClick={() => decide('approve')}
              >
                Approve
              </button>
            </div>
          ) : (
            <p id="approval-outcome" className="notice">
              {outcomeOf(approval)}
            </p>
          )}
        </section>
      ) : null}

      {view.name === 'failure' ? (
        <section id="view-failure" aria-labelledby="failure-title">
          <h1 id="failure-title" tabIndex={-1}>
            This request cannot be shown
          </h1>
          <p id="failure-message" className="failure-message">
            {view.message}
          </p>
        </section>
      ) : null}
    </AccountPage>
  );
}
