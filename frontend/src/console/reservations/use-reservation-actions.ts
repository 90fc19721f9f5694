// What staff can do to a reservation: cancel and move (each optionally
// past the type's rules). Each answer replaces the cached reservation and refreshes the lists.
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { idempotencyKey, unwrap } from '../../api/client.js';
import { queryKeys } from '../../api/queryKeys.js';
import { authed } from '../../api/session.js';
import type { Reservation } from '../../api/types.js';

export interface MoveTarget {
  start: string;
  end: string;
  resourceId: number | null;
  overrideRules?: boolean;
}

/** `currentResourceId`: the reservation's resource, sent again only when a move changes it. */
export function useReservationActions(
  id: number,
  currentResourceId: number | null | undefined,
  onDone: () => void,
) {
  const queryClient = useQueryClient();
  const done = (r: Reservation) => {
    queryClient.setQueryData(queryKeys.reservation(id), r);
    onDone();
    return queryClient.invalidateQueries({ queryKey: queryKeys.reservations() });
  };
  const cancel = useMutation({
    mutationFn: (overrideRules: boolean) =>
      unwrap(
        authed.POST('/api/reservations/{id}/cancel', {
          params: { path: { id } },
          body: overrideRules ? { overrideRules } : {},
        }),
      ),
    onSuccess: done,
  });
  const reschedule = useMutation({
    mutationFn: (to: MoveTarget) =>
      unwrap(
        authed.POST('/api/reservations/{id}/reschedule', {
          params: { path: { id }, header: { 'idempotency-key': idempotencyKey() } },
          body: {
            startTime: to.start,
            endTime: to.end,
            ...(to.resourceId !== null && to.resourceId !== currentResourceId
              ? { resourceId: to.resourceId }
              : {}),
            ...(to.overrideRules ? { overrideRules: true } : {}),
          },
        }),
      ) as Promise<Reservation>,
    onSuccess: done,
  });
  return { cancel, reschedule };
}

export type ReservationActions = ReturnType<typeof useReservationActions>;
