import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../../config.js';
import { type Db, type Executor, inTransaction } from '../../db/database.js';
import { InvalidCursorError } from '../../db/keyset.js';
import { KEEPING_STATUSES } from '../../db/reservation-time.js';
import type { ReservationSource } from '../../db/tables/resources.js';
import type { JobQueue } from '../../jobs/queue.js';
import type { Actor } from '../../lib/actor.js';
import { safeEqual } from '../../lib/crypto.js';
import { conflict, forbidden, invalidField, invalidFields, notFound } from '../../lib/errors.js';
import { nowIso } from '../../lib/time.js';
import type { Tenant } from '../../tenancy/gate.js';
import { can, ROLE_MATRIX } from '../../tenancy/roles.js';
import type { AvailabilityService, OrganisationSchedule } from '../availability/service.js';
import type { OrganisationsService } from '../organisations/service.js';
import type { PaymentsService } from '../payments/service.js';
import type { ResourceType } from '../resource-types/schemas.js';
import type { ResourceTypesService, StoredResourceType } from '../resource-types/service.js';
import type { ResourcesService } from '../resources/service.js';
import { createAlternatives } from './alternatives.js';
import { answerIssues } from './answers.js';
import { dryRunOf, wouldBeBooked } from './dry-run.js';
import { newManageLink, type StoredManageLink, storedManageLink } from './manage-link.js';
import { createReservationPayments } from './payment.js';
import { createReservationRepo, reservationOfStoredRow } from './repo.js';
import { createRescheduling, type MoveInput } from './reschedule.js';
import { assertBookingRules, type CustomerDays, overrideBy } from './rules.js';
import type {
  CancelReservationInput,
  CreateHoldInput,
  CreateReservationInput,
  Customer,
  ListReservationsQuery,
  RescheduleInput,
  Reservation,
  ReservationInput,
  ReservationSeries,
  SeriesBooking,
  WouldBeReservation,
} from './schemas.js';
import { createSeries } from './series.js';
import { requestedTimes } from './times.js';

/**
 * Reads a booking makes at most: each after every lane it found free was refused (taken
 * or changed by a concurrent request). A second read rarely finds a lane the first
 * missed; a third means the type's lanes are changing under it.
 */
const BOOKING_READS = 3;

/** A booking of a type the organisation does not have. */
const noSuchType = () => invalidField('resourceTypeId', 'no such resource type');

/** The job that marks lapsed holds and unpaid bookings `expired`. */
export const RESERVATION_EXPIRY_JOB = 'reservations_expire_holds';
/** How often it runs (minutes): reads never wait for it, so it only brings statuses up to date. */
const EXPIRY_EVERY_MINUTES = 1;
/** Rows one statement of the job marks; it repeats until a batch comes back short. */
const EXPIRY_BATCH = 500;

/** Where customers book for themselves: the organisation's page and a resource's public link. */
const PUBLIC_SOURCES: readonly ReservationSource[] = ['public_slug', 'public_token'];

/** Who books: a member through the API or MCP, or a public booker through a slug or token link. */
export interface BookingChannel {
  source: ReservationSource;
  createdByUserId: number | null;
  /** A public token names one resource: it is booked even when its type books from a pool. */
  resourceFixedByToken?: boolean;
  /** The staff member overriding the type's booking rules (see rules.ts `overrideBy`); never on public channels. */
  overrideRulesBy?: number | null;
  /**
   * The customer's link to this one reservation (a public booking's, shown once; a waitlist
   * offer's, its entry's). Without one, a booking mints its own, which only its mails carry.
   */
  manageLink?: StoredManageLink | null;
  /** A public series: the manage link of its occurrence `n` (from 0), each its own. */
  manageLinkOf?: (n: number) => StoredManageLink;
  /** A public hold's client address, as a keyed hash: what the per-IP hold limit counts. */
  publicClientHash?: string;
}

/** The customer fields every booking has: name and email required, phone optional, answers as the questions ask. */
const BUILT_IN_FIELDS = ['name', 'email', 'phone', 'answers'];

