import { inTransaction } from '../../db/database.js';
import { turnGroups } from '../../db/turn-groups.js';
import type { AgentContext } from './context.js';
import type { UsageKind } from './tables.js';
import type { LimitUse, UsageCounting, UsageTotals } from './usage-repo.js';

export type { LimitUse };

/** A day of a daily limit: the last 24 hours. */
export const DAY_MS = 86_400_000;
/** Later than any use: the upper bound of a sum of the whole window. */
const END_OF_TIME = '9999-12-31T23:59:59.999Z';

/** What `reserveUsage` answers: the rows to give back if the call fails, or the limit that is used up. */
export type Reservation =
  | { ok: true; ids: number[] }
  | { ok: false; kind: UsageKind; limit: number; freesAt: string | null };

class LimitReached extends Error {
  constructor(readonly refusal: Extract<Reservation, { ok: false }>) {
    super('limit reached');
  }
}

/**
 * What the agent's uses add up to in the 24 hours after `since`, its window locked. The
 * window of the last count moves forward by the uses that left it since: a few rows, not a
 * day's. A first count, a last count over a day ago (its uses may be purged), or a clock
 * that went back sums the whole window instead.
 */
async function windowAt(agents: UsageCounting, agentId: number, since: string): Promise<UsageTotals> {
  const window = await agents.lockWindow(agentId);
  const moving =
    window.since !== null && window.since <= since && Date.parse(window.since) >= Date.parse(since) - DAY_MS;
  if (!moving) return agents.sumUses(agentId, since, END_OF_TIME);
  const left = await agents.sumUses(agentId, window.since!, since);
  return {
    booking: window.used.booking - left.booking,
    cancellation: window.used.cancellation - left.cancellation,
    spend: window.used.spend - left.spend,
  };
}

/** When enough of the window frees for `use`: the oldest uses leave it first. */
async function freesAt(
  agents: UsageCounting,
  agentId: number,
  use: LimitUse,
  used: UsageTotals,
  since: string,
): Promise<string | null> {
  let total = used[use.kind];
  for (const row of await agents.usageSince(agentId, use.kind, since)) {
    total -= row.amount;
    if (total + use.amount <= use.limit) return new Date(Date.parse(row.createdAt) + DAY_MS).toISOString();
  }
  return null;
}

/**
 * Counting of an agent's calls against the daily limits of its policy. SQLite counts in the
 * transaction below; PostgreSQL runs the same steps in one statement (migration 0079's
 * function): one agent's counts take turns on its window's row through each commit, so the
 * counts arriving while one is on its way go together, one statement for all (`turnGroups`).
 */
export function createDailyLimits({ db, repo }: AgentContext) {
  const counts = async (agentId: number, calls: (readonly LimitUse[])[]): Promise<Reservation[]> => {
    const now = new Date();
    const since = new Date(now.getTime() - DAY_MS).toISOString();
    const rows = await repo.reserveCalls(agentId, calls, since, now.toISOString());
    return rows.map((row) =>
      row.reservedIds
        ? { ok: true, ids: row.reservedIds }
        : { ok: false, kind: row.refusedKind!, limit: row.refusedLimit!, freesAt: row.freesAt },
    );
  };
  const turns = turnGroups(
    async ({ agentId, uses }: { agentId: number; uses: readonly LimitUse[] }) =>
      (await counts(agentId, [uses]))[0]!,
    (agentId: number, inputs: { uses: readonly LimitUse[] }[]) =>
      counts(
        agentId,
        inputs.map((input) => input.uses),
      ),
  );
  return {
    async reserveUsage(agentId: number, uses: readonly LimitUse[]): Promise<Reservation> {
      if (uses.length === 0) return { ok: true, ids: [] };
      if (db.dialect === 'postgres') return turns.write(agentId, { agentId, uses });
      try {
        return await inTransaction(db.kysely, async (trx) => {
          const agents = repo.counting(trx);
          const now = new Date();
          const since = new Date(now.getTime() - DAY_MS).toISOString();
          const used = await windowAt(agents, agentId, since);
          const ids: number[] = [];
          for (const use of uses) {
            if (used[use.kind] + use.amount > use.limit) {
              const at = await freesAt(agents, agentId, use, used, since);
              // Rolls back the uses of the other kinds counted just before: all or none.
              throw new LimitReached({ ok: false, kind: use.kind, limit: use.limit, freesAt: at });
            }
            ids.push(await agents.insertUsage(agentId, use.kind, use.amount, now.toISOString()));
            used[use.kind] += use.amount;
          }
          await agents.saveWindow(agentId, { since, used });
          return { ok: true as const, ids };
        });
      } catch (error) {
        if (error instanceof LimitReached) return error.refusal;
        throw error;
      }
    },

    async releaseUsage(agentId: number, ids: readonly number[]): Promise<void> {
      if (ids.length === 0) return;
      if (db.dialect === 'postgres') return repo.releaseAtOnce(agentId, ids);
      await inTransaction(db.kysely, async (trx) => {
        const agents = repo.counting(trx);
        const window = await agents.lockWindow(agentId);
        const released = await agents.deleteUsage(agentId, ids);
        // Before the first count there is nothing to take off: that count sums the window.
        if (window.since === null) return;
        for (const use of released) if (use.createdAt > window.since) window.used[use.kind] -= use.amount;
        await agents.saveWindow(agentId, { since: window.since, used: window.used });
      });
    },
  };
}
