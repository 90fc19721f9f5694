import { randomUUID } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../../config.js';
import { type Db, inTransaction } from '../../db/database.js';
import type { ReservationSource } from '../../db/tables/resources.js';
import type { JobQueue } from '../../jobs/queue.js';
import type { Actor } from '../../lib/actor.js';
import { coalescing } from '../../lib/coalescing.js';
import { safeEqual } from '../../lib/crypto.js';
import {
  conflict,
  DomainError,
  type ErrorCode,
  invalidField,
  notFound,
  type RuleDetail,
} from '../../lib/errors.js';
import { nowIso } from '../../lib/time.js';
import { can } from '../../tenancy/roles.js';
import type { OrganisationSchedule } from '../availability/service.js';
import type { OrganisationsService } from '../organisations/service.js';
import type { OutboxService } from '../outbox/service.js';
import { customerRecordOf, storedCustomerInfo } from '../reservations/answers.js';
import { newManageLink, type StoredManageLink, storedManageLink } from '../reservations/manage-link.js';
import type { Customer, Reservation } from '../reservations/schemas.js';
import type { BookingChannel, ReservationsService } from '../reservations/service.js';
import type { ResourceTypesService } from '../resource-types/service.js';
import type { ResourcesService } from '../resources/service.js';
import { createWaitlistRepo, type EntryRow, shownStatus, toEntry } from './repo.js';
import type { JoinWaitlistInput, ListWaitlistQuery, WaitlistEntry } from './schemas.js';

/** The job that offers freed time to waiting entries (and its periodic pass). */
export const WAITLIST_OFFERS_JOB = 'waitlist_offers';
/** Outbox events one read of the consumer takes. */
const EVENT_BATCH = 200;
/** How long a run holds the consumer's lease; a run that dies frees it by itself after this. */
const LEASE_MS = 30_000;
/** Reservation events that can free time a waiting entry wants. */
const FREEING = new Set(['reservation.cancelled', 'reservation.expired', 'reservation.rescheduled']);
/** Refusals of an offer's hold that mean "it does not fit (yet)": the entry keeps waiting. */
const NOT_FITTING = new Set([
  'SLOT_UNAVAILABLE',
  'BOOKING_RULE_VIOLATED',
  'PAYMENT_NOT_READY',
  'VALIDATION_FAILED',
]);

export type WaitlistService = ReturnType<typeof createWaitlistService>;

/**
 * The waitlist (DECISIONS.md "Recurring reservations and the waitlist"): customers wait
 * for a full time; when capacity for it frees, the oldest waiting entry that now fits
 * gets a timed hold. Offers are made by a consumer of the outbox (the reservation events
 * are written by triggers in the very statement that frees the time), from a stored
 * position under a lease, so one instance offers each freed time, and an event not yet
 * handled when an instance dies is handled after the restart.
 */
