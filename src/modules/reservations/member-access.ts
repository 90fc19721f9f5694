import type { Actor } from '../../lib/actor.js';
import { forbidden } from '../../lib/errors.js';
import type { Tenant } from '../../tenancy/gate.js';
import { can, ROLE_MATRIX } from '../../tenancy/roles.js';
import type { BookingChannel } from './bookable.js';
import type { ReservationsContext } from './context.js';
import { overrideBy } from './rules.js';
import type { CreateHoldInput, CreateReservationInput } from './schemas.js';
import type { ReservationSource } from './tables.js';

/**
 * A member's booking or hold: in their active organisation, recorded as made by them (an
 * agent's as made by its owner), past the type's booking rules when staff ask to.
 */
export async function memberBooking(
  { organisations }: Pick<ReservationsContext, 'organisations'>,
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

/**
 * A reservation the actor may change (cancel, confirm, release, reschedule): in their active
 * organisation (404 otherwise), and made by them or changed by a role with
 * `cancelAnyReservation` (403 otherwise). Whoever may book may change their own.
 */
export async function changeable(ctx: ReservationsContext, actor: Actor, id: number, verb: string) {
  return changeableIn(ctx, await ctx.organisations.requireTenant(actor, { can: 'book' }), actor, id, verb);
}

/** `changeable` in a tenant already read. */
export async function changeableIn(
  { findOrThrow }: Pick<ReservationsContext, 'findOrThrow'>,
  tenant: Tenant,
  actor: Actor,
  id: number,
  verb: string,
) {
  const { organisationId, role } = tenant;
  const found = await findOrThrow(organisationId, id);
  if (found.createdByUserId !== actor.userId && !can(role, 'cancelAnyReservation')) {
    throw forbidden(
      `Only ${ROLE_MATRIX.cancelAnyReservation.join(', ')} or the member who made a reservation can ${verb} it`,
    );
  }
  return { organisationId, role, found, tenant };
}
