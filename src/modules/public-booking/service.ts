import { hmacSha256 } from '../../lib/crypto.js';
import type { RangeQuery, ResourceAvailability, TypeAvailability } from '../availability/schemas.js';
import type { HoldInput, ReservationInput, SlugReservationInput } from '../reservations/schemas.js';
import type { PublicBookingContext, PublicBookingDeps } from './context.js';
import {
  cancelManaged,
  cancelManagedSeries,
  confirmManaged,
  leaveManagedWaitlist,
  managedReservation,
  managedSeries,
  managedWaitlistEntry,
  rescheduleManaged,
} from './manage-links.js';
import {
  bookBySlug,
  catalogue,
  dryRunBookBySlug,
  joinWaitlistBySlug,
  slugAvailability,
} from './organisation-page.js';
import { dryRunHoldBySlug, holdBySlug } from './public-holds.js';
import { withPublicReasons } from './public-reasons.js';
import type {
  PublicCatalogue,
  PublicDryRun,
  PublicResourcePage,
  PublicSeriesDryRun,
} from './public-views.js';
import { createPublicBookingReads } from './repo.js';
import type {
  BookedPublicReservation,
  BookedPublicSeries,
  ManagedReservation,
  ManagedSeries,
  ManagedWaitlistEntry,
  ManageRescheduleInput,
  PublicWaitlistEntry,
} from './schemas.js';
import { bookByToken, dryRunBookByToken, resourcePage, tokenAvailability } from './token-page.js';

export type { PublicBookingDeps } from './context.js';

/**
 * Booking pages for anyone: by organisation slug (current, organisation-page.ts and
 * public-holds.ts) or by a resource's public token (legacy, token-page.ts), and what a
 * customer's manage link does (manage-links.ts). Only active organisations, types and
 * resources show; lanes, managers, members and other customers never do (public-views.ts).
 */
export interface PublicBookingService {
  /**
   * An organisation's booking page: the organisation, and its active types and resources (a
   * paid type only while the organisation can take its payment).
   */
  catalogue(slug: string): Promise<PublicCatalogue>;

  /** Availability of a publicly bookable resource or type of the organisation. */
  slugAvailability(
    slug: string,
    query: RangeQuery & { resourceId?: number; resourceTypeId?: number },
  ): Promise<ResourceAvailability | TypeAvailability>;

  /**
   * Books through the organisation page with the customer's manage link (shown once). With
   * `recurrence`, a series: every occurrence or none, each with its own manage link, and any
   * of them cancels the whole series.
   */
  bookBySlug(
    slug: string,
    input: SlugReservationInput,
  ): Promise<BookedPublicReservation | BookedPublicSeries>;

  /**
   * Waiting for a full time through the organisation page: the entry, with the customer's
   * manage link (shown once). When the time frees, the offer's hold carries the same
   * link, so the customer confirms it at their manage page.
   */
  joinWaitlistBySlug(slug: string, input: ReservationInput): Promise<PublicWaitlistEntry>;

  /**
   * A hold through the organisation page from `clientIp`: the time is kept for `holdSeconds`.
   * One customer (by email, and by address) keeps a few times at once, not a resource's week.
   */
  holdBySlug(slug: string, input: HoldInput, clientIp: string): Promise<BookedPublicReservation>;

  /** `bookBySlug`'s dry run: its verdict, nothing written (no manage link either). */
  dryRunBookBySlug(slug: string, input: SlugReservationInput): Promise<PublicSeriesDryRun | PublicDryRun>;

  /** `holdBySlug`'s dry run. */
  dryRunHoldBySlug(slug: string, input: HoldInput, clientIp: string): Promise<PublicDryRun>;

  /** A resource's own booking page (its public token): the organisation, the resource and its type. */
  resourcePage(token: string): Promise<PublicResourcePage>;

  /** Availability of the resource a public token names. */
  tokenAvailability(token: string, query: RangeQuery): Promise<ResourceAvailability>;

