import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../../config.js';
import { type Db, type Executor, inTransaction } from '../../db/database.js';
import { notFound } from '../../lib/errors.js';
import { nowIso } from '../../lib/time.js';
import type { AvailabilityService, OrganisationSchedule } from '../availability/service.js';
import type { OrganisationsService } from '../organisations/service.js';
import type { PaymentsService } from '../payments/service.js';
import type { ResourceTypesService } from '../resource-types/service.js';
import type { ResourcesService } from '../resources/service.js';
import { createAlternatives } from './alternatives.js';
import { newManageLink, type StoredManageLink } from './manage-link.js';
import { createReservationPayments, type ReservationPayments } from './payment.js';
import { createReservationRepo } from './repo.js';
import type { CustomerDays } from './rules.js';
import type { Reservation } from './schemas.js';

/** What the reservations service is built from (module.ts hands it over). */
export interface ReservationsServiceDeps {
  db: Db;
  organisations: OrganisationsService;
  availability: AvailabilityService;
  resourceTypes: ResourceTypesService;
  resources: ResourcesService;
  payments: PaymentsService;
  config: Config;
  log?: FastifyBaseLogger | undefined;
}

/** What `availability.readLanes` answers a booking or a move: its type, its lanes and what is taken on them. */
export type LaneRead = NonNullable<Awaited<ReturnType<AvailabilityService['readLanes']>>>;
/** A lane a booking or a move may take (`availability.offerLanes`). */
export type LaneOffer = Awaited<ReturnType<AvailabilityService['offerLanes']>>[number];

/** What every reservations use case is built from: the services it calls, the repo, and the helpers below. */
export interface ReservationsContext {
  db: Db;
  organisations: OrganisationsService;
  availability: AvailabilityService;
  resourceTypes: ResourceTypesService;
  resources: ResourcesService;
  repo: ReturnType<typeof createReservationRepo>;
  /** The reservation side of payment (payment.ts). */
  payment: ReservationPayments;
  /** What a refused write offers instead (alternatives.ts). */
  alternatives: ReturnType<typeof createAlternatives>;
  /**
   * Marks `expired` the holds and unpaid bookings whose expiry passed at `now`: those of one
   * lane (a booking taking it), or a batch of the oldest (the job). Every expiry by the
   * clock goes through here, and each row is answered by exactly one run, on any instance.
   * The provider's `checkout.expired` (payment.ts) is the one other way to `expired`: what
   * follows an expiry (its change event, a waitlist offer) goes in both.
   */
  expireLapsed(
    executor: Executor,
    now: string,
    scope: { laneId: number } | { limit: number },
  ): Promise<Reservation[]>;
  /** What the daily limit of the booking rules (rules.ts) reads, through `executor`, at the current time. */
  customerDaysOf(executor: Executor, org: OrganisationSchedule, resourceTypeId: number): CustomerDays;
  /** A manage link for a booking that brings none (staff's, an agent's): only its mails carry it. */
  mintManageLink(): StoredManageLink;
  /**
   * How a booking's reads and its write hang together. SQLite: in one transaction, which
   * holds the only connection, so nothing commits in between. PostgreSQL: no transaction
   * and no lock across round trips; the insert itself refuses a lane whose time was taken
   * (the exclusion constraint) or whose row changed (the lane guard) since the reads.
   */
  bookingScope<T>(work: (executor: Executor) => Promise<T>): Promise<T>;
  /** A reservation of the organisation; 404 when there is none. */
  findOrThrow(organisationId: number, id: number): Promise<Reservation>;
}

export function createReservationsContext(deps: ReservationsServiceDeps): ReservationsContext {
  const { db, organisations, availability, resourceTypes, resources } = deps;
  const repo = createReservationRepo(db.kysely, db.dialect);
  const payment = createReservationPayments({
    repo,
    payments: deps.payments,
    config: deps.config,
    log: deps.log,
  });
  return {
    db,
    organisations,
    availability,
    resourceTypes,
    resources,
    repo,
    payment,
    alternatives: createAlternatives({ db, repo, availability, resourceTypes }),
    expireLapsed: async (executor, now, scope) =>
      'laneId' in scope
        ? repo.expireLapsedOnLane(executor, scope.laneId, now)
        : repo.expireLapsed(executor, now, scope.limit),
    customerDaysOf: (executor, org, resourceTypeId) => ({
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
    }),
    mintManageLink: () => newManageLink(deps.config.encryptionKey),
    bookingScope: (work) => (db.dialect === 'sqlite' ? inTransaction(db.kysely, work) : work(db.kysely)),
    async findOrThrow(organisationId, id) {
      const found = await repo.find(organisationId, id);
      if (!found) throw notFound('Reservation');
      return found;
    },
  };
}
