// Members and invitations of the active organisation: invite by email, change a member's
// role, remove a member, withdraw an invitation. The API decides who may do what (an ADMIN
// manages MANAGERs and MEMBERs, never the last OWNER); its refusals are shown in words.
import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { unwrap } from '../../api/client.js';
import { fieldErrors } from '../../api/errors.js';
import { useActiveOrganisation, useMembers } from '../../api/hooks.js';
import { authed, useSession } from '../../api/session.js';
import type { MemberOrInvitation, Organisation } from '../../api/types.js';
import { formatDateTime } from '../../lib/time.js';
import { NoActive } from '../catalogue/Catalogue.js';
import { submitted } from '../form-state.js';
import { Field, FormError, LoadError, Loading, RequestErrors, SubmitActions } from '../ui.js';
import { type MemberActions, type Role, useMemberActions } from './use-member-actions.js';

const ROLES: Role[] = ['OWNER', 'ADMIN', 'MANAGER', 'MEMBER'];
const roleWords = (role: Role) => role[0] + role.slice(1).toLowerCase();
type Member = Extract<MemberOrInvitation, { status: 'active' }>;
type Invitation = Extract<MemberOrInvitation, { status: 'invited' }>;

export default function Members() {
  const org = useActiveOrganisation();
  if (org.isPending) return <Loading />;
  if (org.isError) return <LoadError error={org.error} />;
  if (!org.active) return <NoActive />;
  return <MemberScreen org={org.active} />;
}

function MemberScreen(props: { org: Organisation }) {
  const { org } = props;
  const me = useSession()?.user.id;
  const list = useMembers(org.id);
  /** Who each invitation by email went to: the list does not say, the invite's answer names its id. */
  const [invitedEmails, setInvitedEmails] = useState<Record<number, string>>({});
  const [removing, setRemoving] = useState<number | null>(null);
  const actions = useMemberActions(org.id, me, () => setRemoving(null));
  const members = (list.data ?? []).flatMap((m) => (m.status === 'active' ? [m] : []));
  const invitations = (list.data ?? []).flatMap((m) => (m.status === 'invited' ? [m] : []));
  return (
    <main className="page">
      <h1>Members</h1>
      <p className="hint">The people of {org.name} and what each may do.</p>
      {list.isPending ? <Loading /> : null}
      {list.isError ? <LoadError error={list.error} /> : null}
      <RequestErrors
        requests={{ role: actions.changeRole, remove: actions.remove, withdraw: actions.withdraw }}
      />
      {members.length ? (
        <ul className="record-list members">
          {members.map((m) => (
            <MemberRow
              key={m.userId}
              member={m}
              me={me}
              actions={actions}
              removing={removing === m.userId}
              onRemoving={(on) => setRemoving(on ? m.userId : null)}
            />
          ))}
        </ul>
      ) : null}
      <h2>Invitations</h2>
      {list.data && invitations.length === 0 ? <p className="empty">No open invitations.</p> : null}
      {invitations.length ? (
        <ul className="record-list invitations">
          {invitations.map((i) => (
            <InvitationRow
              key={i.invitationId}
              invitation={i}
              email={invitedEmails[i.invitationId]}
              zone={org.timezone}
              actions={actions}
            />
          ))}
        </ul>
      ) : null}
      <InviteForm
        orgId={org.id}
        onInvited={(id, email) => {
          setInvitedEmails((m) => ({ ...m, [id]: email }));
          return actions.refresh();
        }}
      />
    </main>
  );
}

function MemberRow(props: {
  member: Member;
  me: number | undefined;
  actions: MemberActions;
  /** Whether the remove is being confirmed. */
  removing: boolean;
  onRemoving: (on: boolean) => void;
}) {
  const { member: m, me, actions } = props;
  return (
    <li>
      <div>
        <strong>{m.name}</strong>
        {m.userId === me ? ' (you)' : ''} <span className="hint">{m.email}</span>
      </div>
      <div className="member-actions">
        <RoleSelect member={m} changeRole={actions.changeRole} />
        <RemoveMember
          member={m}
          me={me}
          remove={actions.remove}
          removing={props.removing}
          onRemoving={props.onRemoving}
        />
      </div>
    </li>
  );
}

