import { DateTime } from 'luxon';
import { type Db, type Executor, inTransaction } from '../../db/database.js';
import { KEEPING_STATUSES } from '../../db/reservation-time.js';
import {
  conflict,
  DomainError,
  forbidden,
  invalidField,
  notFound,
  type OccurrenceConflict,
} from '../../lib/errors.js';
import { nowIso } from '../../lib/time.js';
import type { Tenant } from '../../tenancy/gate.js';
import { can, ROLE_MATRIX } from '../../tenancy/roles.js';
import type { AvailabilityService, OrganisationSchedule } from '../availability/service.js';
import {
  compileRecurrence,
  type Occurrence,
  OccurrenceLimitError,
  occurrencesBetween,
  RecurrenceError,
  seriesEnd,
} from '../events/recurrence.js';
import type { ResourceTypesService, StoredResourceType } from '../resource-types/service.js';
import type { createAlternatives } from './alternatives.js';
import { wouldBeBooked } from './dry-run.js';
import { type StoredManageLink, storedManageLink } from './manage-link.js';
import type { ReservationPayments } from './payment.js';
import { type createReservationRepo, createSeriesRepo, type NewReservation } from './repo.js';
import { assertBookingRules, type CustomerDays } from './rules.js';
import type {
  Reservation,
  ReservationInput,
  ReservationSeries,
  SeriesBooking,
  SeriesDryRun,
  WouldBeReservation,
} from './schemas.js';
import type { BookingChannel } from './service.js';

/** Most occurrences one series books (DECISIONS.md). */
export const MAX_SERIES_OCCURRENCES = 104;
/** How far a series may reach: its last occurrence ends within this many years of its first start. */
export const MAX_SERIES_YEARS = 2;
/** Whole-series attempts on PostgreSQL, where a concurrent booking can take an occurrence's time after the read. */
const SERIES_ATTEMPTS = 3;
/** The lines a reservation series takes; RDATE (extra dates) is left to events. */
const SERIES_LINES = new Set(['RRULE', 'EXDATE']);

/** A PostgreSQL insert refused mid-series (its time taken since the read): the series is tried again. */
class LaneRaced extends Error {}

const lineName = (line: string) => (line.split(/[:;]/, 1)[0] ?? '').trim().toUpperCase();

/**
 * The occurrences of a series whose first is [start, end), expanded in `timezone` by the
 * events module's RFC 5545 handling (wall-clock time kept across daylight-saving changes).
 * Bad lines, an endless rule, a series past the bounds and an EXDATE that is not one of
 * its occurrences are each a 400 naming the line.
 */
export function expandRecurrence(
  lines: readonly string[],
  start: number,
  end: number,
  timezone: string,
): Occurrence[] {
  lines.forEach((line, index) => {
    if (!SERIES_LINES.has(lineName(line)))
      throw invalidField(
        `recurrence.${index}`,
        'only RRULE and EXDATE lines are accepted for a reservation series',
      );
  });
  const series = {
    startTime: new Date(start).toISOString(),
    endTime: new Date(end).toISOString(),
    allDay: false,
    timezone,
  };
  const compile = (some: readonly string[]) => {
    try {
      return compileRecurrence(some, series);
    } catch (error) {
      if (error instanceof RecurrenceError)
        throw invalidField(`recurrence.${lines.indexOf(some[error.index]!)}`, error.message);
      throw error;
    }
  };
  const compiled = compile(lines)!;
  if (!compiled.finite) {
    const endless = lines.findIndex((line) => lineName(line) === 'RRULE' && !/(COUNT|UNTIL)=/i.test(line));
    throw invalidField(
      `recurrence.${Math.max(endless, 0)}`,
      'an RRULE needs COUNT or UNTIL: a reservation series has a last occurrence',
    );
  }
  const limitEnd = DateTime.fromMillis(start, { zone: timezone })
    .plus({ years: MAX_SERIES_YEARS })
    .toMillis();
  const expand = (c: typeof compiled) => {
    try {
      return occurrencesBetween(series, c, start, limitEnd, MAX_SERIES_OCCURRENCES);
    } catch (error) {
      if (error instanceof OccurrenceLimitError)
        throw invalidField('recurrence', `a series has at most ${MAX_SERIES_OCCURRENCES} occurrences`);
      throw error;
    }
  };
  const occurrences = expand(compiled);
  const last = seriesEnd(series, compiled);
  if (last === null || Date.parse(last) > limitEnd)
    throw invalidField(
      'recurrence',
      `a series must end within ${MAX_SERIES_YEARS} years of its first start (by ${new Date(limitEnd).toISOString()})`,
    );
  // Each EXDATE must take away as many occurrences as it names times: else one is not in the series.
  const exdates = lines.filter((line) => lineName(line) === 'EXDATE');
  if (exdates.length > 0) {
    const rules = lines.filter((line) => lineName(line) !== 'EXDATE');
    const all = expand(compile(rules)!).length;
    for (const line of exdates) {
      const named = line.slice(line.indexOf(':') + 1).split(',').length;
      if (all - expand(compile([...rules, line])!).length !== named)
        throw invalidField(
          `recurrence.${lines.indexOf(line)}`,
          'names a time that is not an occurrence of the series (EXDATE must match an occurrence start in the organisation time zone)',
        );
    }
  }
  if (occurrences.length === 0) throw invalidField('recurrence', 'leaves no occurrence to book');
  return occurrences;
}

