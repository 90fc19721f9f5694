// What the troubleshooter looks at, as its address keeps it: a type's resources or up to three
// chosen ones, and the day.
import type { ResourceType } from '../../api/types.js';
import { dayKey } from '../../lib/time.js';

/** At most this many resources side by side. */
export const MAX_RESOURCES = 3;

/** What the address asks to look at: a type's resources, or chosen ones; and the day. */
export interface Pick {
  look: 'type' | 'resources';
  typeId: number | null;
  resourceIds: number[];
  day: string;
}

export function pickOf(params: URLSearchParams, zone: string, types: ResourceType[]): Pick {
  const resourceIds = (params.get('resources') ?? '')
    .split(',')
    .map(Number)
    .filter((id) => Number.isInteger(id) && id > 0)
    .slice(0, MAX_RESOURCES);
  const typeId = Number(params.get('type')) || (types[0]?.id ?? null);
  const look = params.get('look') === 'resources' || resourceIds.length > 0 ? 'resources' : 'type';
  return { look, typeId, resourceIds, day: params.get('day') || dayKey(Date.now(), zone) };
}

/** The pick as the address writes it. */
export function paramsOf(pick: Pick): Record<string, string> {
  return pick.look === 'type'
    ? { type: String(pick.typeId ?? ''), day: pick.day }
    : { look: 'resources', resources: pick.resourceIds.join(','), day: pick.day };
}