  /** Books the resource a public token names, with the customer's manage link (shown once). */
  bookByToken(
    token: string,
    input: Omit<ReservationInput, 'resourceId' | 'resourceTypeId'>,
  ): Promise<BookedPublicReservation>;

  /** `bookByToken`'s dry run. */
  dryRunBookByToken(
    token: string,
    input: Omit<ReservationInput, 'resourceId' | 'resourceTypeId'>,
  ): Promise<PublicDryRun>;

  /** The reservation a customer's manage link names, as they may see it. */
  managedReservation(token: string): Promise<ManagedReservation>;

  /** Confirms the held reservation a manage link names (a paid type's goes to payment). */
  confirmManaged(token: string): Promise<ManagedReservation>;

  /**
   * Cancels the reservation a manage link names, within the type's cancel notice (no
   * override on a public link). A hold is released: a hold can always be let go.
   */
  cancelManaged(token: string): Promise<ManagedReservation>;

  /**
   * Moves the reservation a manage link names to another time on its resource or pool,
   * within the type's rules (no override on a public link): SLOT_UNAVAILABLE leaves it as it was.
   */
  rescheduleManaged(token: string, input: ManageRescheduleInput): Promise<ManagedReservation>;

  /** The series of the occurrence a manage link names, every occurrence as its customer sees it. */
  managedSeries(token: string): Promise<ManagedSeries>;

  /**
   * Cancels every occurrence not yet started of the series a manage link's occurrence
   * belongs to, each within the type's cancel notice (no override on a public link).
   */
  cancelManagedSeries(token: string): Promise<ManagedSeries>;

  /** The waitlist entry a customer's manage link names (before and after its offer). */
  managedWaitlistEntry(token: string): Promise<ManagedWaitlistEntry>;

  /** Leaves the waitlist through the manage link; an offer not yet taken is let go. */
  leaveManagedWaitlist(token: string): Promise<ManagedWaitlistEntry>;
}

export function createPublicBookingService(deps: PublicBookingDeps): PublicBookingService {
  const context: PublicBookingContext = {
    ...deps,
    repo: createPublicBookingReads(deps.organisations, deps.resources),
    clientKey: hmacSha256(deps.config.jwtSecret, 'public-hold-client'),
  };
  return {
    catalogue: (slug) => catalogue(context, slug),
    slugAvailability: (slug, query) => slugAvailability(context, slug, query),
    bookBySlug: (slug, input) => withPublicReasons(bookBySlug(context, slug, input)),
    joinWaitlistBySlug: (slug, input) => joinWaitlistBySlug(context, slug, input),
    holdBySlug: (slug, input, clientIp) => withPublicReasons(holdBySlug(context, slug, input, clientIp)),
    dryRunBookBySlug: (slug, input) => withPublicReasons(dryRunBookBySlug(context, slug, input)),
    dryRunHoldBySlug: (slug, input, clientIp) =>
      withPublicReasons(dryRunHoldBySlug(context, slug, input, clientIp)),
    resourcePage: (token) => resourcePage(context, token),
    tokenAvailability: (token, query) => tokenAvailability(context, token, query),
    bookByToken: (token, input) => withPublicReasons(bookByToken(context, token, input)),
    dryRunBookByToken: (token, input) => withPublicReasons(dryRunBookByToken(context, token, input)),
    managedReservation: (token) => managedReservation(context, token),
    confirmManaged: (token) => confirmManaged(context, token),
    cancelManaged: (token) => cancelManaged(context, token),
    rescheduleManaged: (token, input) => withPublicReasons(rescheduleManaged(context, token, input)),
    managedSeries: (token) => managedSeries(context, token),
    cancelManagedSeries: (token) => cancelManagedSeries(context, token),
    managedWaitlistEntry: (token) => managedWaitlistEntry(context, token),
    leaveManagedWaitlist: (token) => leaveManagedWaitlist(context, token),
  };
}
