// What the reservations screens read: the catalogue's names, and every reservation of a query
// (GET /api/reservations takes several statuses, a range and `q`: customer name, email or reference).
import { unwrap } from '../../api/client.js';
import { useResources, useResourceTypes } from '../../api/hooks.js';
import { authed } from '../../api/session.js';
import type { Reservation, ReservationStatus } from '../../api/types.js';

/** The filters a list or week is read with, as GET /api/reservations takes them. */
export interface ListFilter {
  resourceTypeId?: number;
  resourceId?: number;
  /** Comma-separated statuses. */
  status?: string;
  q?: string;
}

export const STATUSES: ReservationStatus[] = ['held', 'pending_payment', 'confirmed', 'cancelled', 'expired'];
export const statusWords = (s: ReservationStatus) => s.replace('_', ' ');

/** Statuses that keep their time: what is (or may soon be) booked. */
export const LIVE_STATUSES: ReservationStatus[] = ['held', 'pending_payment', 'confirmed'];

export function useCatalogue() {
  const types = useResourceTypes();
  const resources = useResources();
  return {
    types: types.data ?? [],
    resources: resources.data ?? [],
    /** Whether `types` is the organisation's list (not the empty one while it loads). */
    typesLoaded: types.isSuccess,
    typeName: (id: number | null) => types.data?.find((t) => t.id === id)?.name ?? null,
    resourceName: (id: number | null) =>
      id === null ? null : (resources.data?.find((r) => r.id === id)?.name ?? `Resource ${id}`),
  };
}

/** A reservation's type and every resource it takes, by name (a collective one names them all). */
export function whatOf(
  r: Pick<Reservation, 'resourceTypeId' | 'resourceIds'>,
  catalogue: ReturnType<typeof useCatalogue>,
): string[] {
  const names = [
    catalogue.typeName(r.resourceTypeId),
    ...r.resourceIds.map((id) => catalogue.resourceName(id)),
  ];
  return names.filter((name): name is string => Boolean(name));
}

type Query = ListFilter & { from?: string; to?: string };

/** One page of a query, from `cursor`. */
export function listPage(query: Query, cursor: string | undefined, limit = 50) {
  return unwrap(
    authed.GET('/api/reservations', {
      params: { query: { ...query, limit, ...(cursor ? { cursor } : {}) } as never },
    }),
  );
}

/** Every reservation of a query, following the list's cursor (a week rarely needs a second page). */
export async function listAll(query: Query): Promise<Reservation[]> {
  const out: Reservation[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < 20; page++) {
    const answer = await listPage(query, cursor, 200);
    out.push(...answer.items);
    if (!answer.nextCursor) break;
    cursor = answer.nextCursor;
  }
  return out;
}
