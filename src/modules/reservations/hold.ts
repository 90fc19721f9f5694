import { conflict } from '../../lib/errors.js';
import { nowIso } from '../../lib/time.js';
import { can } from '../../tenancy/roles.js';
import type { ResourceType } from '../resource-types/schemas.js';
import type { ReservationsContext } from './context.js';
import { dryRunOf } from './dry-run.js';
import { changeable, changeableIn, memberBooking } from './member-access.js';
import type { Reservation } from './schemas.js';
import type { ReservationsService } from './service.js';

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
  { payment, findOrThrow }: ReservationsContext,
  organisationId: number,
  held: Reservation,
  type: Pick<ResourceType, 'paymentWindowMinutes' | 'priceAmount' | 'priceCurrency'>,
): Promise<Reservation> {
  const waiting = await payment.startForHold(organisationId, held, type);
  if (waiting) return waiting;
  throw notHeld(await findOrThrow(organisationId, held.id), 'confirmed');
}

/** `confirmHeld` as ReservationsService documents it. */
async function confirmHeld(
  ctx: ReservationsContext,
  organisationId: number,
  found: Reservation,
): Promise<Reservation> {
  if (found.status !== 'held') throw notHeld(found, 'confirmed');
  const type =
    found.resourceTypeId === null
      ? undefined
      : await ctx.resourceTypes.findStored(ctx.db.kysely, organisationId, found.resourceTypeId);
  if (type?.paymentRequired) return confirmPaidHold(ctx, organisationId, found, type);
  const confirmed = await ctx.repo.transition(found.id, ['held'], 'confirmed', nowIso());
  if (confirmed) return confirmed;
  // Changed since it was read: lapsed, or released or confirmed by someone else.
  throw notHeld(await ctx.findOrThrow(organisationId, found.id), 'confirmed');
}

/** `releaseHeld` as ReservationsService documents it. */
async function releaseHeld(
  { repo, findOrThrow }: ReservationsContext,
  organisationId: number,
  found: Reservation,
): Promise<Reservation> {
  if (found.status !== 'held') throw notHeld(found, 'released');
  const released = await repo.transition(found.id, ['held'], 'cancelled', nowIso());
  if (released) return released;
  throw notHeld(await findOrThrow(organisationId, found.id), 'released');
}

/** Holds: a time kept for a while (a booking with an expiry), then confirmed or let go. */
export function createHolds(
  ctx: ReservationsContext,
  book: ReservationsService['book'],
): Pick<ReservationsService, 'hold' | 'dryRunHold' | 'confirm' | 'release' | 'confirmHeld' | 'releaseHeld'> {
  return {
    async hold(actor, input, source = 'api') {
      const { holdSeconds, ...rest } = input;
      const { tenant, booking, channel } = await memberBooking(ctx, actor, rest, source);
      return book(tenant, booking, channel, { seconds: holdSeconds });
    },
    async dryRunHold(actor, input, source = 'api') {
      const { holdSeconds, ...rest } = input;
      const { tenant, booking, channel } = await memberBooking(ctx, actor, rest, source);
      return dryRunOf(() => book(tenant, booking, channel, { seconds: holdSeconds }, { dryRun: true }));
    },
    async confirm(actor, id) {
      const tenant = await ctx.organisations.requireTenant(actor, { can: 'book' });
      // The usual confirm (a live hold of a type that takes no payment, the actor's or any
      // for a role with cancelAnyReservation) in one statement; whatever stands in its way
      // is read and answered by confirmHeld.
      const madeBy = can(tenant.role, 'cancelAnyReservation') ? null : actor.userId;
      const confirmed = await ctx.repo.confirmUnpaidHold(id, tenant.organisationId, madeBy, nowIso());
      if (confirmed) return confirmed;
      const { organisationId, found } = await changeableIn(ctx, tenant, actor, id, 'confirm');
      return confirmHeld(ctx, organisationId, found);
    },
    async release(actor, id) {
      const { organisationId, found } = await changeable(ctx, actor, id, 'release');
      return releaseHeld(ctx, organisationId, found);
    },
    confirmHeld: (organisationId, found) => confirmHeld(ctx, organisationId, found),
    releaseHeld: (organisationId, found) => releaseHeld(ctx, organisationId, found),
  };
}
