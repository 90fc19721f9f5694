// Members and invitations of the active organisation: invite by email, change a member's
// role, remove a member, withdraw an invitation. The API decides who may do what (an ADMIN
// manages MANAGERs and MEMBERs, never the last OWNER); its refusals are shown in words.
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { unwrap } from '../../api/client.js';
import { errorText, fieldErrors } from '../../api/errors.js';
import { useActiveOrganisation, useMembers } from '../../api/hooks.js';
import { queryKeys } from '../../api/queryKeys.js';
import { authed, useSession } from '../../api/session.js';
import type { MemberOrInvitation, Organisation } from '../../api/types.js';
import { formatDateTime } from '../../lib/time.js';
import { NoActive } from '../catalogue/Catalogue.js';
import { submitted } from '../form-state.js';
import { Field, FormError, LoadError, Loading, SubmitActions } from '../ui.js';

type Role = MemberOrInvitation['role'];
const ROLES: Role[] = ['OWNER', 'ADMIN', 'MANAGER', 'MEMBER'];
const roleWords = (role: Role) => role[0] + role.slice(1).toLowerCase();

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
  const queryClient = useQueryClient();
  const list = useMembers(org.id);
  const refresh = () => queryClient.invalidateQueries({ queryKey: queryKeys.members(org.id) });
  /** Who each invitation by email went to: the list does not say, the invite's answer names its id. */
  const [invitedEmails, setInvitedEmails] = useState<Record<number, string>>({});
  const [email, setEmail] = useState('');
  const invite = useMutation({
    mutationFn: () =>
      unwrap(
        authed.POST('/api/organisations/{id}/users', { params: { path: { id: org.id } }, body: { email } }),
      ),
    onSuccess: (invitation) => {
      setInvitedEmails((m) => ({ ...m, [invitation.invitationId]: email }));
      setEmail('');
      return refresh();
    },
  });
  const changeRole = useMutation({
    mutationFn: (change: { userId: number; role: Role }) =>
      unwrap(
        authed.PATCH('/api/organisations/{id}/users/{userId}/role', {
          params: { path: { id: org.id, userId: change.userId } },
          body: { role: change.role },
        }),
      ),
    onSettled: refresh,
  });
  const [removing, setRemoving] = useState<number | null>(null);
  const remove = useMutation({
    mutationFn: (userId: number) =>
      unwrap(
        authed
          .DELETE('/api/organisations/{id}/users/{userId}', { params: { path: { id: org.id, userId } } })
          .then((r) => ({ ...r, data: r.response.ok ? {} : undefined })),
      ),
    onSuccess: (_, userId) => {
      setRemoving(null);
      // Leaving changes the person's organisations and the active one: everything is stale.
      return userId === me ? queryClient.invalidateQueries() : refresh();
    },
  });
  const withdraw = useMutation({
    mutationFn: (invitationId: number) =>
      unwrap(
        authed
          .DELETE('/api/organisations/{id}/invitations/{invitationId}', {
            params: { path: { id: org.id, invitationId } },
          })
          .then((r) => ({ ...r, data: r.response.ok ? {} : undefined })),
      ),
    onSuccess: refresh,
  });
  const members = (list.data ?? []).flatMap((m) => (m.status === 'active' ? [m] : []));
  const invitations = (list.data ?? []).flatMap((m) => (m.status === 'invited' ? [m] : []));
  const inviteErrors = fieldErrors(invite.error);
  return (
    <main className="page">
      <h1>Members</h1>
      <p className="hint">The people of {org.name} and what each may do.</p>
      {list.isPending ? <Loading /> : null}
      {list.isError ? <LoadError error={list.error} /> : null}
      {(
        [
          ['role', changeRole],
          ['remove', remove],
          ['withdraw', withdraw],
        ] as const
      ).map(([name, m]) =>
        m.isError ? (
          <p role="alert" className="error" key={name}>
            {errorText(m.error)}
          </p>
        ) : null,
      )}
      {members.length ? (
        <ul className="record-list members">
          {members.map((m) => (
            <li key={m.userId}>
              <div>
                <strong>{m.name}</strong>
                {m.userId === me ? ' (you)' : ''} <span className="hint">{m.email}</span>
              </div>
              <div className="member-actions">
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
                {removing === m.userId ? (
                  <>
                    <button
                      type="button"
                      className="primary danger"
                      disabled={remove.isPending}
                      onClick={() => remove.mutate(m.userId)}
                    >
                      {m.userId === me ? 'Yes, leave' : `Yes, remove ${m.name}`}
                    </button>
                    <button type="button" className="secondary" onClick={() => setRemoving(null)}>
                      Keep
                    </button>
                  </>
                ) : (
                  <button
                    type="button"
                    className="secondary danger"
                    aria-label={m.userId === me ? 'Leave the organisation' : `Remove ${m.name}`}
                    onClick={() => {
                      remove.reset();
                      setRemoving(m.userId);
                    }}
                  >
                    {m.userId === me ? 'Leave' : 'Remove'}
                  </button>
                )}
              </div>
            </li>
          ))}
        </ul>
      ) : null}
      <h2>Invitations</h2>
      {list.data && invitations.length === 0 ? <p className="empty">No open invitations.</p> : null}
      {invitations.length ? (
        <ul className="record-list invitations">
          {invitations.map((i) => (
            <li key={i.invitationId}>
              <div>
                <strong>
                  {invitedEmails[i.invitationId] ?? (i.userId ? `Account ${i.userId}` : 'By email')}
                </strong>{' '}
                <span className="hint">
                  {roleWords(i.role)} · until {formatDateTime(i.expiresAt, org.timezone)}
                </span>
              </div>
              <button
                type="button"
                className="secondary"
                disabled={withdraw.isPending}
                aria-label={`Withdraw the invitation ${invitedEmails[i.invitationId] ?? i.invitationId}`}
                onClick={() => withdraw.mutate(i.invitationId)}
              >
                Withdraw
              </button>
            </li>
          ))}
        </ul>
      ) : null}
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
    </main>
  );
}
