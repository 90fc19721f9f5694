// What can be done to the organisation's people: change a member's role, remove a member (or
// leave), withdraw an invitation. Each refreshes the members list.
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { unwrap } from '../../api/client.js';
import { queryKeys } from '../../api/queryKeys.js';
import { authed } from '../../api/session.js';
import type { MemberOrInvitation } from '../../api/types.js';

export type Role = MemberOrInvitation['role'];

/** `me`: the signed-in person, whose leaving makes every cached answer stale. */
export function useMemberActions(orgId: number, me: number | undefined, onRemoved: () => void) {
  const queryClient = useQueryClient();
  const refresh = () => queryClient.invalidateQueries({ queryKey: queryKeys.members(orgId) });
  const changeRole = useMutation({
    mutationFn: (change: { userId: number; role: Role }) =>
      unwrap(
        authed.PATCH('/api/organisations/{id}/users/{userId}/role', {
          params: { path: { id: orgId, userId: change.userId } },
          body: { role: change.role },
        }),
      ),
    onSettled: refresh,
  });
  const remove = useMutation({
    mutationFn: (userId: number) =>
      unwrap(
        authed
          .DELETE('/api/organisations/{id}/users/{userId}', { params: { path: { id: orgId, userId } } })
          .then((r) => ({ ...r, data: r.response.ok ? {} : undefined })),
      ),
    onSuccess: (_, userId) => {
      onRemoved();
      // Leaving changes the person's organisations and the active one: everything is stale.
      return userId === me ? queryClient.invalidateQueries() : refresh();
    },
  });
  const withdraw = useMutation({
    mutationFn: (invitationId: number) =>
      unwrap(
        authed
          .DELETE('/api/organisations/{id}/invitations/{invitationId}', {
            params: { path: { id: orgId, invitationId } },
          })
          .then((r) => ({ ...r, data: r.response.ok ? {} : undefined })),
      ),
    onSuccess: refresh,
  });
  return { refresh, changeRole, remove, withdraw };
}

export type MemberActions = ReturnType<typeof useMemberActions>;
