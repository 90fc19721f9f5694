// The queries more than one screen reads, one hook each: the same key and call wherever it is
// read, so the screens share one cached answer. `options` only ever holds values set on purpose
// (an `undefined` there would replace the app's default staleTime).
import { useQuery } from '@tanstack/react-query';
import { api, unwrap } from './client.js';
import { queryKeys } from './queryKeys.js';
import { authed } from './session.js';

interface Options {
  enabled?: boolean;
  staleTime?: number;
}

/** An organisation's booking page: its types and resources (public). */
export function usePublicCatalogue(slug: string | null) {
  return useQuery({
    queryKey: queryKeys.catalogue(slug),
    enabled: slug !== null,
    queryFn: () => unwrap(api.GET('/api/public/organisations/{slug}', { params: { path: { slug: slug! } } })),
  });
}

/** The signed-in person as the API knows them. */
export const useMe = () =>
  useQuery({ queryKey: queryKeys.me(), queryFn: () => unwrap(authed.GET('/api/auth/me')) });

/** The signed-in person's organisations. */
export const useOrganisations = (options: Options = {}) =>
  useQuery({
    queryKey: queryKeys.organisations(),
    queryFn: () => unwrap(authed.GET('/api/organisations')),
    ...options,
  });

/**
 * The person's organisations and the active one: the types, resources and reservations routes
 * act on the active organisation, so every screen names it.
 */
export function useActiveOrganisation() {
  const list = useOrganisations();
  return { ...list, active: list.data?.find((o) => o.isActiveOrganisation) ?? null };
}

/** The active organisation's members and open invitations. */
export const useMembers = (orgId: number) =>
  useQuery({
    queryKey: queryKeys.members(orgId),
    queryFn: () =>
      unwrap(authed.GET('/api/organisations/{id}/users/list', { params: { path: { id: orgId } } })),
  });

/** The active organisation's types. */
export const useResourceTypes = (options: Options = {}) =>
  useQuery({
    queryKey: queryKeys.resourceTypes(),
    queryFn: () => unwrap(authed.GET('/api/resource-types')),
    ...options,
  });

/** The active organisation's resources (`orgId`: the organisation schedule's own copy). */
export const useResources = (orgId?: number) =>
  useQuery({ queryKey: queryKeys.resources(orgId), queryFn: () => unwrap(authed.GET('/api/resources')) });

/** A resource's schedule as every level above it resolves it. */
export const useResourceSchedule = (id: number, options: Options = {}) =>
  useQuery({
    queryKey: queryKeys.resourceSchedule(id),
    queryFn: () => unwrap(authed.GET('/api/resources/{id}/schedule', { params: { path: { id } } })),
    ...options,
  });

/** The person's agents. */
export const useAgents = () =>
  useQuery({
    queryKey: queryKeys.agents(),
    queryFn: () => unwrap(authed.GET('/api/agents')),
    // Each agent's lastUsedAt moves while the person is away.
    staleTime: 0,
  });

/** One agent. */
export const useAgent = (id: number, options: Options = {}) =>
  useQuery({
    queryKey: queryKeys.agent(id),
    queryFn: () => unwrap(authed.GET('/api/agents/{id}', { params: { path: { id } } })),
    ...options,
  });

/** Every action an agent may be allowed. */
export const useAgentCatalog = () =>
  useQuery({
    queryKey: queryKeys.agentCatalog(),
    queryFn: () => unwrap(authed.GET('/api/agents/catalog')),
    staleTime: 60_000,
  });

/** The built-in permission presets. */
export const usePermissionGroups = () =>
  useQuery({
    queryKey: queryKeys.permissionGroups(),
    queryFn: () => unwrap(authed.GET('/api/agents/permission-groups')),
    staleTime: 60_000,
  });

/** The catalogue and the presets, both needed to show or edit an agent's permissions. */
export function usePermissionData() {
  const catalog = useAgentCatalog();
  const groups = usePermissionGroups();
  return {
    catalog: catalog.data,
    groups: groups.data,
    isPending: catalog.isPending || groups.isPending,
    error: catalog.error ?? groups.error,
  };
}

/** An agent's keys (labels and use, never the secrets). */
export const useAgentKeys = (id: number) =>
  useQuery({
    queryKey: queryKeys.agentKeys(id),
    queryFn: () => unwrap(authed.GET('/api/agents/{id}/keys', { params: { path: { id } } })),
    staleTime: 0,
  });

/** An agent's policy: its limits and what needs the owner's approval. */
export const useAgentPolicy = (id: number) =>
  useQuery({
    queryKey: queryKeys.agentPolicy(id),
    queryFn: () => unwrap(authed.GET('/api/agents/{id}/policy', { params: { path: { id } } })),
  });

/** One approval request; while approved and running, looked at again until its outcome comes. */
export const useApproval = (id: number) =>
  useQuery({
    queryKey: queryKeys.approval(id),
    queryFn: () => unwrap(authed.GET('/api/approvals/{id}', { params: { path: { id } } })),
    staleTime: 0,
    refetchInterval: (q) => (q.state.data?.status === 'approved' ? 2000 : false),
  });

/** A reservation of the active organisation. */
export const useReservation = (id: number) =>
  useQuery({
    queryKey: queryKeys.reservation(id),
    queryFn: () => unwrap(authed.GET('/api/reservations/{id}', { params: { path: { id } } })),
  });

/** The organisation's payment connection as the provider reports it (owners and admins only). */
export const usePaymentStatus = (orgId: number, options: Options = {}) =>
  useQuery({
    queryKey: queryKeys.paymentStatus(orgId),
    queryFn: () =>
      unwrap(authed.GET('/api/organisations/{id}/payment/status', { params: { path: { id: orgId } } })),
    ...options,
  });

/** The organisation's webhook endpoints. */
export const useWebhooks = (orgId: number) =>
  useQuery({
    queryKey: queryKeys.webhooks(orgId),
    queryFn: () =>
      unwrap(authed.GET('/api/organisations/{id}/webhooks', { params: { path: { id: orgId } } })).then(
        (a) => a.items,
      ),
  });

/** One webhook endpoint. */
export const useWebhook = (orgId: number, webhookId: number) =>
  useQuery({
    queryKey: queryKeys.webhook(orgId, webhookId),
    queryFn: () =>
      unwrap(
        authed.GET('/api/organisations/{id}/webhooks/{webhookId}', {
          params: { path: { id: orgId, webhookId } },
        }),
      ),
  });

/** An endpoint's recent deliveries; while one waits to be sent, looked at again soon. */
export const useDeliveries = (orgId: number, webhookId: number) =>
  useQuery({
    queryKey: queryKeys.deliveries(orgId, webhookId),
    queryFn: () =>
      unwrap(
        authed.GET('/api/organisations/{id}/webhooks/{webhookId}/deliveries', {
          params: { path: { id: orgId, webhookId } },
        }),
      ),
    refetchInterval: (q) => (q.state.data?.items.some((d) => d.status === 'pending') ? 2000 : false),
  });
