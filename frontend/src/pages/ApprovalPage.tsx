// The approval page (`/approvals/<id>`, or `/approvals?id=<id>`; DECISIONS.md "Agents acting
// safely"): the owner signs in, reads what their agent asked to do, and approves or denies it.
import { useCallback, useEffect, useState } from 'react';
import { useParams, useSearchParams } from 'react-router';
import { ApiError, unwrap } from '../api/client.js';
import { messageOf } from '../api/errors.js';
import { asSignedIn, authed, type Credentials, SignedOut, signIn } from '../api/session.js';
import type { Approval } from '../api/types.js';
import {
  AccountPage,
  type Announcer,
  Loading,
  SignInForm,
  useAnnouncer,
  useFocus,
  usePageTitle,
} from './account-page.js';
import { ApprovalView } from './approval/ApprovalView.js';
import { outcomeOf } from './approval/approval-text.js';

type View =
  | { name: 'loading' }
  | { name: 'signin' }
  | { name: 'approval' }
  | { name: 'failure'; message: string };

/** The id from the path, else from `?id=`; null when neither is a plain number. */
function useApprovalId(): number | null {
  const { id: fromPath } = useParams();
  const [query] = useSearchParams();
  const id = fromPath ?? query.get('id') ?? '';
  return /^\d{1,10}$/.test(id) ? Number(id) : null;
}

/** The request as loaded for the signed-in owner, and the view that shows it (or why it cannot). */
function useApprovalLoad(id: number | null, focus: (id: string) => void) {
  const [view, setView] = useState<View>({ name: 'loading' });
  const [approval, setApproval] = useState<Approval | null>(null);
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
  return { view, show, approval, setApproval, load };
}

type ApprovalLoad = ReturnType<typeof useApprovalLoad>;

/** Signing in and deciding, each announced; `busy` while either runs. */
function useApprovalActions(loaded: ApprovalLoad, announcer: Announcer, focus: (id: string) => void) {
  const { announce, alertError } = announcer;
  const { approval, setApproval, show, load } = loaded;
  const [busy, setBusy] = useState(false);

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
  return { busy, onSignIn, decide };
}

export default function ApprovalPage() {
  const id = useApprovalId();
  const announcer = useAnnouncer();
  const focus = useFocus();
  const loaded = useApprovalLoad(id, focus);
  const { view, approval } = loaded;
  usePageTitle(approval ? `Approve ${approval.agentName}’s request` : "Approve an agent's request");
  const { busy, onSignIn, decide } = useApprovalActions(loaded, announcer, focus);

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
        <ApprovalView approval={approval} busy={busy} onDecide={decide} />
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
