// A collective booking from the console (DECISIONS.md "Teams"): two to five resources taken
// together for one time, one reservation. The resources offered, their order as the booking
// sends them (the first one's type decides the customer's fields: the chosen type's first),
// and the times every one of them is free (GET /api/availability?resourceIds=).
import { useQuery } from '@tanstack/react-query';
import { unwrap } from '../../api/client.js';
import { queryKeys } from '../../api/queryKeys.js';
import { authed } from '../../api/session.js';
import type { Resource, ResourceType } from '../../api/types.js';
import { type BookableTime, bookableTimes, dayKey, instantOf } from '../../lib/time.js';
import { addDays } from '../week.js';

/** The Resource field's choice for a collective booking. */
export const TOGETHER = 'together';
export const MIN_TOGETHER = 2;
export const MAX_TOGETHER = 5;

/** The resources a collective booking may name: active, no lane, of a type that is not only a pool. */
export function togetherCandidates(
  resources: Resource[],
  types: ResourceType[],
  type: ResourceType | undefined,
): Resource[] {
  const pooledOnly = new Set(types.filter((t) => t.bookingMode === 'POOL').map((t) => t.id));
  const named = resources.filter(
    (r) => r.isActive && r.parentResourceId === null && !pooledOnly.has(r.resourceTypeId),
  );
  const ofType = (r: Resource) => (r.resourceTypeId === type?.id ? 0 : 1);
  return [...named].sort((a, b) => ofType(a) - ofType(b));
}

/** The chosen resources in the order the booking sends them: the chosen type's first. */
export function togetherOrder(
  ids: number[],
  resources: Resource[],
  type: ResourceType | undefined,
): number[] {
  const ofType = (id: number) => (resources.find((r) => r.id === id)?.resourceTypeId === type?.id ? 0 : 1);
  return [...ids].sort((a, b) => ofType(a) - ofType(b));
}

/** The times of `day` (in `zone`) when every one of `ids` is free, for a booking as long as the type's. */
export function useTogetherTimes(type: ResourceType | undefined, ids: number[], day: string, zone: string) {
  const from = instantOf(`${day}T00:00`, zone);
  const to = instantOf(`${addDays(day, 1)}T00:00`, zone);
  return useQuery({
    queryKey: queryKeys.staffAvailability(type?.id, `${TOGETHER}:${ids.join(',')}`, day),
    enabled: Boolean(type && ids.length >= MIN_TOGETHER && from && to),
    queryFn: async (): Promise<BookableTime[]> => {
      const answer = await unwrap(
        authed.GET('/api/availability', {
          params: { query: { resourceIds: ids.join(','), from: from!, to: to! } },
        }),
      );
      const windows = answer.windows.map((w) => ({ start: w.startTime, end: w.endTime, freeLanes: 1 }));
      return bookableTimes({ windows }, type!.minBookingDuration, Date.now()).filter(
        (t) => dayKey(t.start, zone) === day,
      );
    },
  });
}
