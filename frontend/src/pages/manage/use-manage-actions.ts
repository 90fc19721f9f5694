// What the manage page can do to a reservation: confirm, cancel and move it. Each answer replaces
// the cached reservation at once, so the page shows the new state without asking again.
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useCallback, useEffect } from 'react';
import { ApiError, api, idempotencyKey, unwrap } from '../../api/client.js';
import { queryKeys } from '../../api/queryKeys.js';
import type { ManagedReservation } from '../../api/types.js';
import type { BookableTime } from '../../lib/time.js';
import type { Outcome } from './manage-outcome.js';

/** A hold or unpaid booking whose time ran out: looked at again when it does, so the page never offers it. */
function useRefetchAtExpiry(r: ManagedReservation, refetch: () => void) {
  const waiting = r.status === 'held' || r.status === 'pending_payment';
  useEffect(() => {
    if (!waiting || !r.expiresAt) return;
    const wait = Math.min(Math.max(Date.parse(r.expiresAt) - Date.now() + 1000, 0), 2 ** 31 - 1);
    const timer = setTimeout(refetch, wait);
    return () => clearTimeout(timer);
  }, [waiting, r.expiresAt, refetch]);
}

const holdExpired = (error: unknown) => error instanceof ApiError && error.code === 'HOLD_EXPIRED';

/** `onSettled` hears each change made (or a hold found expired: `null`), so the page resets its mode. */
export function useManageActions(
  token: string,
  r: ManagedReservation,
  onSettled: (outcome: Outcome | null) => void,
) {
  const queryClient = useQueryClient();
  const refetch = useCallback(
    () => void queryClient.invalidateQueries({ queryKey: queryKeys.managed(token) }),
    [queryClient, token],
  );
  useRefetchAtExpiry(r, refetch);
  const settle = (next: ManagedReservation, done: Outcome) => {
    queryClient.setQueryData(queryKeys.managed(token), next);
    if (next.seriesId !== null) void queryClient.invalidateQueries({ queryKey: queryKeys.series(token) });
    onSettled(done);
  };
  // A hold that ran out is expired: shown so at once, and read again for the rest.
  const onRefused = (error: unknown) => {
    if (!holdExpired(error)) return;
    queryClient.setQueryData(queryKeys.managed(token), { ...r, status: 'expired' as const, expiresAt: null });
    onSettled(null);
    refetch();
  };
  const confirm = useMutation({
    mutationFn: () =>
      unwrap(api.POST('/api/public/reservations/{token}/confirm', { params: { path: { token } } })),
    onSuccess: (next) => {
      if (next.status === 'pending_payment' && next.payment?.checkoutUrl)
        location.assign(next.payment.checkoutUrl);
      else settle(next, { kind: 'confirmed' });
    },
    onError: onRefused,
  });
  const cancel = useMutation({
    mutationFn: () =>
      unwrap(api.POST('/api/public/reservations/{token}/cancel', { params: { path: { token } } })),
    onSuccess: (next) => settle(next, { kind: 'cancelled', before: r, after: next }),
    onError: onRefused,
  });
  const reschedule = useMutation({
    mutationFn: (at: BookableTime) =>
      unwrap(
        api.POST('/api/public/reservations/{token}/reschedule', {
          params: { path: { token }, header: { 'idempotency-key': idempotencyKey() } },
          body: { startTime: at.start, endTime: at.end },
        }),
      ),
    onSuccess: (next) => settle(next, { kind: 'moved', start: next.startTime }),
  });
  return { confirm, cancel, reschedule };
}

export type ManageActions = ReturnType<typeof useManageActions>;
