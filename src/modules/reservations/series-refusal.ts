import { conflict, DomainError, type OccurrenceConflict, type ReasonDetail } from '../../lib/errors.js';
import type { OrganisationSchedule } from '../availability/service.js';
import type { Occurrence } from '../events/recurrence.js';
import type { SeriesContext } from './book-series.js';
import type { BookingChannel } from './bookable.js';
import { hostsOf, hostUnavailable } from './collective.js';
import { offeredTogether } from './collective-alternatives.js';
import type { ReservationInput } from './schemas.js';

/** Occurrences that do not fit: the attempt's transaction is rolled back, then they are named. */
export class SeriesMisfit extends Error {
  constructor(
    readonly misfits: Occurrence[],
    readonly resourceTypeId: number,
  ) {
    super('series does not fit');
  }
}

/**
 * A misfit as the caller gets it (the occurrence of a race lost in the last attempt too):
 * SLOT_UNAVAILABLE with every occurrence and its alternatives, and why each does not fit.
 */
export async function refusal(
  ctx: SeriesContext,
  error: unknown,
  org: OrganisationSchedule,
  input: ReservationInput,
  channel: BookingChannel,
): Promise<unknown> {
  if (!(error instanceof SeriesMisfit)) return error;
  const conflicts: OccurrenceConflict[] = [];
  // Why each occurrence does not fit: its reasons, each naming the part of its time.
  const reasons: ReasonDetail[] = [];
  const hosts = input.resourceIds && (await hostsOf(ctx, org.organisationId, input.resourceIds));
  for (const misfit of error.misfits) {
    const request = { start: Date.parse(misfit.start), end: Date.parse(misfit.end) };
    const offered = hosts
      ? await offeredTogether(
          ctx,
          hostUnavailable(),
          { org, input, channel, hold: undefined, dryRun: true, request },
          hosts,
        )
      : await ctx.alternatives.offeredWith(conflict('SLOT_UNAVAILABLE', 'does not fit'), {
          org,
          resourceTypeId: error.resourceTypeId,
          resourceId: input.resourceId,
          ...request,
          customerEmail: input.customer.email,
        });
    reasons.push(...(((offered as DomainError).details ?? []) as ReasonDetail[]));
    conflicts.push({
      startTime: misfit.start,
      endTime: misfit.end,
      alternatives: (offered as DomainError).alternatives ?? [],
    });
  }
  const n = conflicts.length;
  return new DomainError(
    hosts ? 'HOST_UNAVAILABLE' : 'SLOT_UNAVAILABLE',
    `${n} occurrence${n === 1 ? '' : 's'} of the series do${n === 1 ? 'es' : ''} not fit the availability of ${hosts ? 'every resource' : 'this resource'} (${conflicts.map((c) => c.startTime).join(', ')}); nothing was booked`,
    reasons.length > 0 ? reasons : undefined,
    undefined,
    undefined,
    conflicts,
  );
}