/**
 * The customer must answer exactly the type's customerInfoFields beyond name, email and phone,
 * and its questions in `answers` as answers.ts checks them. A type listing `phone` leaves it
 * optional, as the booking page marks it.
 */
function checkCustomer(customer: Customer, type: ResourceType) {
  const asked = new Set(type.customerInfoFields);
  const extra = Object.keys(customer).filter((key) => !BUILT_IN_FIELDS.includes(key) && !asked.has(key));
  if (extra.length > 0) throw invalidField('customer', `unknown field(s): ${extra.join(', ')}`);
  const missing = type.customerInfoFields
    .filter((key) => !BUILT_IN_FIELDS.includes(key) && !customer[key])
    .map((key) => ({ path: `customer.${key}`, message: 'is required by this resource type' }));
  const issues = [...missing, ...answerIssues(customer.answers, type.questions)];
  if (issues.length > 0) throw invalidFields(issues);
}

export type ReservationsService = ReturnType<typeof createReservationsService>;

export function createReservationsService(deps: {
  db: Db;
  organisations: OrganisationsService;
  availability: AvailabilityService;
  resourceTypes: ResourceTypesService;
  resources: ResourcesService;
  payments: PaymentsService;
  config: Config;
  log?: FastifyBaseLogger | undefined;
  jobs: Pick<JobQueue, 'work' | 'every'>;
}) {
  const { db, organisations, availability, resourceTypes, resources, jobs } = deps;
  const repo = createReservationRepo(db.kysely, db.dialect);
  const payment = createReservationPayments({
    repo,
    payments: deps.payments,
    config: deps.config,
    log: deps.log,
  });

  /**
   * Marks `expired` the holds and unpaid bookings whose expiry passed at `now`: those of one
   * lane (a booking taking it), or a batch of the oldest (the job). Every expiry by the
   * clock goes through here, and each row is answered by exactly one run, on any instance.
   * The provider's `checkout.expired` (payment.ts) is the one other way to `expired`: what
   * follows an expiry (its change event, a waitlist offer) goes in both.
   */
  async function expireLapsed(
    executor: Executor,
    now: string,
    scope: { laneId: number } | { limit: number },
  ): Promise<Reservation[]> {
    return 'laneId' in scope
      ? repo.expireLapsedOnLane(executor, scope.laneId, now)
      : repo.expireLapsed(executor, now, scope.limit);
  }

  /** The job's run: batch after batch until none is left; answers what it marked. */
  async function expireDue(): Promise<Reservation[]> {
    const now = nowIso();
    const expired: Reservation[] = [];
    for (;;) {
      const batch = await expireLapsed(db.kysely, now, { limit: EXPIRY_BATCH });
      expired.push(...batch);
      if (batch.length < EXPIRY_BATCH) return expired;
    }
  }
  jobs.work(RESERVATION_EXPIRY_JOB, async () => void (await expireDue()), {
    retryLimit: 0,
    deduplicate: true,
  });
  jobs.every(RESERVATION_EXPIRY_JOB, EXPIRY_EVERY_MINUTES);

  /** What the daily limit of the booking rules (rules.ts) reads, through `executor`, at the current time. */
  const customerDaysOf = (
    executor: Executor,
    org: OrganisationSchedule,
    resourceTypeId: number,
  ): CustomerDays => ({
    timezone: org.timezone,
    count: (customerEmail, day, excludeId) =>
      repo.countCustomerDay(executor, {
        organisationId: org.organisationId,
        resourceTypeId,
        customerEmail,
        day,
        now: nowIso(),
        excludeId,
      }),
  });

  /** A manage link for a booking that brings none (staff's, an agent's): only its mails carry it. */
  const mintManageLink = (): StoredManageLink => newManageLink(deps.config.encryptionKey);

  /**
   * How a booking's reads and its write hang together. SQLite: in one transaction, which
   * holds the only connection, so nothing commits in between. PostgreSQL: no transaction
   * and no lock across round trips; the insert itself refuses a lane whose time was taken
   * (the exclusion constraint) or whose row changed (the lane guard) since the reads.
   */
  const bookingScope = <T>(work: (executor: Executor) => Promise<T>): Promise<T> =>
    db.dialect === 'sqlite' ? inTransaction(db.kysely, work) : work(db.kysely);

  const alternatives = createAlternatives({ db, repo, availability, resourceTypes });
  const series = createSeries({
    db,
    repo,
    availability,
    resourceTypes,
    alternatives,
    payment,
    typeIdOf,
    bookableType,
    customerDaysOf,
    expireLapsed,
    cancelFound,
    mintManageLink,
  });
  const rescheduling = createRescheduling({
    db,
    repo,
    availability,
    resources,
    resourceTypes,
    alternatives,
    bookingScope,
    customerDaysOf,
    expireLapsed,
  });

  /** The type a booking names: its resourceTypeId, or the type of its resourceId (400 when there is no such resource). */
  async function typeIdOf(org: OrganisationSchedule, input: ReservationInput): Promise<number> {
    let typeId = input.resourceTypeId;
    if (input.resourceId !== undefined) {
      const resource = await resources.findInOrganisation(org.organisationId, input.resourceId);
      if (!resource || resource.isCapacityChild) {
        throw invalidField(
          'resourceId',
          'no such bookable resource (capacity lanes are booked through their parent)',
        );
      }
      if (typeId !== undefined && typeId !== resource.resourceTypeId) {
        throw invalidField('resourceTypeId', 'does not match the type of resourceId');
      }
      typeId = resource.resourceTypeId;
    }
    return typeId!;
  }

  /**
   * The type a booking books, read through `executor` and checked against the booking: its
   * mode takes the target given, it is active, and the customer answers its fields.
   */
  async function bookableType(
    executor: Executor,
    org: OrganisationSchedule,
    input: ReservationInput,
    channel: BookingChannel,
  ) {
    const type = await resourceTypes.findStored(executor, org.organisationId, input.resourceTypeId!);
    if (!type) throw noSuchType();
    return checkBookable(type, input, channel);
  }

  /** `type` as read for a booking, checked against it as `bookableType` says. */
  function checkBookable(type: StoredResourceType, input: ReservationInput, channel: BookingChannel) {
    if (type.bookingMode === 'SINGLE_RESOURCE' && input.resourceId === undefined) {
      throw invalidField(
        'resourceId',
        'is required: this resource type books a concrete resource (SINGLE_RESOURCE)',
      );
    }
    if (type.bookingMode === 'POOL' && input.resourceId !== undefined && !channel.resourceFixedByToken) {
      throw invalidField(
        'resourceId',
        'is not accepted: this resource type books from its pool (POOL); send resourceTypeId',
      );
    }
    if (!type.isActive) throw conflict('SLOT_UNAVAILABLE', 'This resource type is not bookable');
    checkCustomer(input.customer, type);
    return type;
  }

  /**
   * Books exactly the requested time: the booking mode decides whether a concrete
   * resource is required, a lane is allocated from the pool, or either. Price,
   * currency and status come from the resource type only.
   */
  function book(
    org: OrganisationSchedule,
    input: ReservationInput,
    channel: BookingChannel,
    hold?: { seconds: number },
  ): Promise<Reservation>;
  /** A dry run: every check and read of the booking, no write; answers the record it would write. */
  function book(
    org: OrganisationSchedule,
    input: ReservationInput,
    channel: BookingChannel,
    hold: { seconds: number } | undefined,
    options: { dryRun: true; alternatives?: false },
  ): Promise<WouldBeReservation>;
  /** `alternatives: false`: a refusal carries none (a waitlist offer only asks whether the time fits). */
  function book(
    org: OrganisationSchedule,
    input: ReservationInput,
    channel: BookingChannel,
    hold: { seconds: number } | undefined,
    options: { dryRun?: false; alternatives: false },
  ): Promise<Reservation>;
  async function book(
    org: OrganisationSchedule,
    input: ReservationInput,
    channel: BookingChannel,
    hold?: { seconds: number },
    options: { dryRun?: boolean; alternatives?: false } = {},
  ): Promise<Reservation | WouldBeReservation> {
    const { start, end } = requestedTimes(input);
    const typeId = await typeIdOf(org, input);
    /** The connected account a paid booking's checkout charges, once the type asks for payment. */
    let chargeTo: string | undefined;
    const request = { start, end };
    const booked = await bookingScope(async (executor) => {
      // The type and what is taken on its lanes, in one read.
      const first = await availability.readLanes(executor, org, typeId, request);
      if (!first) throw noSuchType();
      const type = checkBookable(first.type, { ...input, resourceTypeId: typeId }, channel);
      // An organisation that cannot take payment books nothing that would wait for it, and a
      // customer holds none of its time: they could not pay for it (a member's hold may wait).
      if (type.paymentRequired && !hold)
        chargeTo = await payment.chargeableAccount(org.organisationId, executor);
      else if (type.paymentRequired && PUBLIC_SOURCES.includes(channel.source))
        await payment.chargeableAccount(org.organisationId, executor);

      // A type with a daily limit per customer counts and inserts one customer's bookings one at a time.
      const serialised = type.bookingRules?.maxPerCustomerPerDay !== undefined;
      const scope = <T>(work: (executor: Executor) => Promise<T>) =>
        serialised ? repo.oneCustomerAtATime(executor, type.id, input.customer.email, work) : work(executor);
      return scope(async (executor) => {
        const rulesOverriddenByUserId = await assertBookingRules(
          { action: 'book', start, end, customerEmail: input.customer.email },
          type.bookingRules,
          {
            customerDays: customerDaysOf(executor, org, type.id),
            overrideBy: channel.overrideRulesBy ?? null,
          },
        );
        const target = input.resourceId !== undefined ? { resourceId: input.resourceId } : {};
        const minutes = Math.ceil((end - start) / 60_000);
        const values = {
          organisationId: org.organisationId,
          resourceTypeId: type.id,
          status: hold
            ? ('held' as const)
            : type.paymentRequired
              ? ('pending_payment' as const)
              : ('confirmed' as const),
          startTime: new Date(start).toISOString(),
          endTime: new Date(end).toISOString(),
          customer: input.customer,
          notes: input.notes ?? null,
          priceAmount: type.pricingEnabled ? type.priceAmount : null,
          priceCurrency: type.pricingEnabled ? type.priceCurrency : null,
          source: channel.source,
          createdByUserId: channel.createdByUserId,
          rulesOverriddenByUserId,
          ...storedManageLink(options.dryRun ? null : (channel.manageLink ?? mintManageLink())),
          publicClientHash: channel.publicClientHash ?? null,
        };
        let read = first;
        for (let attempt = 1; attempt <= BOOKING_READS; attempt++) {
          // A later attempt reads again: a concurrent booking took a lane, changed a lane's
          // row, or raised the type's longest reservation.
          if (attempt > 1) read = (await availability.readLanes(executor, org, type.id, request)) ?? read;
          const offers = await availability.offerLanes(executor, org, read, target, request);
          if (offers.length === 0) break;
          const now = nowIso();
          const expiresAt = hold
            ? new Date(Date.parse(now) + hold.seconds * 1000).toISOString()
            : type.paymentRequired
              ? new Date(Date.parse(now) + type.paymentWindowMinutes * 60_000).toISOString()
              : null;
          const first = offers[0]!;
          if (options.dryRun) {
            const blockedUntil = new Date(first.blockedUntil).toISOString();
            return wouldBeBooked({ ...values, resourceId: first.laneId, blockedUntil, expiresAt }, now);
          }
          // Raised before the reservation is visible (its own statement on PostgreSQL), so
          // any read that can see the reservation looks back far enough to find it.
          if (minutes > read.type.longestReservationMinutes) {
            await resourceTypes.recordReservationLength(executor, type.id, minutes);
          }
          for (const offer of offers) {
            // The read took a lapsed hold's time for free, but its row may still say it holds
            // (PostgreSQL's exclusion constraint cannot see the clock): it is marked first, in
            // the booking's transaction on SQLite. Only lanes the read found one on pay for it.
            if (offer.hasLapsedHolds) await expireLapsed(executor, now, { laneId: offer.laneId });
            const booked = await repo.insertOnLane(
              executor,
              {
                ...values,
                resourceId: offer.laneId,
                blockedUntil: new Date(offer.blockedUntil).toISOString(),
                expiresAt,
              },
              offer.laneUpdatedAt,
              now,
            );
            if (booked) return booked;
          }
        }
        throw conflict(
          'SLOT_UNAVAILABLE',
          'The requested time does not fit the availability of this resource',
        );
      });
    }).catch(async (error: unknown) => {
      if (options.alternatives === false) throw error;
      throw await alternatives.offeredWith(error, {
        org,
        resourceTypeId: typeId,
        resourceId: input.resourceId,
        start,
        end,
        customerEmail: input.customer.email,
      });
    });
    if (booked.id === null) return booked; // a dry run: nothing to pay for
    // The checkout is made once the booking is committed (never inside SQLite's transaction).
    return chargeTo === undefined ? booked : payment.startForBooking(booked, chargeTo);
  }

  async function findOrThrow(organisationId: number, id: number) {
    const found = await repo.find(organisationId, id);
    if (!found) throw notFound('Reservation');
    return found;
  }

  /**
   * A reservation the actor may change (cancel, confirm, release): in their active
   * organisation (404 otherwise), and made by them or changed by a role with
   * `cancelAnyReservation` (403 otherwise). Whoever may book may change their own.
   */
  async function changeable(actor: Actor, id: number, verb: string) {
    return changeableIn(await organisations.requireTenant(actor, { can: 'book' }), actor, id, verb);
  }

  /** `changeable` in a tenant already read. */
  async function changeableIn(tenant: Tenant, actor: Actor, id: number, verb: string) {
    const { organisationId, role } = tenant;
    const found = await findOrThrow(organisationId, id);
    if (found.createdByUserId !== actor.userId && !can(role, 'cancelAnyReservation')) {
      throw forbidden(
        `Only ${ROLE_MATRIX.cancelAnyReservation.join(', ')} or the member who made a reservation can ${verb} it`,
      );
    }
    return { organisationId, role, found, tenant };
  }

  /** Why a hold cannot be confirmed or released: it lapsed, or it is no hold (any more). */
  function notHeld(found: Reservation, verb: 'confirmed' | 'released') {
    if (found.status === 'expired')
      return conflict('HOLD_EXPIRED', 'This hold has expired and no longer keeps its time; hold it again');
    return conflict(
      'INVALID_TRANSITION',
      `A ${found.status} reservation cannot be ${verb}: only a held one can`,
    );
  }

  /**
   * Confirming a hold on a type with `paymentRequired`: a checkout at the organisation's
   * connected account (409 PAYMENT_NOT_READY when it cannot take charges), then the hold
   * waits in `pending_payment` for `paymentWindowMinutes`. The hold stays as it was when
   * either fails.
   */
  async function confirmPaidHold(
    organisationId: number,
    held: Reservation,
    type: Pick<ResourceType, 'paymentWindowMinutes' | 'priceAmount' | 'priceCurrency'>,
  ): Promise<Reservation> {
    const waiting = await payment.startForHold(organisationId, held, type);
    if (waiting) return waiting;
    throw notHeld(await findOrThrow(organisationId, held.id), 'confirmed');
  }

  /**
   * Cancels `found` for a caller entitled to it. A cancelled reservation frees its time at
   * once. A booking (not a hold, which can always be let go) within the type's cancel
   * notice is refused unless `overriding` names the staff member overriding the rules.
   */
  async function cancelFound(
    organisationId: number,
    found: Reservation,
    overriding: number | null,
  ): Promise<Reservation> {
    let rulesOverriddenByUserId: number | null = null;
    const booked = found.status === 'confirmed' || found.status === 'pending_payment';
    if (booked && found.resourceTypeId !== null) {
      const type = await resourceTypes.findStored(db.kysely, organisationId, found.resourceTypeId);
      rulesOverriddenByUserId = await assertBookingRules(
        { action: 'cancel', start: Date.parse(found.startTime) },
        type?.bookingRules ?? null,
        { overrideBy: overriding },
      );
    }
    // A paid reservation is refunded in full first: a failed refund changes nothing.
    const refunded = await payment.refundBeforeCancel(found);
    const cancelled = await repo.transition(
      found.id,
      KEEPING_STATUSES,
      'cancelled',
      nowIso(),
      rulesOverriddenByUserId,
    );
    if (cancelled) return payment.afterCancel(cancelled, refunded);
    // Changed meanwhile; a refund made for it is still recorded.
    if (refunded) await payment.afterCancel(found, refunded);
    const now = await findOrThrow(organisationId, found.id);
    if (now.status === 'cancelled') throw conflict('CONFLICT', 'This reservation is already cancelled');
    throw conflict('INVALID_TRANSITION', `A ${now.status} reservation cannot be cancelled`);
  }

  /** Makes the hold `found` (not yet expired) `confirmed`; a paid type's hold goes to payment instead. */
  async function confirmHeld(organisationId: number, found: Reservation): Promise<Reservation> {
    if (found.status !== 'held') throw notHeld(found, 'confirmed');
    const type =
      found.resourceTypeId === null
        ? undefined
        : await resourceTypes.findStored(db.kysely, organisationId, found.resourceTypeId);
    if (type?.paymentRequired) return confirmPaidHold(organisationId, found, type);
    const confirmed = await repo.transition(found.id, ['held'], 'confirmed', nowIso());
    if (confirmed) return confirmed;
    // Changed since it was read: lapsed, or released or confirmed by someone else.
    throw notHeld(await findOrThrow(organisationId, found.id), 'confirmed');
  }

  /** Lets the hold `found` (not yet expired) go: `cancelled`, its time free at once. */
  async function releaseHeld(organisationId: number, found: Reservation): Promise<Reservation> {
    if (found.status !== 'held') throw notHeld(found, 'released');
    const released = await repo.transition(found.id, ['held'], 'cancelled', nowIso());
    if (released) return released;
    throw notHeld(await findOrThrow(organisationId, found.id), 'released');
  }

  /**
   * Moves `found` for a caller entitled to it (a member through `reschedule`, a customer's
   * manage link): to `input`'s time, on its resource or pool (or `input.resourceId` where
   * the booking mode takes one), in one statement that keeps its id, status, expiresAt,
   * payment and series. 409 SLOT_UNAVAILABLE (it keeps its time) or BOOKING_RULE_VIOLATED,
   * both with alternatives, unless `overriding` names the staff member overriding the rules;
   * 409 INVALID_TRANSITION unless it is held, pending_payment or confirmed. A dry run
   * (`options.dryRun`) answers the record the move would leave (id null), writing nothing.
   */
  function rescheduleFound(
    org: OrganisationSchedule,
    found: Reservation,
    input: MoveInput,
    overriding: number | null,
    options?: { dryRun?: false },
  ): Promise<Reservation>;
  function rescheduleFound(
    org: OrganisationSchedule,
    found: Reservation,
    input: MoveInput,
    overriding: number | null,
    options: { dryRun: true },
  ): Promise<WouldBeReservation>;
  function rescheduleFound(
    org: OrganisationSchedule,
    found: Reservation,
    input: MoveInput,
    overriding: number | null,
    options: { dryRun?: boolean } = {},
  ): Promise<Reservation | WouldBeReservation> {
    return rescheduling.move(org, found, input, overriding, options.dryRun === true);
  }

  /**
   * A member's booking or hold: in their active organisation, recorded as made by them (an
   * agent's as made by its owner), past the type's booking rules when staff ask to.
   */
  async function memberBooking(
    actor: Actor,
    input: CreateReservationInput | Omit<CreateHoldInput, 'holdSeconds'>,
    source: ReservationSource,
  ) {
    const tenant = await organisations.requireTenant(actor, { can: 'book' });
    const { overrideRules, recurrence, ...booking } = input as CreateReservationInput;
    const channel: BookingChannel = {
      source,
      createdByUserId: actor.userId,
      overrideRulesBy: overrideBy(actor.userId, tenant.role, overrideRules),
    };
    return { tenant, booking, channel, recurrence };
  }

  /** The reservation the actor may move, and who overrides the rules for it (see `changeable`). */
  async function movable(actor: Actor, id: number, input: RescheduleInput) {
    const { tenant, role, found } = await changeable(actor, id, 'reschedule');
    const { overrideRules, ...move } = input;
    return { tenant, found, move, overriding: overrideBy(actor.userId, role, overrideRules) };
  }

  return {
    book,

    /** Books for the actor; an agent's booking is recorded as made by its owner. */
    async create(
      actor: Actor,
      input: CreateReservationInput & { recurrence?: undefined },
      source: ReservationSource = 'api',
    ): Promise<Reservation> {
      const { tenant, booking, channel } = await memberBooking(actor, input, source);
      return book(tenant, booking, channel);
    },

    /** A booking with `recurrence`: a series, every occurrence or none (series.ts). */
    async createSeries(
      actor: Actor,
      input: CreateReservationInput & { recurrence: string[] },
      source: ReservationSource = 'api',
    ): Promise<SeriesBooking> {
      const { tenant, booking, channel } = await memberBooking(actor, input, source);
      return series.book(tenant, booking, input.recurrence, channel);
    },

    /** `create` or `createSeries`, as the input asks. */
    createAny(actor: Actor, input: CreateReservationInput, source: ReservationSource = 'api') {
      const { recurrence } = input;
      return recurrence
        ? this.createSeries(actor, { ...input, recurrence }, source)
        : this.create(actor, { ...input, recurrence: undefined }, source);
    },

    /** A recurring series of the active organisation with its occurrences. */
    async getSeries(actor: Actor, id: number): Promise<ReservationSeries> {
      const { organisationId } = await organisations.requireTenant(actor, { can: 'readReservations' });
      return series.findIn(organisationId, id);
    },

    /**
     * Cancels every occurrence of a series not yet started (its creator, or a role with
     * `cancelAnyReservation`); staff may override the cancel notice.
     */
    async cancelSeries(
      actor: Actor,
      id: number,
      input: CancelReservationInput = {},
    ): Promise<ReservationSeries> {
      const tenant = await organisations.requireTenant(actor, { can: 'book' });
      return series.cancel(
        tenant,
        actor.userId,
        id,
        overrideBy(actor.userId, tenant.role, input.overrideRules),
      );
    },

    async list(actor: Actor, query: ListReservationsQuery) {
      const { organisationId } = await organisations.requireTenant(actor, { can: 'readReservations' });
      try {
        return await repo.list(organisationId, query);
      } catch (error) {
        if (error instanceof InvalidCursorError)
          throw invalidField('cursor', 'is not a cursor this list gave out');
        throw error;
      }
    },

    async get(actor: Actor, id: number): Promise<Reservation> {
      const { organisationId } = await organisations.requireTenant(actor, { can: 'readReservations' });
      return findOrThrow(organisationId, id);
    },

    /**
     * Its creator, or a role with `cancelAnyReservation`. A booking within the type's cancel
     * notice is refused unless staff override it.
     */
    async cancel(actor: Actor, id: number, input: CancelReservationInput = {}): Promise<Reservation> {
      const { organisationId, role, found } = await changeable(actor, id, 'cancel');
      return cancelFound(organisationId, found, overrideBy(actor.userId, role, input.overrideRules));
    },

    /**
     * Holds a time for `holdSeconds`: a `held` reservation that keeps it until `expiresAt`,
     * then frees it by itself unless confirmed or released first.
     */
    async hold(actor: Actor, input: CreateHoldInput, source: ReservationSource = 'api') {
      const { holdSeconds, ...rest } = input;
      const { tenant, booking, channel } = await memberBooking(actor, rest, source);
      return book(tenant, booking, channel, { seconds: holdSeconds });
    },

    /** Makes a hold (not yet expired) `confirmed`; a paid type's hold goes to payment instead. */
    async confirm(actor: Actor, id: number): Promise<Reservation> {
      const tenant = await organisations.requireTenant(actor, { can: 'book' });
      // The usual confirm (a live hold of a type that takes no payment, the actor's or any
      // for a role with cancelAnyReservation) in one statement; whatever stands in its way
      // is read and answered by confirmHeld.
      const madeBy = can(tenant.role, 'cancelAnyReservation') ? null : actor.userId;
      const confirmed = await repo.confirmUnpaidHold(id, tenant.organisationId, madeBy, nowIso());
      if (confirmed) return confirmed;
      const { organisationId, found } = await changeableIn(tenant, actor, id, 'confirm');
      return confirmHeld(organisationId, found);
    },

    /** Lets a hold (not yet expired) go: `cancelled`, its time free at once. */
    async release(actor: Actor, id: number): Promise<Reservation> {
      const { organisationId, found } = await changeable(actor, id, 'release');
      return releaseHeld(organisationId, found);
    },

    /** A booking's dry run: answers what `create` would (`wouldSucceed`, the record or the refusal), writing nothing. */
    async dryRunCreate(actor: Actor, input: CreateReservationInput, source: ReservationSource = 'api') {
      const { tenant, booking, channel, recurrence } = await memberBooking(actor, input, source);
      if (recurrence) return series.dryRun(tenant, booking, recurrence, channel);
      return dryRunOf(() => book(tenant, booking, channel, undefined, { dryRun: true }));
    },

    /** A hold's dry run: answers what `hold` would, writing nothing. */
    async dryRunHold(actor: Actor, input: CreateHoldInput, source: ReservationSource = 'api') {
      const { holdSeconds, ...rest } = input;
      const { tenant, booking, channel } = await memberBooking(actor, rest, source);
      return dryRunOf(() => book(tenant, booking, channel, { seconds: holdSeconds }, { dryRun: true }));
    },

    /**
     * Moves a held, pending_payment or confirmed reservation to another time (its creator,
     * or a role with `cancelAnyReservation`); staff may override the type's booking rules.
     */
    async reschedule(actor: Actor, id: number, input: RescheduleInput): Promise<Reservation> {
      const { tenant, found, move, overriding } = await movable(actor, id, input);
      return rescheduleFound(tenant, found, move, overriding);
    },

    /** A reschedule's dry run: answers what `reschedule` would, writing nothing. */
    async dryRunReschedule(actor: Actor, id: number, input: RescheduleInput) {
      const { tenant, found, move, overriding } = await movable(actor, id, input);
      return dryRunOf(() => rescheduleFound(tenant, found, move, overriding, { dryRun: true }));
    },

    /** Runs a dry run (`book` or `rescheduleFound` with dryRun) and answers its verdict (dry-run.ts). */
    dryRunOf,

    // The same changes for a caller already entitled to `found` (a customer's manage link).
    /** A reservation of the organisation, undefined when there is none. */
    findIn: (organisationId: number, id: number) => repo.find(organisationId, id),
    rescheduleFound,
    cancelFound,
    confirmHeld,
    releaseHeld,
    bookSeries: series.book,
    dryRunSeries: series.dryRun,
    seriesFound: series.findIn,
    cancelSeriesFound: series.cancelFound,

    /** How many live holds the public routes made in the organisation for a customer email or a client. */
    livePublicHolds: (organisationId: number, by: { customerEmail: string } | { publicClientHash: string }) =>
      repo.livePublicHolds(organisationId, by, nowIso()),

    /**
     * The reservation a customer's manage link names (by the SHA-256 of its token), with its
     * organisation; undefined for any other hash. Found through the index, then compared in
     * constant time, so no database comparison looser than the bytes ever lets a link in.
     */
    async findByManageTokenHash(
      tokenHash: string,
    ): Promise<{ organisationId: number; reservation: Reservation } | undefined> {
      const found = await repo.findByManageTokenHash(tokenHash);
      if (!found || !safeEqual(found.manageTokenHash, tokenHash)) return undefined;
      return { organisationId: found.organisationId, reservation: found.reservation };
    },

    /** Marks every lapsed hold and unpaid booking `expired` now (what the expiry job runs); answers them. */
    expireDue,

    /** The record a reservation event carries, from the row its trigger stored (the outbox reads it). */
    recordOfEvent: reservationOfStoredRow,
  };
}
