// Invitations to the signed-in person (the invitation mail links here): accept or decline each.
// Invitations by email are listed and accepted only once the person's address is verified.
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useInvitations } from '../../api/account-hooks.js';
import { ApiError, noBody, unwrap } from '../../api/client.js';
import { errorText } from '../../api/errors.js';
import { useMe } from '../../api/hooks.js';
import { queryKeys } from '../../api/queryKeys.js';
import { authed } from '../../api/session.js';
import type { ReceivedInvitation } from '../../api/types.js';
import { formatDateTime, visitorZone } from '../../lib/time.js';
import { Status } from '../account-ui.js';
import { LoadError, Loading } from '../ui.js';
import { ResendVerification } from './VerifyBanner.js';

const roleWords = (role: string) => role[0] + role.slice(1).toLowerCase();

/** Accepting and declining an invitation, each refreshing what it changes. */
function useInvitationAnswers() {
  const queryClient = useQueryClient();
  const accept = useMutation({
    mutationFn: (invitation: ReceivedInvitation) =>
      unwrap(
        authed.POST('/api/organisations/{id}/invitation/accept', {
          params: { path: { id: invitation.organisationId } },
        }),
      ),
    // A new membership (and maybe a new active organisation): every screen is stale.
    onSuccess: () => queryClient.invalidateQueries(),
  });
  const decline = useMutation({
    mutationFn: (invitation: ReceivedInvitation) =>
      unwrap(
        authed
          .POST('/api/organisations/{id}/invitation/decline', {
            params: { path: { id: invitation.organisationId } },
          })
          .then(noBody),
      ),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: queryKeys.invitations() }),
  });
  return { accept, decline };
}

export default function Invitations() {
  const me = useMe();
  const list = useInvitations();
  const { accept, decline } = useInvitationAnswers();
  const unverified = me.data?.emailVerified === false;
  return (
    <main className="page">
      <h1>Invitations</h1>
      {unverified && me.data ? (
        // A div: the resend control answers in a paragraph of its own, which a <p> cannot hold.
        <div className="notice">
          Invitations sent to your email address show here once you have verified it: open the link we mailed
          to {me.data.email}. <ResendVerification email={me.data.email} />
        </div>
      ) : null}
      {list.isPending ? <Loading /> : null}
      {list.isError ? <LoadError error={list.error} /> : null}
      {list.data && list.data.length === 0 ? <p className="empty">No open invitations.</p> : null}
      {list.data && list.data.length > 0 ? (
        <ul className="record-list" aria-label="Open invitations">
          {list.data.map((invitation) => (
            <InvitationRow
              key={invitation.organisationId}
              invitation={invitation}
              busy={accept.isPending || decline.isPending}
              onAccept={() => accept.mutate(invitation)}
              onDecline={() => decline.mutate(invitation)}
            />
          ))}
        </ul>
      ) : null}
      <Refusal error={accept.error ?? decline.error} email={me.data?.email} />
      <Status>
        {accept.isSuccess && !accept.isPending ? `You joined ${accept.data.name}.` : ''}
        {decline.isSuccess && !decline.isPending ? 'Invitation declined.' : ''}
      </Status>
    </main>
  );
}

function InvitationRow(props: {
  invitation: ReceivedInvitation;
  busy: boolean;
  onAccept: () => void;
  onDecline: () => void;
}) {
  const { invitation, busy } = props;
  return (
    <li>
      <div>
        <strong>{invitation.organisationName}</strong>{' '}
        <span className="hint">as {roleWords(invitation.role)}</span>
        <div className="hint">
          {invitation.invitedByName ? `From ${invitation.invitedByName}; ` : ''}open until{' '}
          {formatDateTime(invitation.expiresAt, visitorZone())}
        </div>
      </div>
      <div className="member-actions">
        <button
          type="button"
          className="primary"
          aria-label={`Accept the invitation to ${invitation.organisationName}`}
          disabled={busy}
          onClick={props.onAccept}
        >
          Accept
        </button>
        <button
          type="button"
          className="secondary"
          aria-label={`Decline the invitation to ${invitation.organisationName}`}
          disabled={busy}
          onClick={props.onDecline}
        >
          Decline
        </button>
      </div>
    </li>
  );
}

/** Why an accept or decline was refused; an unverified address, with the verification mail again. */
function Refusal(props: { error: unknown; email: string | undefined }) {
  const { error, email } = props;
  if (error instanceof ApiError && error.code === 'EMAIL_NOT_VERIFIED' && email)
    return (
      <div role="alert" className="error">
        <p>
          Verify your email first: open the link we mailed to {email}. <ResendVerification email={email} />
        </p>
      </div>
    );
  if (!error) return null;
  return (
    <p role="alert" className="error">
      {errorText(error)}
    </p>
  );
}
