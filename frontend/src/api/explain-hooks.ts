// Why times can or cannot be booked (the explain routes), for the console's troubleshooter:
// one call per hour of a day, the hours of one target read together as one query.
import { useQueries } from '@tanstack/react-query';
import { unwrap } from './client.js';
import { queryKeys } from './queryKeys.js';
import { authed } from './session.js';
import type { Explanation } from './types.js';

/** What is explained: every resource of a type, or one resource (its lanes pooled). */
export interface ExplainTarget {
  kind: 'type' | 'resource';
  id: number;
}

/** A span of time asked about, as ISO instants. */
export interface Hour {
  start: string;
  end: string;
}

function explainOnce(target: ExplainTarget, hour: Hour): Promise<Explanation> {
  const params = { path: { id: target.id }, query: { startTime: hour.start, endTime: hour.end } };
  return unwrap(
    target.kind === 'type'
      ? authed.GET('/api/resource-types/{id}/availability/explain', { params })
      : authed.GET('/api/resources/{id}/availability/explain', { params }),
  );
}

/**
 * Each target's explanations of `hours`, in their order (one call per hour, all at once).
 * Read afresh on every visit: a booking made elsewhere changes the answer.
 */
export const useExplanations = (targets: ExplainTarget[], hours: Hour[]) =>
  useQueries({
    queries: targets.map((target) => ({
      queryKey: queryKeys.explanations(target.kind, target.id, hours[0]?.start ?? ''),
      enabled: hours.length > 0,
      staleTime: 0,
      queryFn: () => Promise.all(hours.map((hour) => explainOnce(target, hour))),
    })),
  });
