import { DomainError, forbidden, notFound } from '../../lib/errors.js';
import type { Tenant } from '../../tenancy/gate.js';
import { can, ROLE_MATRIX } from '../../tenancy/roles.js';
import { bookSeries, dryRunSeries, type SeriesContext } from './book-series.js';
import type { ReservationsContext } from './context.js';
import { createSeriesRepo } from './repo.js';
import { KEEPING_STATUSES } from './reservation-time.js';
import { overrideBy } from './rules.js';
import type { ReservationSeries } from './schemas.js';
import type { ReservationsService } from './service.js';

export { expandRecurrence, MAX_SERIES_OCCURRENCES, MAX_SERIES_YEARS } from './series-recurrence.js';

/** The series context, with how one occurrence is cancelled (cancel.ts). */
interface SeriesCancelling extends SeriesContext {
  cancelOne: ReservationsService['cancelFound'];
}

/** `seriesFound` as ReservationsService documents it. */
async function findIn(
  { seriesRepo }: SeriesContext,
  organisationId: number,
  id: number,
): Promise<ReservationSeries> {
  const series = await seriesRepo.find(organisationId, id);
  if (!series) throw notFound('Reservation series');
  return {
    id: series.id,
    recurrence: series.recurrence,
    reservations: await seriesRepo.occurrences(organisationId, id),
  };
}

/**
 * Cancels every occurrence not yet started that still keeps its time (its creator, or a
 * role with `cancelAnyReservation`), each as a single cancel would (its cancel notice,
 * its refund); answers the series afterwards.
 */
async function cancel(
  ctx: SeriesCancelling,
  tenant: Tenant,
  userId: number,
  id: number,
  overriding: number | null,
) {
  const { organisationId, role } = tenant;
  const series = await ctx.seriesRepo.find(organisationId, id);
  if (!series) throw notFound('Reservation series');
  if (series.createdByUserId !== userId && !can(role, 'cancelAnyReservation'))
    throw forbidden(
      `Only ${ROLE_MATRIX.cancelAnyReservation.join(', ')} or the member who booked a series can cancel it`,
    );
  return cancelFound(ctx, organisationId, id, overriding);
}

/** `cancel` for a caller already entitled to the series (a customer's manage link of one occurrence). */
async function cancelFound(
  ctx: SeriesCancelling,
  organisationId: number,
  id: number,
  overriding: number | null,
) {
  const now = Date.now();
  const all = await ctx.seriesRepo.occurrences(organisationId, id);
  const ahead = all.filter(
    (r) => (KEEPING_STATUSES as readonly string[]).includes(r.status) && Date.parse(r.startTime) > now,
  );
  // Nothing of it used yet: a paid series gets its money back whole.
  const whole = ahead.length > 0 && all.every((r) => Date.parse(r.startTime) > now);
  for (const occurrence of ahead) {
    try {
      await ctx.cancelOne(organisationId, occurrence, overriding);
    } catch (error) {
      // Cancelled or expired meanwhile: nothing left to cancel there.
      if (error instanceof DomainError && (error.code === 'CONFLICT' || error.code === 'INVALID_TRANSITION'))
        continue;
      throw error;
    }
  }
  if (whole) await ctx.payment.refundSeries(all);
  return findIn(ctx, organisationId, id);
}

type SeriesUseCases = Pick<
  ReservationsService,
  'getSeries' | 'cancelSeries' | 'bookSeries' | 'dryRunSeries' | 'seriesFound' | 'cancelSeriesFound'
>;

/**
 * Recurring reservations (DECISIONS.md "Recurring reservations and the waitlist"): every
 * occurrence booked in one transaction through the single booking's offer read and
 * insert (so the no-double-booking guarantee is the same), or none (book-series.ts);
 * read and cancelled whole, each occurrence cancelled by `cancelOne`.
 */
export function createSeries(
  reservations: ReservationsContext,
  cancelOne: ReservationsService['cancelFound'],
): SeriesUseCases {
  const ctx: SeriesCancelling = {
    ...reservations,
    seriesRepo: createSeriesRepo(reservations.db.kysely),
    cancelOne,
  };
  const { organisations } = ctx;
  return {
    async getSeries(actor, id) {
      const { organisationId } = await organisations.requireTenant(actor, { can: 'readReservations' });
      return findIn(ctx, organisationId, id);
    },
    async cancelSeries(actor, id, input = {}) {
      const tenant = await organisations.requireTenant(actor, { can: 'book' });
      return cancel(
        ctx,
        tenant,
        actor.userId,
        id,
        overrideBy(actor.userId, tenant.role, input.overrideRules),
      );
    },
    bookSeries: (org, input, recurrence, channel) => bookSeries(ctx, org, input, recurrence, channel),
    dryRunSeries: (org, input, recurrence, channel) => dryRunSeries(ctx, org, input, recurrence, channel),
    seriesFound: (organisationId, id) => findIn(ctx, organisationId, id),
    cancelSeriesFound: (organisationId, id, overriding) => cancelFound(ctx, organisationId, id, overriding),
  };
}
