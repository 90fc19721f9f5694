import type { Config } from '../../config.js';
import type { Db } from '../../db/database.js';
import { hmacSha256, sha256 } from '../../lib/crypto.js';
import { conflict, DomainError, notFound } from '../../lib/errors.js';
import { resolveSchedule } from '../../scheduling/resolve.js';
import type { RangeQuery } from '../availability/schemas.js';
import type { AvailabilityService, OrganisationSchedule } from '../availability/service.js';
import type { PaymentsService } from '../payments/service.js';
import { manageUrlOf, newManageLink } from '../reservations/manage-link.js';
import type {
  DryRunAnswer,
  HoldInput,
  PublicReservation,
  Reservation,
  ReservationInput,
  SlugReservationInput,
  WouldBeReservation,
} from '../reservations/schemas.js';
import type { ReservationsService } from '../reservations/service.js';
import type { ResourceType } from '../resource-types/schemas.js';
import type { ResourceTypesService } from '../resource-types/service.js';
import type { Resource } from '../resources/schemas.js';
import type { ResourcesService } from '../resources/service.js';
import type { WaitlistService } from '../waitlist/service.js';
import { createPublicBookingRepo } from './repo.js';
import type {
  BookedPublicReservation,
  BookedPublicSeries,
  ManagedReservation,
  ManagedSeries,
  ManagedWaitlistEntry,
  ManageRescheduleInput,
  PublicWaitlistEntry,
} from './schemas.js';

type PublicOrganisationRow = NonNullable<
  Awaited<ReturnType<ReturnType<typeof createPublicBookingRepo>['organisationBySlug']>>
>;

const publicOrganisation = ({ id: _id, schedulePolicy: _policy, ...visible }: PublicOrganisationRow) =>
  visible;
const scheduleOf = (org: PublicOrganisationRow): OrganisationSchedule => ({
  organisationId: org.id,
  timezone: org.timezone,
  schedulePolicy: org.schedulePolicy,
});

function publicType(type: ResourceType, org: PublicOrganisationRow) {
  const mode = resolveSchedule({
    organisation: org.schedulePolicy,
    resourceType: type.schedulePolicy,
    resource: null,
  });
  return {
    id: type.id,
    name: type.name,
    description: type.description,
    bookingMode: type.bookingMode,
    availabilityMode: mode.availabilityMode,
    minBookingDuration: type.minBookingDuration,
    customerInfoFields: type.customerInfoFields,
    questions: type.questions,
    pricingEnabled: type.pricingEnabled,
    paymentRequired: type.paymentRequired,
    recurringEnabled: type.recurringEnabled,
    waitlistEnabled: type.waitlistEnabled,
    priceAmount: type.pricingEnabled ? type.priceAmount : null,
    priceCurrency: type.pricingEnabled ? type.priceCurrency : null,
    color: type.color,
    icon: type.icon,
  };
}

const publicResource = (r: Resource) => ({
  id: r.id,
  resourceTypeId: r.resourceTypeId,
  name: r.name,
  description: r.description,
  capacity: r.capacity,
});

/** What a public booker sees of a reservation, or of a dry run's would-be record (id null). */
const toPublicReservation = <R extends Reservation | WouldBeReservation>(
  r: R,
): Omit<PublicReservation, 'id' | 'reference'> & Pick<R, 'id' | 'reference'> => ({
  id: r.id,
  reference: r.reference,
  resourceTypeId: r.resourceTypeId,
  status: r.status,
  startTime: r.startTime,
  endTime: r.endTime,
  customer: r.customer,
  priceAmount: r.priceAmount,
  priceCurrency: r.priceCurrency,
  expiresAt: r.expiresAt,
  seriesId: r.seriesId,
  payment: r.payment,
});

/** A dry run's verdict as a public booker sees it. */
const publicDryRun = (answer: DryRunAnswer<WouldBeReservation>) =>
  answer.wouldSucceed ? { ...answer, reservation: toPublicReservation(answer.reservation) } : answer;

