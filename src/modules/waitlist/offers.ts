import { inTransaction } from '../../db/database.js';
import { DomainError } from '../../lib/errors.js';
import { nowIso } from '../../lib/time.js';
import { customerRecordOf } from '../reservations/answers.js';
import type { Customer } from '../reservations/customer-schemas.js';
import type { Reservation } from '../reservations/schemas.js';
import type { ReservationSource } from '../reservations/tables.js';
import type { WaitlistContext } from './context.js';
import { type EntryRow, toEntry } from './repo.js';

/** Refusals of an offer's hold that mean "it does not fit (yet)": the entry keeps waiting. */
const NOT_FITTING = new Set([
  'SLOT_UNAVAILABLE',
  'HOST_UNAVAILABLE',
  'BOOKING_RULE_VIOLATED',
  'PAYMENT_NOT_READY',
  'VALIDATION_FAILED',
]);

/** A time a reservation event freed. */
export interface FreedTime {
  start: string;
  end: string;
}

/** What an entry's offer books: its resources together, its one resource, or its type's pool. */
function targetOf(entry: EntryRow) {
  if (entry.resourceIds !== null) return { resourceIds: JSON.parse(entry.resourceIds) as number[] };
  return entry.resourceId !== null
    ? { resourceId: entry.resourceId }
    : { resourceTypeId: entry.resourceTypeId };
}

/** The held reservation an offer makes for `entry`, or undefined when its time does not fit. */
async function hold(
  { organisations, reservations }: WaitlistContext,
  entry: EntryRow,
  offerMinutes: number,
): Promise<Reservation | undefined> {
  // The job acts for no member, so it has no tenant: the schedule comes from the organisation itself.
  const organisation = await organisations.organisationById(entry.organisationId);
  if (!organisation) return undefined;
  const org = {
    organisationId: organisation.id,
    timezone: organisation.timezone,
    schedulePolicy: organisation.schedulePolicy ?? null,
  };
  const customer = customerRecordOf(entry) as Customer;
  try {
    return await reservations.book(
      org,
      {
        ...targetOf(entry),
        startTime: entry.startTime,
        endTime: entry.endTime,
        customer,
        ...(entry.notes ? { notes: entry.notes } : {}),
      },
      {
        source: entry.source as ReservationSource,
        createdByUserId: entry.createdByUserId,
        // The customer's manage link of a public entry manages its offer too.
        manageLink: entry.manageTokenHash
          ? { hash: entry.manageTokenHash, sealed: entry.manageTokenSealed }
          : null,
        resourceFixedByToken: entry.resourceId !== null,
      },
      { seconds: offerMinutes * 60 },
      { alternatives: false },
    );
  } catch (error) {
    if (error instanceof DomainError && NOT_FITTING.has(error.code)) return undefined;
    throw error;
  }
}

/**
 * Offers freed time of a type to its waiting entries, oldest first; answers how many got
 * an offer. `freed`: the times known to be freed (cancels, expiries): only entries
 * overlapping one are tried. Undefined: every waiting entry (a reschedule, whose old time
 * the event does not carry, and the periodic sweep).
 */
export async function offerType(
  ctx: WaitlistContext,
  organisationId: number,
  resourceTypeId: number,
  freed?: FreedTime[],
): Promise<number> {
  const { db, repo, resourceTypes, outbox } = ctx;
  const type = await resourceTypes.findStored(db.kysely, organisationId, resourceTypeId);
  if (!type?.waitlistEnabled) return 0;
  let offered = 0;
  const overlaps = (entry: EntryRow) =>
    !freed ||
    freed.some(
      (time) =>
        Date.parse(entry.startTime) < Date.parse(time.end) + type.bufferTime * 60_000 &&
        Date.parse(entry.endTime) + type.bufferTime * 60_000 > Date.parse(time.start),
    );
  for (const entry of (await repo.waitingOfType(resourceTypeId, nowIso())).filter(overlaps)) {
    if (!(await repo.claimOffer(entry.id, nowIso()))) continue;
    const held = await hold(ctx, entry, type.waitlistOfferMinutes).catch(async (error: unknown) => {
      await repo.unclaimOffer(entry.id, nowIso());
      throw error;
    });
    if (!held) {
      await repo.unclaimOffer(entry.id, nowIso());
      continue;
    }
    await inTransaction(db.kysely, async (trx) => {
      const linked = await repo.linkOffer(
        trx,
        entry.id,
        { reservationId: held.id, expiresAt: held.expiresAt },
        nowIso(),
      );
      if (!linked) return;
      await outbox.append(trx, [
        {
          type: 'waitlist.offered',
          organisationId,
          userId: entry.createdByUserId,
          data: toEntry(linked, null),
        },
      ]);
    });
    offered++;
  }
  return offered;
}

/** What an event about an offer's hold does to its entry: confirmed accepts it; lapsed or let go expires it. */
export async function settleOffer(
  { db, repo, outbox }: WaitlistContext,
  type: string,
  reservationId: number,
): Promise<void> {
  const entry = await repo.byOffer(reservationId);
  if (!entry) return;
  const now = nowIso();
  if (type === 'reservation.confirmed' || type === 'reservation.created') {
    await repo.transition(db.kysely, entry.id, ['offered'], 'accepted', now);
    return;
  }
  if (type !== 'reservation.expired' && type !== 'reservation.cancelled') return;
  await inTransaction(db.kysely, async (trx) => {
    const expired = await repo.transition(trx, entry.id, ['offered'], 'expired', now);
    if (!expired) return;
    await outbox.append(trx, [
      {
        type: 'waitlist.expired',
        organisationId: entry.organisationId,
        userId: entry.createdByUserId,
        data: toEntry(expired, null),
      },
    ]);
  });
}
