import { sha256 } from '../../lib/crypto.js';
import { DomainError, notFound } from '../../lib/errors.js';
import type { Reservation } from '../reservations/schemas.js';
import type { PublicBookingContext } from './context.js';
import {
  type PublicOrganisationRow,
  publicOrganisation,
  scheduleOf,
  toPublicReservation,
} from './public-views.js';
import type {
  ManagedReservation,
  ManagedSeries,
  ManagedWaitlistEntry,
  ManageRescheduleInput,
} from './schemas.js';

/**
 * What a customer's manage link does: see, confirm, cancel or move its reservation or
 * series, or leave the waitlist.
 */

/** What `randomToken` makes (32 bytes, base64url): anything else is no manage token, unread. */
const MANAGE_TOKEN = /^[A-Za-z0-9_-]{43}$/;
/** How long a manage link answers after the reservation ends or is cancelled (or the waited-for time ends). */
const MANAGE_LINK_LIFE_MS = 30 * 86_400_000;

/**
 * What a manage link names (`find` by the SHA-256 of its token) and its (active)
 * organisation. A malformed or unknown token, or one of an organisation no longer public,
 * is the same 404.
 */
async function byManageLink<T extends { organisationId: number }>(
  { repo }: PublicBookingContext,
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

/** The reservation a manage link names and its organisation. */
async function managed(context: PublicBookingContext, token: string) {
  const { org, found } = await byManageLink(
    context,
    token,
    context.reservations.findByManageTokenHash,
    'Reservation',
    ({ reservation }) => reservation.cancelledAt ?? reservation.endTime,
  );
  return { org, found: found.reservation };
}

const managedView = (org: PublicOrganisationRow, r: Reservation): ManagedReservation => ({
  ...toPublicReservation(r),
  organisation: publicOrganisation(org),
});

/** The series of the occurrence a manage link names; 404 for a reservation of no series. */
async function managedSeriesOf(context: PublicBookingContext, token: string) {
  const { org, found } = await managed(context, token);
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
const managedEntry = (context: PublicBookingContext, token: string) =>
  byManageLink(
    context,
    token,
    context.waitlist.findByManageTokenHash,
    'Waitlist entry',
    ({ entry }) => entry.endTime,
  );

export async function managedReservation(
  context: PublicBookingContext,
  token: string,
): Promise<ManagedReservation> {
  const { org, found } = await managed(context, token);
  return managedView(org, found);
}

export async function confirmManaged(
  context: PublicBookingContext,
  token: string,
): Promise<ManagedReservation> {
  const { org, found } = await managed(context, token);
  return managedView(org, await context.reservations.confirmHeld(org.id, found));
}

export async function cancelManaged(
  context: PublicBookingContext,
  token: string,
): Promise<ManagedReservation> {
  const { reservations } = context;
  const { org, found } = await managed(context, token);
  const cancelled =
    found.status === 'held'
      ? await reservations.releaseHeld(org.id, found)
      : await reservations.cancelFound(org.id, found, null);
  return managedView(org, cancelled);
}

export async function rescheduleManaged(
  context: PublicBookingContext,
  token: string,
  input: ManageRescheduleInput,
): Promise<ManagedReservation> {
  const { org, found } = await managed(context, token);
  return managedView(org, await context.reservations.rescheduleFound(scheduleOf(org), found, input, null));
}

export async function managedSeries(context: PublicBookingContext, token: string): Promise<ManagedSeries> {
  const { org, seriesId } = await managedSeriesOf(context, token);
  return managedSeriesView(org, await context.reservations.seriesFound(org.id, seriesId));
}

export async function cancelManagedSeries(
  context: PublicBookingContext,
  token: string,
): Promise<ManagedSeries> {
  const { org, seriesId } = await managedSeriesOf(context, token);
  return managedSeriesView(org, await context.reservations.cancelSeriesFound(org.id, seriesId, null));
}

export async function managedWaitlistEntry(
  context: PublicBookingContext,
  token: string,
): Promise<ManagedWaitlistEntry> {
  const { org, found } = await managedEntry(context, token);
  return { ...found.entry, organisation: publicOrganisation(org) };
}

export async function leaveManagedWaitlist(
  context: PublicBookingContext,
  token: string,
): Promise<ManagedWaitlistEntry> {
  const { org, found } = await managedEntry(context, token);
  return { ...(await found.leave()), organisation: publicOrganisation(org) };
}
