import type { RangeQuery, ResourceAvailability, TypeAvailability } from '../availability/schemas.js';
import { manageUrlOf } from '../reservations/manage-link.js';
import type { ReservationInput, SlugReservationInput } from '../reservations/schemas.js';
import {
  checkVisible,
  type NewLink,
  newLink,
  organisationOrThrow,
  type PublicBookingContext,
  withManageLink,
} from './context.js';
import {
  type PublicCatalogue,
  type PublicDryRun,
  type PublicOrganisationRow,
  type PublicSeriesDryRun,
  publicDryRun,
  publicOrganisation,
  publicResource,
  publicType,
  scheduleOf,
  toPublicReservation,
} from './public-views.js';
import type { BookedPublicReservation, BookedPublicSeries, PublicWaitlistEntry } from './schemas.js';

/**
 * An organisation's booking page (by its slug): what it offers, its free times, booking and
 * waiting there (holds: public-holds.ts).
 */

export async function catalogue(context: PublicBookingContext, slug: string): Promise<PublicCatalogue> {
  const { resourceTypes, resources, payments } = context;
  const org = await organisationOrThrow(context, slug);
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
}

export async function slugAvailability(
  context: PublicBookingContext,
  slug: string,
  query: RangeQuery & { resourceId?: number; resourceTypeId?: number },
): Promise<ResourceAvailability | TypeAvailability> {
  const { availability } = context;
  const org = await organisationOrThrow(context, slug);
  await checkVisible(context, org, query);
  const range = { from: query.from, to: query.to };
  return query.resourceId !== undefined
    ? availability.forResource(scheduleOf(org), query.resourceId, range)
    : availability.forType(scheduleOf(org), query.resourceTypeId!, range);
}

/**
 * A series through the organisation page: every occurrence or none, as a member's series
 * books; each occurrence gets its own manage link (shown once), and any of them cancels the
 * whole series.
 */
async function bookSeries(
  context: PublicBookingContext,
  org: PublicOrganisationRow,
  booking: ReservationInput,
  recurrence: string[],
): Promise<BookedPublicSeries> {
  const { reservations } = context;
  const links: NewLink[] = [];
  const { seriesId, reservations: booked } = await reservations.bookSeries(
    scheduleOf(org),
    booking,
    recurrence,
    {
      source: 'public_slug',
      createdByUserId: null,
      // A retried attempt asks for the same occurrence again: it keeps its link.
      manageLinkOf: (n) => (links[n] ??= newLink(context)),
    },
  );
  return { seriesId, reservations: booked.map((r, n) => withManageLink(context, r, links[n]!)) };
}

export async function bookBySlug(
  context: PublicBookingContext,
  slug: string,
  input: SlugReservationInput,
): Promise<BookedPublicReservation | BookedPublicSeries> {
  const org = await organisationOrThrow(context, slug);
  await checkVisible(context, org, input);
  const { recurrence, ...booking } = input;
  if (recurrence) return bookSeries(context, org, booking, recurrence);
  const link = newLink(context);
  const booked = await context.reservations.book(scheduleOf(org), booking, {
    source: 'public_slug',
    createdByUserId: null,
    manageLink: link,
  });
  return withManageLink(context, booked, link);
}

export async function joinWaitlistBySlug(
  context: PublicBookingContext,
  slug: string,
  input: ReservationInput,
): Promise<PublicWaitlistEntry> {
  const { waitlist, config } = context;
  const org = await organisationOrThrow(context, slug);
  await checkVisible(context, org, input);
  const link = newLink(context);
  const entry = await waitlist.joinPublic(scheduleOf(org), input, link);
  return { ...entry, manageToken: link.token, manageUrl: manageUrlOf(config.frontendUrl, link.token) };
}

export async function dryRunBookBySlug(
  context: PublicBookingContext,
  slug: string,
  input: SlugReservationInput,
): Promise<PublicSeriesDryRun | PublicDryRun> {
  const { reservations } = context;
  const org = await organisationOrThrow(context, slug);
  await checkVisible(context, org, input);
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
}