/** What `randomToken` makes (32 bytes, base64url): anything else is no manage token, unread. */
const MANAGE_TOKEN = /^[A-Za-z0-9_-]{43}$/;
/** How long a manage link answers after the reservation ends or is cancelled (or the waited-for time ends). */
const MANAGE_LINK_LIFE_MS = 30 * 86_400_000;
/** Live holds one customer email may keep through the public routes in an organisation. */
const PUBLIC_HOLDS_PER_EMAIL = 3;

export type PublicBookingService = ReturnType<typeof createPublicBookingService>;

/**
 * Booking pages for anyone: by organisation slug (current) or by a resource's
 * public token (legacy). Only active organisations, types and resources show;
 * lanes, managers, members and other customers never do.
 */
export function createPublicBookingService(deps: {
  db: Db;
  config: Pick<Config, 'frontendUrl' | 'publicHoldIpMax' | 'jwtSecret' | 'encryptionKey'>;
  availability: AvailabilityService;
  reservations: ReservationsService;
  resourceTypes: ResourceTypesService;
  resources: ResourcesService;
  waitlist: WaitlistService;
  payments: Pick<PaymentsService, 'takesPayments'>;
}) {
  const { db, config, availability, reservations, resourceTypes, resources, waitlist, payments } = deps;
  const repo = createPublicBookingRepo(db.kysely);
  /** Keys the hash of a hold's client address: a bare hash of an IPv4 address is undone in seconds. */
  const clientKey = hmacSha256(config.jwtSecret, 'public-hold-client');

  /**
   * A new customer manage link: the token goes out in the booking's answer, once, and in its
   * mails; its SHA-256 finds it (a 256-bit random token needs no slow hash) and it is stored
   * only sealed with ENCRYPTION_KEY, so a leaked table opens nothing.
   */
  const newLink = () => newManageLink(config.encryptionKey);
  type NewLink = ReturnType<typeof newLink>;
  const withManageLink = (booked: Reservation, link: NewLink): BookedPublicReservation => ({
    ...toPublicReservation(booked),
    manageToken: link.token,
    manageUrl: manageUrlOf(config.frontendUrl, link.token),
  });

  /**
   * What a manage link names (`find` by the SHA-256 of its token) and its (active)
   * organisation. A malformed or unknown token, or one of an organisation no longer public,
   * is the same 404.
   */
  async function byManageLink<T extends { organisationId: number }>(
    token: string,
    find: (tokenHash: string) => Promise<T | undefined>,
    what: string,
    endOf: (found: T) => string,
  ) {
    const found = MANAGE_TOKEN.test(token) ? await find(sha256(token)) : undefined;
    const org = found && (await repo.organisationById(found.organisationId));
    if (!found || !org) throw notFound(what);
    if (Date.now() > Date.parse(endOf(found)) + MANAGE_LINK_LIFE_MS)
      throw new DomainError(
        'LINK_EXPIRED',
        'This manage link has expired: it lives 30 days after what it manages',
      );
    return { org, found };
  }

  /** 409 CONFLICT when the customer's email or client address keeps as many live public holds as allowed. */
  async function checkHoldLimits(organisationId: number, customerEmail: string, publicClientHash: string) {
    const limits = [
      { max: PUBLIC_HOLDS_PER_EMAIL, per: 'customer email', by: { customerEmail } },
      { max: config.publicHoldIpMax, per: 'IP address', by: { publicClientHash } },
    ];
    for (const { max, per, by } of limits)
      if ((await reservations.livePublicHolds(organisationId, by)) >= max)
        throw conflict(
          'CONFLICT',
          `At most ${max} live holds per ${per} in an organisation: confirm or release one first`,
        );
  }

  /** The reservation a manage link names and its organisation. */
  async function managed(token: string) {
    const { org, found } = await byManageLink(
      token,
      reservations.findByManageTokenHash,
      'Reservation',
      ({ reservation }) => reservation.cancelledAt ?? reservation.endTime,
    );
    return { org, found: found.reservation };
  }
  const managedView = (org: PublicOrganisationRow, r: Reservation): ManagedReservation => ({
    ...toPublicReservation(r),
    organisation: publicOrganisation(org),
  });

  async function organisationOrThrow(slug: string) {
    const org = await repo.organisationBySlug(slug);
    if (!org) throw notFound('Organisation');
    return org;
  }

  async function tokenTarget(token: string) {
    const found = await repo.resourceByToken(token);
    if (!found) throw notFound('Resource');
    const resource = (await resources.findInOrganisation(found.organisation.id, found.resourceId))!;
    const type = await resourceTypes.findStored(db.kysely, found.organisation.id, resource.resourceTypeId);
    if (!type?.isActive) throw notFound('Resource');
    return { org: found.organisation, resource, type };
  }

  /** The resource or type must be publicly bookable in this organisation. */
  async function checkVisible(
    org: PublicOrganisationRow,
    target: { resourceId?: number; resourceTypeId?: number },
  ) {
    if (target.resourceId !== undefined) {
      const row = await resources.findInOrganisation(org.id, target.resourceId);
      if (!row || row.isCapacityChild || !row.isActive) throw notFound('Resource');
      const type = await resourceTypes.findStored(db.kysely, org.id, row.resourceTypeId);
      if (!type?.isActive) throw notFound('Resource');
    } else if (target.resourceTypeId !== undefined) {
      const type = await resourceTypes.findStored(db.kysely, org.id, target.resourceTypeId);
      if (!type?.isActive) throw notFound('Resource type');
    }
  }

  /**
   * A series through the organisation page: every occurrence or none, as a member's series
   * books; each occurrence gets its own manage link (shown once), and any of them cancels the
   * whole series.
   */
  async function bookSeries(
    org: PublicOrganisationRow,
    booking: ReservationInput,
    recurrence: string[],
  ): Promise<BookedPublicSeries> {
    const links: NewLink[] = [];
    const { seriesId, reservations: booked } = await reservations.bookSeries(
      scheduleOf(org),
      booking,
      recurrence,
      {
        source: 'public_slug',
        createdByUserId: null,
        // A retried attempt asks for the same occurrence again: it keeps its link.
        manageLinkOf: (n) => (links[n] ??= newLink()),
      },
    );
    return { seriesId, reservations: booked.map((r, n) => withManageLink(r, links[n]!)) };
  }

  /** The series of the occurrence a manage link names; 404 for a reservation of no series. */
  async function managedSeriesOf(token: string) {
    const { org, found } = await managed(token);
    if (found.seriesId === null) throw notFound('Reservation series');
    return { org, seriesId: found.seriesId };
  }
  const managedSeriesView = (
    org: PublicOrganisationRow,
    series: { id: number; reservations: Reservation[] },
  ): ManagedSeries => ({
    id: series.id,
    reservations: series.reservations.map(toPublicReservation),
    organisation: publicOrganisation(org),
  });

  /** The waitlist entry a manage link names and its organisation. */
  const managedEntry = (token: string) =>
    byManageLink(token, waitlist.findByManageTokenHash, 'Waitlist entry', ({ entry }) => entry.endTime);

  return {
    async catalogue(slug: string) {
      const org = await organisationOrThrow(slug);
      const [allTypes, allResources] = await Promise.all([
        resourceTypes.listInOrganisation(org.id),
        resources.listInOrganisation(org.id),
      ]);
      // A paid type is offered only while the organisation can take its payment.
      const paying = allTypes.some((t) => t.paymentRequired) && (await payments.takesPayments(org.id));
      const activeTypes = allTypes.filter((t) => t.isActive && (paying || !t.paymentRequired));
      const bookableTypeIds = new Set(activeTypes.map((t) => t.id));
      return {
        organisation: publicOrganisation(org),
        resourceTypes: activeTypes.map((t) => publicType(t, org)),
        resources: allResources
          .filter((r) => !r.isCapacityChild && r.isActive && bookableTypeIds.has(r.resourceTypeId))
          .map(publicResource),
      };
    },

    async slugAvailability(
      slug: string,
      query: RangeQuery & { resourceId?: number; resourceTypeId?: number },
    ) {
      const org = await organisationOrThrow(slug);
      await checkVisible(org, query);
      const range = { from: query.from, to: query.to };
      return query.resourceId !== undefined
        ? availability.forResource(scheduleOf(org), query.resourceId, range)
        : availability.forType(scheduleOf(org), query.resourceTypeId!, range);
    },

    async bookBySlug(slug: string, input: SlugReservationInput) {
      const org = await organisationOrThrow(slug);
      await checkVisible(org, input);
      const { recurrence, ...booking } = input;
      if (recurrence) return bookSeries(org, booking, recurrence);
      const link = newLink();
      const booked = await reservations.book(scheduleOf(org), booking, {
        source: 'public_slug',
        createdByUserId: null,
        manageLink: link,
      });
      return withManageLink(booked, link);
    },

    /**
     * Waiting for a full time through the organisation page: the entry, with the customer's
     * manage link (shown once). When the time frees, the offer's hold carries the same
     * link, so the customer confirms it at their manage page.
     */
    async joinWaitlistBySlug(slug: string, input: ReservationInput): Promise<PublicWaitlistEntry> {
      const org = await organisationOrThrow(slug);
      await checkVisible(org, input);
      const link = newLink();
      const entry = await waitlist.joinPublic(scheduleOf(org), input, link);
      return { ...entry, manageToken: link.token, manageUrl: manageUrlOf(config.frontendUrl, link.token) };
    },

    /**
     * A hold through the organisation page from `clientIp`: the time is kept for `holdSeconds`.
     * One customer (by email, and by address) keeps a few times at once, not a resource's week.
     */
    async holdBySlug(slug: string, input: HoldInput, clientIp: string) {
      const org = await organisationOrThrow(slug);
      await checkVisible(org, input);
      const publicClientHash = hmacSha256(clientKey, clientIp);
      await checkHoldLimits(org.id, input.customer.email, publicClientHash);
      const { holdSeconds, ...booking } = input;
      const link = newLink();
      const held = await reservations.book(
        scheduleOf(org),
        booking,
        { source: 'public_slug', createdByUserId: null, manageLink: link, publicClientHash },
        { seconds: holdSeconds },
      );
      return withManageLink(held, link);
    },

    /** `bookBySlug`'s dry run: its verdict, nothing written (no manage link either). */
    async dryRunBookBySlug(slug: string, input: SlugReservationInput) {
      const org = await organisationOrThrow(slug);
      await checkVisible(org, input);
      const { recurrence, ...booking } = input;
      const channel = { source: 'public_slug' as const, createdByUserId: null };
      if (recurrence) {
        const answer = await reservations.dryRunSeries(scheduleOf(org), booking, recurrence, channel);
        return answer.wouldSucceed
          ? { ...answer, reservations: answer.reservations.map(toPublicReservation) }
          : answer;
      }
      return publicDryRun(
        await reservations.dryRunOf(() =>
          reservations.book(scheduleOf(org), booking, channel, undefined, { dryRun: true }),
        ),
      );
    },

    /** `holdBySlug`'s dry run. */
    async dryRunHoldBySlug(slug: string, input: HoldInput, clientIp: string) {
      const org = await organisationOrThrow(slug);
      await checkVisible(org, input);
      const { holdSeconds, ...booking } = input;
      const channel = { source: 'public_slug' as const, createdByUserId: null };
      return publicDryRun(
        await reservations.dryRunOf(async () => {
          await checkHoldLimits(org.id, input.customer.email, hmacSha256(clientKey, clientIp));
          return reservations.book(
            scheduleOf(org),
            booking,
            channel,
            { seconds: holdSeconds },
            { dryRun: true },
          );
        }),
      );
    },

    async resourcePage(token: string) {
      const { org, resource, type } = await tokenTarget(token);
      return {
        organisation: publicOrganisation(org),
        resourceType: publicType(type, org),
        resource: publicResource(resource),
      };
    },

    async tokenAvailability(token: string, query: RangeQuery) {
      const { org, resource } = await tokenTarget(token);
      return availability.forResource(scheduleOf(org), resource.id, query);
    },

    async bookByToken(token: string, input: Omit<ReservationInput, 'resourceId' | 'resourceTypeId'>) {
      const { org, resource } = await tokenTarget(token);
      const link = newLink();
      const booked = await reservations.book(
        scheduleOf(org),
        { ...input, resourceId: resource.id },
        {
          source: 'public_token',
          createdByUserId: null,
          resourceFixedByToken: true,
          manageLink: link,
        },
      );
      return withManageLink(booked, link);
    },

    /** `bookByToken`'s dry run. */
    async dryRunBookByToken(token: string, input: Omit<ReservationInput, 'resourceId' | 'resourceTypeId'>) {
      const { org, resource } = await tokenTarget(token);
      const channel = { source: 'public_token' as const, createdByUserId: null, resourceFixedByToken: true };
      return publicDryRun(
        await reservations.dryRunOf(() =>
          reservations.book(scheduleOf(org), { ...input, resourceId: resource.id }, channel, undefined, {
            dryRun: true,
          }),
        ),
      );
    },

    /** The reservation a customer's manage link names, as they may see it. */
    async managedReservation(token: string): Promise<ManagedReservation> {
      const { org, found } = await managed(token);
      return managedView(org, found);
    },

    /** Confirms the held reservation a manage link names (a paid type's goes to payment). */
    async confirmManaged(token: string): Promise<ManagedReservation> {
      const { org, found } = await managed(token);
      return managedView(org, await reservations.confirmHeld(org.id, found));
    },

    /**
     * Cancels the reservation a manage link names, within the type's cancel notice (no
     * override on a public link). A hold is released: a hold can always be let go.
     */
    async cancelManaged(token: string): Promise<ManagedReservation> {
      const { org, found } = await managed(token);
      const cancelled =
        found.status === 'held'
          ? await reservations.releaseHeld(org.id, found)
          : await reservations.cancelFound(org.id, found, null);
      return managedView(org, cancelled);
    },

    /**
     * Moves the reservation a manage link names to another time on its resource or pool,
     * within the type's rules (no override on a public link): SLOT_UNAVAILABLE leaves it as it was.
     */
    async rescheduleManaged(token: string, input: ManageRescheduleInput): Promise<ManagedReservation> {
      const { org, found } = await managed(token);
      return managedView(org, await reservations.rescheduleFound(scheduleOf(org), found, input, null));
    },

    /** The series of the occurrence a manage link names, every occurrence as its customer sees it. */
    async managedSeries(token: string): Promise<ManagedSeries> {
      const { org, seriesId } = await managedSeriesOf(token);
      return managedSeriesView(org, await reservations.seriesFound(org.id, seriesId));
    },

    /**
     * Cancels every occurrence not yet started of the series a manage link's occurrence
     * belongs to, each within the type's cancel notice (no override on a public link).
     */
    async cancelManagedSeries(token: string): Promise<ManagedSeries> {
      const { org, seriesId } = await managedSeriesOf(token);
      return managedSeriesView(org, await reservations.cancelSeriesFound(org.id, seriesId, null));
    },

    /** The waitlist entry a customer's manage link names (before and after its offer). */
    async managedWaitlistEntry(token: string): Promise<ManagedWaitlistEntry> {
      const { org, found } = await managedEntry(token);
      return { ...found.entry, organisation: publicOrganisation(org) };
    },

    /** Leaves the waitlist through the manage link; an offer not yet taken is let go. */
    async leaveManagedWaitlist(token: string): Promise<ManagedWaitlistEntry> {
      const { org, found } = await managedEntry(token);
      return { ...(await found.leave()), organisation: publicOrganisation(org) };
    },
  };
}
