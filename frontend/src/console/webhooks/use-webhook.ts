// What can be done to a webhook endpoint: pause or resume, send a test event, send a delivery again.
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { unwrap } from '../../api/client.js';
import { queryKeys } from '../../api/queryKeys.js';
import { authed } from '../../api/session.js';

export function useWebhookActions(orgId: number, webhookId: number) {
  const queryClient = useQueryClient();
  const path = { id: orgId, webhookId };
  const refreshDeliveries = () =>
    queryClient.invalidateQueries({ queryKey: queryKeys.deliveries(orgId, webhookId) });
  const setStatus = useMutation({
    mutationFn: (status: 'active' | 'paused') =>
      unwrap(
        authed.PATCH('/api/organisations/{id}/webhooks/{webhookId}', { params: { path }, body: { status } }),
      ),
    onSuccess: (updated) => {
      queryClient.setQueryData(queryKeys.webhook(orgId, webhookId), updated);
      return queryClient.invalidateQueries({ queryKey: queryKeys.webhooks(orgId) });
    },
  });
  const sendTest = useMutation({
    mutationFn: () =>
      unwrap(authed.POST('/api/organisations/{id}/webhooks/{webhookId}/test', { params: { path } })),
    onSuccess: refreshDeliveries,
  });
  const retry = useMutation({
    mutationFn: (deliveryId: number) =>
      unwrap(
        authed.POST('/api/organisations/{id}/webhooks/{webhookId}/deliveries/{deliveryId}/retry', {
          params: { path: { ...path, deliveryId } },
        }),
      ),
    onSuccess: refreshDeliveries,
  });
  return { setStatus, sendTest, retry };
}

export type WebhookActions = ReturnType<typeof useWebhookActions>;
