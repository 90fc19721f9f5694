import { sql } from 'kysely';
import type { Dialect, Executor } from '../../db/database.js';
import { resourcesOfType } from '../resources/ports.js';
import { keepsTimeAt } from './reservation-time.js';
import { underSessionLock } from './session-lock.js';

/** The first key of the per-(type, customer) advisory locks of the daily limit: "cust". */
const CUSTOMER_LOCKS = 0x63757374;

/** What the limits per customer count: the daily limit per type, and live public holds. */
export function createCustomerLimitRepo(db: Executor, dialect: Dialect) {
  return {
    /**
     * How many reservations of a type keeping their time at `now` start within `day` for
     * `customerEmail`, leaving out `excludeId`: what the daily limit per customer counts.
     * Read through the lanes' (resource, start) index, so it reads one day of the type.
     */
    async countCustomerDay(
      executor: Executor,
      query: {
        organisationId: number;
        resourceTypeId: number;
        customerEmail: string;
        day: { from: string; to: string };
        now: string;
        excludeId?: number | undefined;
      },
    ): Promise<number> {
      let q = executor
        .selectFrom('reservations')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('resourceId', 'in', resourcesOfType(executor, query.organisationId, query.resourceTypeId))
        .where('startTime', '>=', query.day.from)
        .where('startTime', '<', query.day.to)
        .where('resourceTypeId', '=', query.resourceTypeId)
        .where('customerEmail', '=', query.customerEmail)
        .where(keepsTimeAt(query.now));
      if (query.excludeId !== undefined) q = q.where('id', '!=', query.excludeId);
      const { n } = await q.executeTakeFirstOrThrow();
      return Number(n);
    },

    /**
     * Runs `work` so that writes of one customer on one type count and insert one after
     * the other (the daily limit), under a session advisory lock on the pair.
     */
    async oneCustomerAtATime<T>(
      executor: Executor,
      resourceTypeId: number,
      customerEmail: string,
      work: (executor: Executor) => Promise<T>,
    ): Promise<T> {
      const key = sql`${sql.lit(CUSTOMER_LOCKS)}, hashtext(${`${resourceTypeId}:${customerEmail}`})`;
      return underSessionLock(executor, dialect, key, work);
    },

    /**
     * The starts of the customer's reservations of a type keeping their time at `now` that
     * start in [from, to), leaving out `excludeId`: what the daily limit counts, over the
     * range alternatives are offered in (one read).
     */
    async customerStarts(
      executor: Executor,
      query: {
        organisationId: number;
        resourceTypeId: number;
        customerEmail: string;
        from: string;
        to: string;
        now: string;
        excludeId?: number | undefined;
      },
    ): Promise<string[]> {
      let q = executor
        .selectFrom('reservations')
        .select('startTime')
        .where('organisationId', '=', query.organisationId)
        .where('resourceTypeId', '=', query.resourceTypeId)
        .where('customerEmail', '=', query.customerEmail)
        .where('startTime', '>=', query.from)
        .where('startTime', '<', query.to)
        .where(keepsTimeAt(query.now));
      if (query.excludeId !== undefined) q = q.where('id', '!=', query.excludeId);
      return (await q.execute()).map((row) => row.startTime);
    },

    /** How many holds made through the public routes for a customer email or a client are live at `now`. */
    async livePublicHolds(
      organisationId: number,
      by: { customerEmail: string } | { publicClientHash: string },
      now: string,
    ): Promise<number> {
      const row = await db
        .selectFrom('reservations')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('organisationId', '=', organisationId)
        .where((eb) =>
          'customerEmail' in by
            ? eb('customerEmail', '=', by.customerEmail)
            : eb('publicClientHash', '=', by.publicClientHash),
        )
        .where('status', '=', 'held')
        .where('source', 'in', ['public_slug', 'public_token'])
        .where(keepsTimeAt(now))
        .executeTakeFirstOrThrow();
      return Number(row.n);
    },
  };
}

export type CustomerLimitRepo = ReturnType<typeof createCustomerLimitRepo>;