function RoleSelect(props: { member: Member; changeRole: MemberActions['changeRole'] }) {
  const { member: m, changeRole } = props;
  return (
    <>
      <label className="visually-hidden" htmlFor={`role-${m.userId}`}>
        Role of {m.name}
      </label>
      <select
        id={`role-${m.userId}`}
        value={m.role}
        disabled={changeRole.isPending}
        onChange={(e) => changeRole.mutate({ userId: m.userId, role: e.target.value as Role })}
      >
        {ROLES.map((r) => (
          <option key={r} value={r}>
            {roleWords(r)}
          </option>
        ))}
      </select>
    </>
  );
}

/** Remove (or leave), confirmed by a second button. */
function RemoveMember(props: {
  member: Member;
  me: number | undefined;
  remove: MemberActions['remove'];
  removing: boolean;
  onRemoving: (on: boolean) => void;
}) {
  const { member: m, me, remove, onRemoving } = props;
  const userId = m.userId;
  if (props.removing)
    return (
      <>
        <button
          type="button"
          className="primary danger"
          disabled={remove.isPending}
          onClick={() => remove.mutate(userId)}
        >
          {userId === me ? 'Yes, leave' : `Yes, remove ${m.name}`}
        </button>
        <button type="button" className="secondary" onClick={() => onRemoving(false)}>
          Keep
        </button>
      </>
    );
  return (
    <button
      type="button"
      className="secondary danger"
      aria-label={userId === me ? 'Leave the organisation' : `Remove ${m.name}`}
      onClick={() => {
        remove.reset();
        onRemoving(true);
      }}
    >
      {userId === me ? 'Leave' : 'Remove'}
    </button>
  );
}

function InvitationRow(props: {
  invitation: Invitation;
  /** The address it went to, when this screen sent it. */
  email: string | undefined;
  zone: string;
  actions: MemberActions;
}) {
  const { invitation: i, email, zone } = props;
  const { withdraw } = props.actions;
  const invitationId = i.invitationId;
  return (
    <li>
      <div>
        <strong>{email ?? (i.userId ? `Account ${i.userId}` : 'By email')}</strong>{' '}
        <span className="hint">
          {roleWords(i.role)} · until {formatDateTime(i.expiresAt, zone)}
        </span>
      </div>
      <button
        type="button"
        className="secondary"
        disabled={withdraw.isPending}
        aria-label={`Withdraw the invitation ${email ?? invitationId}`}
        onClick={() => withdraw.mutate(invitationId)}
      >
        Withdraw
      </button>
    </li>
  );
}

function InviteForm(props: { orgId: number; onInvited: (invitationId: number, email: string) => unknown }) {
  const { orgId, onInvited } = props;
  const [email, setEmail] = useState('');
  const invite = useMutation({
    mutationFn: () =>
      unwrap(
        authed.POST('/api/organisations/{id}/users', { params: { path: { id: orgId } }, body: { email } }),
      ),
    onSuccess: (invitation) => {
      const sent = email;
      setEmail('');
      return onInvited(invitation.invitationId, sent);
    },
  });
  const inviteErrors = fieldErrors(invite.error);
  return (
    <>
      <h2>Invite someone</h2>
      <form noValidate onSubmit={submitted(invite.mutate)}>
        <Field
          name="email"
          label="Email"
          type="email"
          value={email}
          error={inviteErrors.email}
          hint="They join as a member once they accept; change their role here afterwards."
          onChange={setEmail}
        />
        {invite.isError ? <FormError error={invite.error} shown={['email']} /> : null}
        {invite.isSuccess ? (
          <p className="notice" role="status">
            Invitation sent.
          </p>
        ) : null}
        <SubmitActions pending={invite.isPending} label="Send invitation" />
      </form>
    </>
  );
}
