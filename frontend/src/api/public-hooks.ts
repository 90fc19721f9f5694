// What the public pages read without a session, one hook each: a booking page's free times, and a
// reservation, its series and a waitlist entry by their manage token.
import { useQuery } from '@tanstack/react-query';
import { api, unwrap } from './client.js';
import { queryKeys } from './queryKeys.js';

/** What free times are asked for: one resource, or a type's pool. */
export type AvailabilityTarget = { resourceId: number } | { resourceTypeId: number };

/** A booking page's free times in `range` (none asked while `range` is null). */
export const usePublicAvailability = (
  slug: string,
  target: AvailabilityTarget,
  range: { from: string; to: string } | null,
) =>
  useQuery({
    queryKey: queryKeys.publicAvailability(slug, target, range),
    enabled: range !== null,
    queryFn: () =>
      unwrap(
        api.GET('/api/public/organisations/{slug}/availability', {
          params: { path: { slug }, query: { ...target, ...range! } },
        }),
      ),
  });

/** The reservation a manage link names. */
export const useManagedReservation = (token: string) =>
  useQuery({
    queryKey: queryKeys.managed(token),
    queryFn: () => unwrap(api.GET('/api/public/reservations/{token}', { params: { path: { token } } })),
    // A payment just made is confirmed by the provider's webhook: look again until it lands.
    refetchInterval: (q) => (q.state.data?.status === 'pending_payment' ? 3000 : false),
  });

/**
 * The waitlist entry a manage link names (asked only while `enabled`); `polling`: while it waits,
 * look for the offer now and then.
 */
export const useWaitlistEntry = (token: string, enabled: boolean, polling: boolean) =>
  useQuery({
    queryKey: queryKeys.waitlist(token),
    enabled,
    queryFn: () => unwrap(api.GET('/api/public/waitlist/{token}', { params: { path: { token } } })),
    refetchInterval: (q) => (polling && q.state.data?.status === 'waiting' ? 30_000 : false),
  });

/** Every date of the series the manage link's reservation belongs to. */
export const useSeries = (token: string) =>
  useQuery({
    queryKey: queryKeys.series(token),
    queryFn: () =>
      unwrap(api.GET('/api/public/reservations/{token}/series', { params: { path: { token } } })),
  });
