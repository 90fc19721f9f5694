// The organisation's payment connection as the provider reports it, and what can be done to it:
// onboarding and the dashboard (both send the browser to the provider), and disconnecting.
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { unwrap } from '../../api/client.js';
import { usePaymentStatus } from '../../api/hooks.js';
import { queryKeys } from '../../api/queryKeys.js';
import { authed } from '../../api/session.js';
import type { Organisation } from '../../api/types.js';
import { isAdmin } from './roles.js';

export function usePaymentConnection(org: Organisation) {
  const queryClient = useQueryClient();
  const status = usePaymentStatus(org.id, { enabled: isAdmin(org.role) });
  // Both links send the browser to the provider; it comes back here when onboarding is done.
  const onboard = useMutation({
    mutationFn: () =>
      unwrap(
        authed.POST('/api/organisations/{id}/payment/onboarding-link', { params: { path: { id: org.id } } }),
      ),
    onSuccess: (link) => window.location.assign(link.url),
  });
  const dashboard = useMutation({
    mutationFn: () =>
      unwrap(
        authed.POST('/api/organisations/{id}/payment/dashboard-link', { params: { path: { id: org.id } } }),
      ),
    onSuccess: (link) => window.location.assign(link.url),
  });
  /** Whether the disconnect is being confirmed. */
  const [confirming, setConfirming] = useState(false);
  const disconnect = useMutation({
    mutationFn: () =>
      unwrap(authed.POST('/api/organisations/{id}/payment/disconnect', { params: { path: { id: org.id } } })),
    onSuccess: (answer) => {
      setConfirming(false);
      queryClient.setQueryData(queryKeys.paymentStatus(org.id), answer);
    },
  });
  return { status, onboard, dashboard, disconnect, confirming, setConfirming };
}

export type PaymentConnectionState = ReturnType<typeof usePaymentConnection>;
