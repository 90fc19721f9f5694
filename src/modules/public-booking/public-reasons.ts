import { DomainError, type ReasonDetail, withDetails } from '../../lib/errors.js';

/**
 * What a customer learns of why a time does not fit (docs/decisions.md): the reasons of the
 * schedule and the rules as staff see them, but what takes the time (another booking, a
 * hold, the buffer around one, the manager's calendar) only as UNAVAILABLE, the parts that
 * touch joined, so nothing tells whose time it is, or what.
 */
const PRIVATE_CODES = new Set(['BOOKED', 'HELD', 'BUFFER', 'CALENDAR_BUSY']);
const UNAVAILABLE = 'UNAVAILABLE';

/**
 * `details` (a SLOT_UNAVAILABLE's reasons, or a HOST_UNAVAILABLE's, each naming its resource)
 * as a customer sees them: each resource's taken parts joined on their own.
 */
export function publicReasons(details: readonly ReasonDetail[]): ReasonDetail[] {
  const resources = [...new Set(details.map((detail) => detail.resourceId))];
  return resources.flatMap((resourceId) =>
    resourceReasons(
      details.filter((detail) => detail.resourceId === resourceId),
      resourceId,
    ),
  );
}

function resourceReasons(details: readonly ReasonDetail[], resourceId: number | undefined): ReasonDetail[] {
  const shown = details.filter((detail) => !PRIVATE_CODES.has(detail.code));
  const taken = details
    .filter((detail) => PRIVATE_CODES.has(detail.code))
    .sort((a, b) => (a.from ?? '').localeCompare(b.from ?? ''));
  let last: ReasonDetail | undefined;
  for (const { from, to } of taken) {
    // ISO instants of one form: their text orders as they do.
    if (last?.to !== undefined && from !== undefined && from <= last.to) {
      if (to !== undefined && to > last.to) last.to = to;
      continue;
    }
    last = { code: UNAVAILABLE, message: 'This time is not available', from, to };
    if (resourceId !== undefined) last.resourceId = resourceId;
    shown.push(last);
  }
  return shown;
}

const isRefusal = (error: { code: string; details?: unknown }) =>
  (error.code === 'SLOT_UNAVAILABLE' || error.code === 'HOST_UNAVAILABLE') && Array.isArray(error.details);

/**
 * `work` (a booking, hold or reschedule from a public route, or its dry run) with the
 * reasons of a SLOT_UNAVAILABLE, thrown or answered, as a customer sees them.
 */
export async function withPublicReasons<T>(work: Promise<T>): Promise<T> {
  let answer: T;
  try {
    answer = await work;
  } catch (error) {
    if (error instanceof DomainError && isRefusal(error))
      throw withDetails(error, publicReasons(error.details as ReasonDetail[]));
    throw error;
  }
  const verdict = answer as { wouldSucceed?: boolean; error?: { code: string; details?: unknown } };
  if (verdict.wouldSucceed === false && verdict.error && isRefusal(verdict.error))
    return {
      ...answer,
      error: { ...verdict.error, details: publicReasons(verdict.error.details as ReasonDetail[]) },
    };
  return answer;
}
