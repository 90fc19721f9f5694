import { inTransaction } from '../../db/database.js';
import type { Actor } from '../../lib/actor.js';
import { conflict, DomainError, type ErrorCode, invalidField, type RuleDetail } from '../../lib/errors.js';
import { nowIso } from '../../lib/time.js';
import type { OrganisationSchedule } from '../availability/service.js';
import { storedCustomerInfo } from '../reservations/answers.js';
import { newManageLink, type StoredManageLink, storedManageLink } from '../reservations/manage-link.js';
import type { BookingChannel } from '../reservations/service.js';
import type { ReservationSource } from '../reservations/tables.js';
import { recordOf, type WaitlistContext } from './context.js';
import { toEntry } from './repo.js';
import type { JoinWaitlistInput, WaitlistEntry } from './schemas.js';
import type { WaitlistService } from './service.js';

/** The type an entry is for (400 for no such resource or type), checked for the waitlist flag. */
async function waitlistType(
  { db, resources, resourceTypes }: WaitlistContext,
  org: OrganisationSchedule,
  input: JoinWaitlistInput,
) {
  let typeId = input.resourceTypeId;
  // A collective entry is of its first resource's type (the booking checks every one of them).
  const named = input.resourceIds?.[0] ?? input.resourceId;
  if (named !== undefined) {
    const resource = await resources.findInOrganisation(org.organisationId, named);
    if (!resource || resource.isCapacityChild)
      throw invalidField(
        input.resourceIds ? 'resourceIds' : 'resourceId',
        'no such bookable resource (capacity lanes are booked through their parent)',
      );
    if (typeId !== undefined && typeId !== resource.resourceTypeId)
      throw invalidField('resourceTypeId', 'does not match the type of resourceId');
    typeId = resource.resourceTypeId;
  }
  const type = await resourceTypes.findStored(db.kysely, org.organisationId, typeId!);
  if (!type) throw invalidField('resourceTypeId', 'no such resource type');
  if (!type.waitlistEnabled)
    throw conflict('WAITLIST_NOT_ENABLED', 'This resource type has no waitlist (waitlistEnabled is false)');
  return type;
}

/**
 * Every check of a booking runs first (as a dry run): a time that would be booked answers
 * 409 SLOT_AVAILABLE, any refusal but a full time is the booking's own.
 */
async function requireFull(
  { reservations }: WaitlistContext,
  org: OrganisationSchedule,
  input: JoinWaitlistInput,
  resourceTypeId: number,
  channel: BookingChannel,
): Promise<void> {
  const booking = input.resourceIds ? input : { ...input, resourceTypeId };
  const verdict = await reservations.dryRunOf(() =>
    reservations.book(org, booking, channel, undefined, { dryRun: true }),
  );
  if (verdict.wouldSucceed)
    throw conflict('SLOT_AVAILABLE', 'This time can be booked now: book it instead of waiting for it');
  if (verdict.error.code !== 'SLOT_UNAVAILABLE' && verdict.error.code !== 'HOST_UNAVAILABLE')
    throw new DomainError(
      verdict.error.code as ErrorCode,
      verdict.error.message,
      verdict.error.details as RuleDetail[] | undefined,
      undefined,
      verdict.error.alternatives,
    );
}

/** Puts a customer on the waitlist of a full time (one entry per email and time). */
async function joinIn(
  ctx: WaitlistContext,
  org: OrganisationSchedule,
  input: JoinWaitlistInput,
  channel: BookingChannel,
): Promise<WaitlistEntry> {
  const { db, repo, outbox } = ctx;
  const type = await waitlistType(ctx, org, input);
  await requireFull(ctx, org, input, type.id, channel);
  const { name, email, phone } = input.customer;
  const now = nowIso();
  const time = {
    startTime: new Date(input.startTime).toISOString(),
    endTime: new Date(input.endTime).toISOString(),
  };
  const row = await inTransaction(db.kysely, async (trx) => {
    if (await repo.isWaiting(trx, { organisationId: org.organisationId, customerEmail: email, ...time }))
      throw conflict(
        'CONFLICT',
        'This customer is already waiting for this time: one entry per email and time',
      );
    const inserted = await repo.insert(trx, {
      organisationId: org.organisationId,
      resourceTypeId: type.id,
      resourceId: input.resourceIds?.[0] ?? input.resourceId ?? null,
      resourceIds: input.resourceIds ? JSON.stringify(input.resourceIds) : null,
      ...time,
      customerName: name,
      customerEmail: email,
      customerPhone: phone ?? null,
      customerInfo: storedCustomerInfo(input.customer),
      notes: input.notes ?? null,
      status: 'waiting',
      offerReservationId: null,
      offerExpiresAt: null,
      source: channel.source,
      createdByUserId: channel.createdByUserId,
      // A member's entry gets a link too: only its mails carry it (reservations/manage-link.ts).
      ...storedManageLink(channel.manageLink ?? newManageLink(ctx.config.encryptionKey)),
      createdAt: now,
      updatedAt: now,
    });
    await outbox.append(trx, [
      {
        type: 'waitlist.joined',
        organisationId: org.organisationId,
        userId: channel.createdByUserId,
        data: toEntry(inserted, null),
      },
    ]);
    return inserted;
  });
  return recordOf(ctx, row);
}

/** Joining the waitlist: a member in their organisation, or a customer through its public page. */
export function createJoining(ctx: WaitlistContext): Pick<WaitlistService, 'join' | 'joinPublic'> {
  return {
    async join(actor: Actor, input: JoinWaitlistInput, source: ReservationSource = 'api') {
      const tenant = await ctx.organisations.requireTenant(actor, { can: 'book' });
      return joinIn(ctx, tenant, input, { source, createdByUserId: actor.userId });
    },

    joinPublic: (org: OrganisationSchedule, input: JoinWaitlistInput, manageLink: StoredManageLink) =>
      joinIn(ctx, org, input, { source: 'public_slug', createdByUserId: null, manageLink }),
  };
}
