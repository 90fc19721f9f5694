import type { Actor } from '../../lib/actor.js';
import type { OrganisationSchedule } from '../availability/service.js';
import type { StoredManageLink } from '../reservations/manage-link.js';
import type { ReservationSource } from '../reservations/tables.js';
import { createOfferConsumer, type ProcessOffers } from './consumer.js';
import type { WaitlistServiceDeps } from './context.js';
import { createEntries } from './entries.js';
import { createJoining } from './joining.js';
import { createWaitlistRepo } from './repo.js';
import type { JoinWaitlistInput, ListWaitlistQuery, WaitlistEntry } from './schemas.js';

export type { OfferRun, ProcessOffers } from './consumer.js';
export type { WaitlistServiceDeps } from './context.js';

/** The job that offers freed time to waiting entries (and its periodic pass). */
export const WAITLIST_OFFERS_JOB = 'waitlist_offers';

/**
 * The waitlist (DECISIONS.md "Recurring reservations and the waitlist"): customers wait
 * for a full time; when capacity for it frees, the oldest waiting entry that now fits
 * gets a timed hold. Offers are made by a consumer of the outbox (the reservation events
 * are written by triggers in the very statement that frees the time), from a stored
 * position under a lease, so one instance offers each freed time, and an event not yet
 * handled when an instance dies is handled after the restart.
 */
export interface WaitlistService {
  /**
   * A member's entry (made by them) in their active organisation, for a full time: every
   * check of a booking runs first (as a dry run), and a time that would be booked answers
   * 409 SLOT_AVAILABLE.
   */
  join(actor: Actor, input: JoinWaitlistInput, source?: ReservationSource): Promise<WaitlistEntry>;
  /** A public entry (through an organisation's slug), linked to the customer's manage token. */
  joinPublic(
    org: OrganisationSchedule,
    input: JoinWaitlistInput,
    manageLink: StoredManageLink,
  ): Promise<WaitlistEntry>;
  /** An entry the actor may see: their own, or any of the organisation's for staff (404 otherwise). */
  get(actor: Actor, id: number): Promise<WaitlistEntry>;
  /** Entries of the active organisation, oldest first (OWNER, ADMIN, MANAGER). */
  list(actor: Actor, query: ListWaitlistQuery): Promise<{ items: WaitlistEntry[] }>;
  /**
   * Whether `reservationId` is the held reservation of an open offer in the actor's
   * organisation: confirming it takes the offer (an agent's policy counts that as a booking).
   */
  isOfferHold(actor: Actor, reservationId: number): Promise<boolean>;
  /**
   * Leaves the waitlist (its creator, or staff; anyone else's entry is 404). An offer not
   * yet taken is let go: its hold is released, and the time goes to the next in line.
   */
  leave(actor: Actor, id: number): Promise<WaitlistEntry>;
  /**
   * The entry a customer's manage link names (by the SHA-256 of its token) and its
   * organisation; undefined for any other hash. Compared in constant time after the index.
   */
  findByManageTokenHash(
    tokenHash: string,
  ): Promise<
    { organisationId: number; entry: WaitlistEntry; leave: () => Promise<WaitlistEntry> } | undefined
  >;
  /** One run of the offer consumer (what the job and the outbox watch run); `sweep` offers every waiting type. */
  processOffers: ProcessOffers;
}

/**
 * Wires joining (joining.ts), reading and leaving entries (entries.ts) and the offer
 * consumer (consumer.ts, offers.ts), and starts the consumer on the outbox watch and on a
 * resource gaining time (the job and its periodic sweep are declared in module.ts).
 */
export function createWaitlistService(deps: WaitlistServiceDeps): WaitlistService {
  const { jobs, outbox, resources } = deps;
  const ctx = { ...deps, repo: createWaitlistRepo(deps.db.kysely) };
  const run = createOfferConsumer(ctx);

  outbox.onNewEvents('waitlist', () => run(), { idle: async () => !(await ctx.repo.anyOpen()) });
  // Time no event announces (a capacity raised, a resource added): the sweep, queued now. A
  // crash before it is queued leaves it to the once-a-minute sweep.
  resources.onTimeAdded(() => {
    jobs
      .send(WAITLIST_OFFERS_JOB, {}, { singletonKey: WAITLIST_OFFERS_JOB })
      .catch((err: unknown) => deps.log?.warn({ err }, 'could not queue the waitlist sweep'));
  });

  return { ...createJoining(ctx), ...createEntries(ctx), processOffers: run };
}