/** What `book` asks of the series: the type it books, read and checked as a single booking's is. */
export type BookableTypeOf = (
  executor: Executor,
  org: OrganisationSchedule,
  input: ReservationInput,
  channel: BookingChannel,
) => Promise<StoredResourceType>;

/**
 * Recurring reservations (DECISIONS.md "Recurring reservations and the waitlist"): every
 * occurrence booked in one transaction through the single booking's offer read and
 * insert (so the no-double-booking guarantee is the same), or none.
 */
export function createSeries(deps: {
  db: Db;
  repo: ReturnType<typeof createReservationRepo>;
  availability: AvailabilityService;
  resourceTypes: ResourceTypesService;
  alternatives: ReturnType<typeof createAlternatives>;
  payment: ReservationPayments;
  typeIdOf: (org: OrganisationSchedule, input: ReservationInput) => Promise<number>;
  bookableType: BookableTypeOf;
  customerDaysOf: (executor: Executor, org: OrganisationSchedule, resourceTypeId: number) => CustomerDays;
  expireLapsed: (executor: Executor, now: string, scope: { laneId: number }) => Promise<unknown>;
  cancelFound: (
    organisationId: number,
    found: Reservation,
    overriding: number | null,
  ) => Promise<Reservation>;
  /** A manage link for an occurrence whose channel brings none. */
  mintManageLink: () => StoredManageLink;
}) {
  const { db, repo, availability, resourceTypes, alternatives, payment } = deps;
  const seriesRepo = createSeriesRepo(db.kysely);

  /** One whole attempt in one transaction; answers the booked occurrences, or the ones that do not fit. */
  async function attempt(
    org: OrganisationSchedule,
    input: ReservationInput,
    recurrence: string[],
    channel: BookingChannel,
    dryRun: boolean,
  ) {
    // Read before the transaction: on SQLite it holds the only connection.
    const resourceTypeId = await deps.typeIdOf(org, input);
    return inTransaction(db.kysely, async (trx) => {
      const type = await deps.bookableType(trx, org, { ...input, resourceTypeId }, channel);
      if (!type.recurringEnabled)
        throw conflict(
          'RECURRENCE_NOT_ENABLED',
          'This resource type does not take recurring reservations (recurringEnabled is false)',
        );
      const start = Date.parse(input.startTime);
      const end = Date.parse(input.endTime);
      const occurrences = expandRecurrence(recurrence, start, end, org.timezone);
      const chargeTo =
        type.paymentRequired && !dryRun
          ? await payment.chargeableAccount(org.organisationId, trx)
          : undefined;
      const now = nowIso();
      const seriesId = dryRun
        ? null
        : await seriesRepo.insert(
            trx,
            {
              organisationId: org.organisationId,
              resourceTypeId: type.id,
              recurrence,
              startTime: occurrences[0]!.start,
              endTime: occurrences[0]!.end,
              createdByUserId: channel.createdByUserId,
            },
            now,
          );
      const minutes = Math.ceil((end - start) / 60_000);
      if (!dryRun && minutes > type.longestReservationMinutes)
        await resourceTypes.recordReservationLength(trx, type.id, minutes);
      const target = input.resourceId !== undefined ? { resourceId: input.resourceId } : {};
      const expiresAt = type.paymentRequired
        ? new Date(Date.parse(now) + type.paymentWindowMinutes * 60_000).toISOString()
        : null;
      const customerDays = deps.customerDaysOf(trx, org, type.id);
      const booked: Array<Reservation | WouldBeReservation> = [];
      const misfits: Occurrence[] = [];
      for (const [n, occurrence] of occurrences.entries()) {
        const at = { start: Date.parse(occurrence.start), end: Date.parse(occurrence.end) };
        const rulesOverriddenByUserId = await assertBookingRules(
          { action: 'book', ...at, customerEmail: input.customer.email },
          type.bookingRules,
          { customerDays, overrideBy: channel.overrideRulesBy ?? null },
        ).catch((error: unknown) => {
          if (error instanceof DomainError)
            throw new DomainError(
              error.code,
              `The occurrence starting ${occurrence.start}: ${error.message}`,
              error.details,
            );
          throw error;
        });
        const read = await availability.readLanes(trx, org, type.id, at);
        const offers = read ? await availability.offerLanes(trx, org, read, target, at) : [];
        const offer = offers[0];
        if (!offer) {
          misfits.push(occurrence);
          continue;
        }
        // Once one does not fit nothing is written: the rest are only read, to name them all.
        if (misfits.length > 0) continue;
        const values: NewReservation = {
          organisationId: org.organisationId,
          resourceTypeId: type.id,
          resourceId: offer.laneId,
          status: type.paymentRequired ? 'pending_payment' : 'confirmed',
          startTime: occurrence.start,
          endTime: occurrence.end,
          blockedUntil: new Date(offer.blockedUntil).toISOString(),
          customer: input.customer,
          notes: input.notes ?? null,
          priceAmount: type.pricingEnabled ? type.priceAmount : null,
          priceCurrency: type.pricingEnabled ? type.priceCurrency : null,
          source: channel.source,
          createdByUserId: channel.createdByUserId,
          rulesOverriddenByUserId,
          expiresAt,
          ...storedManageLink(dryRun ? null : (channel.manageLinkOf?.(n) ?? deps.mintManageLink())),
          seriesId,
        };
        if (dryRun) {
          booked.push({ ...wouldBeBooked(values, now), seriesId: null });
          continue;
        }
        if (offer.hasLapsedHolds) await deps.expireLapsed(trx, now, { laneId: offer.laneId });
        const inserted = await repo.insertOnLane(trx, values, offer.laneUpdatedAt, now);
        if (!inserted) throw new LaneRaced();
        booked.push(inserted);
      }
      if (misfits.length > 0) throw new SeriesMisfit(misfits, type.id);
      return { seriesId, booked, chargeTo };
    });
  }

  /** Books every occurrence or none: 201 {seriesId, reservations}, or 409 naming each misfit. */
  async function book(
    org: OrganisationSchedule,
    input: ReservationInput,
    recurrence: string[],
    channel: BookingChannel,
  ): Promise<SeriesBooking> {
    for (let attempted = 1; ; attempted++) {
      try {
        const { seriesId, booked, chargeTo } = await attempt(org, input, recurrence, channel, false);
        const reservations = booked as Reservation[];
        if (chargeTo === undefined) return { seriesId: seriesId!, reservations };
        return { seriesId: seriesId!, reservations: await payment.startForSeries(reservations, chargeTo) };
      } catch (error) {
        if (error instanceof LaneRaced && attempted < SERIES_ATTEMPTS) continue;
        if (error instanceof LaneRaced)
          throw conflict(
            'SLOT_UNAVAILABLE',
            'The requested times kept being taken by other bookings; try again',
          );
        throw await refusal(error, org, input);
      }
    }
  }

  /** A misfit as the caller gets it: SLOT_UNAVAILABLE with every occurrence and its alternatives. */
  async function refusal(
    error: unknown,
    org: OrganisationSchedule,
    input: ReservationInput,
  ): Promise<unknown> {
    if (!(error instanceof SeriesMisfit)) return error;
    const conflicts: OccurrenceConflict[] = [];
    for (const misfit of error.misfits) {
      const offered = await alternatives.offeredWith(conflict('SLOT_UNAVAILABLE', 'does not fit'), {
        org,
        resourceTypeId: error.resourceTypeId,
        resourceId: input.resourceId,
        start: Date.parse(misfit.start),
        end: Date.parse(misfit.end),
        customerEmail: input.customer.email,
      });
      conflicts.push({
        startTime: misfit.start,
        endTime: misfit.end,
        alternatives: (offered as DomainError).alternatives ?? [],
      });
    }
    const n = conflicts.length;
    return new DomainError(
      'SLOT_UNAVAILABLE',
      `${n} occurrence${n === 1 ? '' : 's'} of the series do${n === 1 ? 'es' : ''} not fit the availability of this resource (${conflicts.map((c) => c.startTime).join(', ')}); nothing was booked`,
      undefined,
      undefined,
      undefined,
      conflicts,
    );
  }

  /** A series' dry run: every check and read, no write. */
  async function dryRun(
    org: OrganisationSchedule,
    input: ReservationInput,
    recurrence: string[],
    channel: BookingChannel,
  ): Promise<SeriesDryRun> {
    try {
      const { booked } = await attempt(org, input, recurrence, channel, true);
      return { wouldSucceed: true, seriesId: null, reservations: booked as WouldBeReservation[] };
    } catch (thrown) {
      const error = await refusal(thrown, org, input);
      if (
        !(error instanceof DomainError) ||
        !['SLOT_UNAVAILABLE', 'BOOKING_RULE_VIOLATED', 'PAYMENT_NOT_READY'].includes(error.code)
      )
        throw error;
      return {
        wouldSucceed: false,
        error: {
          code: error.code,
          message: error.message,
          ...(error.details ? { details: error.details } : {}),
          ...(error.conflicts ? { conflicts: error.conflicts } : {}),
          alternatives: error.alternatives ?? [],
        },
      };
    }
  }

  async function findIn(organisationId: number, id: number): Promise<ReservationSeries> {
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
  async function cancel(tenant: Tenant, userId: number, id: number, overriding: number | null) {
    const { organisationId, role } = tenant;
    const series = await seriesRepo.find(organisationId, id);
    if (!series) throw notFound('Reservation series');
    if (series.createdByUserId !== userId && !can(role, 'cancelAnyReservation'))
      throw forbidden(
        `Only ${ROLE_MATRIX.cancelAnyReservation.join(', ')} or the member who booked a series can cancel it`,
      );
    return cancelFound(organisationId, id, overriding);
  }

  /** `cancel` for a caller already entitled to the series (a customer's manage link of one occurrence). */
  async function cancelFound(organisationId: number, id: number, overriding: number | null) {
    const now = Date.now();
    const all = await seriesRepo.occurrences(organisationId, id);
    const ahead = all.filter(
      (r) => (KEEPING_STATUSES as readonly string[]).includes(r.status) && Date.parse(r.startTime) > now,
    );
    // Nothing of it used yet: a paid series gets its money back whole.
    const whole = ahead.length > 0 && all.every((r) => Date.parse(r.startTime) > now);
    for (const occurrence of ahead) {
      try {
        await deps.cancelFound(organisationId, occurrence, overriding);
      } catch (error) {
        // Cancelled or expired meanwhile: nothing left to cancel there.
        if (
          error instanceof DomainError &&
          (error.code === 'CONFLICT' || error.code === 'INVALID_TRANSITION')
        )
          continue;
        throw error;
      }
    }
    if (whole) await payment.refundSeries(all);
    return findIn(organisationId, id);
  }

  return { book, dryRun, findIn, cancel, cancelFound, repo: seriesRepo };
}

/** Occurrences that do not fit: the attempt's transaction is rolled back, then they are named. */
class SeriesMisfit extends Error {
  constructor(
    readonly misfits: Occurrence[],
    readonly resourceTypeId: number,
  ) {
    super('series does not fit');
  }
}