export function createWaitlistService(deps: {
  db: Db;
  organisations: OrganisationsService;
  reservations: ReservationsService;
  resourceTypes: ResourceTypesService;
  resources: ResourcesService;
  outbox: OutboxService;
  jobs: Pick<JobQueue, 'work' | 'every' | 'send'>;
  config: Pick<Config, 'encryptionKey'>;
  log?: FastifyBaseLogger | undefined;
}) {
  const { db, organisations, reservations, resourceTypes, resources, outbox, jobs } = deps;
  const repo = createWaitlistRepo(db.kysely);

  const recordOf = async (row: EntryRow): Promise<WaitlistEntry> =>
    toEntry(row, shownStatus(row) === 'waiting' ? await repo.position(row) : null);

  /** The type an entry is for (400 for no such resource or type), checked for the waitlist flag. */
  async function waitlistType(org: OrganisationSchedule, input: JoinWaitlistInput) {
    let typeId = input.resourceTypeId;
    if (input.resourceId !== undefined) {
      const resource = await resources.findInOrganisation(org.organisationId, input.resourceId);
      if (!resource || resource.isCapacityChild)
        throw invalidField(
          'resourceId',
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
   * Puts a customer on the waitlist of a full time: every check of a booking runs first
   * (as a dry run), and a time that would be booked answers 409 SLOT_AVAILABLE.
   */
  async function joinIn(
    org: OrganisationSchedule,
    input: JoinWaitlistInput,
    channel: BookingChannel,
  ): Promise<WaitlistEntry> {
    const type = await waitlistType(org, input);
    const verdict = await reservations.dryRunOf(() =>
      reservations.book(org, { ...input, resourceTypeId: type.id }, channel, undefined, { dryRun: true }),
    );
    if (verdict.wouldSucceed)
      throw conflict('SLOT_AVAILABLE', 'This time can be booked now: book it instead of waiting for it');
    if (verdict.error.code !== 'SLOT_UNAVAILABLE')
      throw new DomainError(
        verdict.error.code as ErrorCode,
        verdict.error.message,
        verdict.error.details as RuleDetail[] | undefined,
        undefined,
        verdict.error.alternatives,
      );
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
        resourceId: input.resourceId ?? null,
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
        ...storedManageLink(channel.manageLink ?? newManageLink(deps.config.encryptionKey)),
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
    return recordOf(row);
  }

  /** An entry of the actor's organisation they may see: their own, or any for staff; 404 otherwise. */
  async function visible(actor: Actor, id: number) {
    const tenant = await organisations.requireTenant(actor, { can: 'book' });
    const row = await repo.find(tenant.organisationId, id);
    if (!row || (row.createdByUserId !== actor.userId && !can(tenant.role, 'cancelAnyReservation')))
      throw notFound('Waitlist entry');
    return row;
  }

  /**
   * Leaves the waitlist. An offer not yet taken is let go: its hold is released, and the
   * time goes to the next in line.
   */
  async function leaveFound(found: EntryRow): Promise<WaitlistEntry> {
    const left = await repo.transition(db.kysely, found.id, ['waiting', 'offered'], 'left', nowIso());
    if (!left) throw conflict('INVALID_TRANSITION', `A ${found.status} waitlist entry cannot be left`);
    if (found.status === 'offered' && found.offerReservationId !== null) {
      const offer = await reservations.findIn(found.organisationId, found.offerReservationId);
      if (offer?.status === 'held')
        await reservations.releaseHeld(found.organisationId, offer).catch(() => undefined);
    }
    return recordOf(left);
  }

  // ---- offers ----

  /** The held reservation an offer makes for `entry`, or undefined when its time does not fit. */
  async function hold(entry: EntryRow, offerMinutes: number): Promise<Reservation | undefined> {
    const org = await repo.schedule(entry.organisationId);
    if (!org) return undefined;
    const customer = customerRecordOf(entry) as Customer;
    try {
      return await reservations.book(
        org,
        {
          ...(entry.resourceId !== null
            ? { resourceId: entry.resourceId }
            : { resourceTypeId: entry.resourceTypeId }),
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
  async function offerType(
    organisationId: number,
    resourceTypeId: number,
    freed?: Array<{ start: string; end: string }>,
  ): Promise<number> {
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
      const held = await hold(entry, type.waitlistOfferMinutes).catch(async (error: unknown) => {
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
  async function settleOffer(type: string, reservationId: number): Promise<void> {
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

  /**
   * One run of the consumer: under the lease, the events after its position, each handled
   * (offers settled, freed time offered) before the position passes it, so a run that dies
   * midway leaves the rest to the next. `sweep` also offers every type with waiting
   * entries: what no event announces (a capacity raised, a schedule widened).
   */
  async function runOnce(options: { sweep?: boolean }): Promise<{ events: number; offered: number }> {
    // Nobody waits and no offer is open: no event can settle or offer anything. Skip them
    // unread, without the lease's writes (an entry joining meanwhile is for a time full at
    // its join; the sweep covers the rest).
    const newest = await outbox.lastPosition();
    if (!(await repo.anyOpen())) {
      if (newest !== null) await repo.skipTo(newest, nowIso());
      return { events: 0, offered: 0 };
    }
    const claim = randomUUID();
    const leaseEnd = () => new Date(Date.now() + LEASE_MS).toISOString();
    const lease = await repo.claimLease(claim, nowIso(), leaseEnd());
    if (!lease) return { events: 0, offered: 0 };
    let position = lease.position;
    const total = { events: 0, offered: 0 };
    try {
      // Offers a run claimed but never linked to a hold (it died in between) wait again.
      for (const stale of await repo.unlinkedOffers(new Date(Date.now() - LEASE_MS).toISOString()))
        await repo.unclaimOffer(stale.id, nowIso());
      for (;;) {
        const events = await outbox.readAfter(position, EVENT_BATCH);
        if (events.length === 0) break;
        const types = new Map<
          string,
          { organisationId: number; resourceTypeId: number; freed?: Array<{ start: string; end: string }> }
        >();
        for (const event of events) {
          if (!event.type.startsWith('reservation.')) continue;
          const data = event.data as Reservation;
          await settleOffer(event.type, data.id);
          if (!FREEING.has(event.type) || data.resourceTypeId === null || event.organisationId === null)
            continue;
          const key = `${event.organisationId}:${data.resourceTypeId}`;
          const known = types.get(key) ?? {
            organisationId: event.organisationId,
            resourceTypeId: data.resourceTypeId,
            freed: [],
          };
          // A reschedule's event carries the new time only: its old one could be anywhere.
          if (event.type === 'reservation.rescheduled') delete known.freed;
          else known.freed?.push({ start: data.startTime, end: data.endTime });
          types.set(key, known);
        }
        for (const { organisationId, resourceTypeId, freed } of types.values())
          total.offered += await offerType(organisationId, resourceTypeId, freed);
        position = events[events.length - 1]!.id;
        total.events += events.length;
        if (!(await repo.advance(claim, position, leaseEnd()))) return total; // the lease was lost
        if (events.length < EVENT_BATCH) break;
      }
      if (options.sweep)
        for (const { organisationId, resourceTypeId } of await repo.typesWaiting(nowIso()))
          total.offered += await offerType(organisationId, resourceTypeId);
      return total;
    } finally {
      await repo.releaseLease(claim);
    }
  }

  /**
   * One run at a time on this instance, calls while it runs folded into one more (which
   * sweeps if any of them asked): a run that found the lease taken by its own instance's
   * run would answer before that run made its offers, so a caller (the job, the watcher, a
   * test) could not count on what it asked for being done when its call answers.
   */
  let sweepAsked = false;
  const coalesced = coalescing(() => {
    const sweep = sweepAsked;
    sweepAsked = false;
    return runOnce({ sweep });
  });
  const run = (options: { sweep?: boolean } = {}) => {
    if (options.sweep) sweepAsked = true;
    return coalesced();
  };

  jobs.work(WAITLIST_OFFERS_JOB, async () => void (await run({ sweep: true })), {
    retryLimit: 0,
    deduplicate: true,
  });
  jobs.every(WAITLIST_OFFERS_JOB, 1);
  outbox.onNewEvents('waitlist', () => run(), { idle: async () => !(await repo.anyOpen()) });
  // Time no event announces (a capacity raised, a resource added): the sweep, queued now. A
  // crash before it is queued leaves it to the once-a-minute sweep.
  resources.onTimeAdded(() => {
    jobs
      .send(WAITLIST_OFFERS_JOB, {}, { singletonKey: WAITLIST_OFFERS_JOB })
      .catch((err: unknown) => deps.log?.warn({ err }, 'could not queue the waitlist sweep'));
  });

  return {
    /** A member's entry (made by them) in their active organisation. */
    async join(actor: Actor, input: JoinWaitlistInput, source: ReservationSource = 'api') {
      const tenant = await organisations.requireTenant(actor, { can: 'book' });
      return joinIn(tenant, input, { source, createdByUserId: actor.userId });
    },

    /** A public entry (through an organisation's slug), linked to the customer's manage token. */
    joinPublic: (org: OrganisationSchedule, input: JoinWaitlistInput, manageLink: StoredManageLink) =>
      joinIn(org, input, { source: 'public_slug', createdByUserId: null, manageLink }),

    async get(actor: Actor, id: number): Promise<WaitlistEntry> {
      return recordOf(await visible(actor, id));
    },

    /** Entries of the active organisation, oldest first (OWNER, ADMIN, MANAGER). */
    async list(actor: Actor, query: ListWaitlistQuery): Promise<{ items: WaitlistEntry[] }> {
      const { organisationId } = await organisations.requireTenant(actor, { can: 'cancelAnyReservation' });
      const rows = await repo.list(organisationId, query);
      return { items: await Promise.all(rows.map(recordOf)) };
    },

    /**
     * Whether `reservationId` is the held reservation of an open offer in the actor's
     * organisation: confirming it takes the offer (an agent's policy counts that as a booking).
     */
    async isOfferHold(actor: Actor, reservationId: number): Promise<boolean> {
      const { organisationId } = await organisations.requireTenant(actor);
      return (await repo.findOffering(organisationId, reservationId)) !== undefined;
    },

    /** Leaves the waitlist (its creator, or staff; anyone else's entry is 404): see `leaveFound`. */
    async leave(actor: Actor, id: number): Promise<WaitlistEntry> {
      return leaveFound(await visible(actor, id));
    },

    /**
     * The entry a customer's manage link names (by the SHA-256 of its token) and its
     * organisation; undefined for any other hash. Compared in constant time after the index.
     */
    async findByManageTokenHash(
      tokenHash: string,
    ): Promise<
      { organisationId: number; entry: WaitlistEntry; leave: () => Promise<WaitlistEntry> } | undefined
    > {
      const row = await repo.findByManageTokenHash(tokenHash);
      if (!row?.manageTokenHash || !safeEqual(row.manageTokenHash, tokenHash)) return undefined;
      return { organisationId: row.organisationId, entry: await recordOf(row), leave: () => leaveFound(row) };
    },

    /** One run of the offer consumer (what the job and the outbox watch run); `sweep` offers every waiting type. */
    processOffers: run,
  };
}
