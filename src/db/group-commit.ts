import type SQLite from 'better-sqlite3';
import type { Kysely, Transaction } from 'kysely';
import { inCurrentContext } from '../lib/tracing.js';
import type { Database } from './types.js';

/** Transactions one commit carries at most: bounds what waits on the slowest of them. */
const MAX_MEMBERS = 16;

type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown };

interface Member {
  work: (trx: Transaction<Database>) => Promise<unknown>;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

/** The members of one group's transaction, what each came to, and what ended the transaction. */
interface Group {
  members: Member[];
  outcomes: Outcome[];
  lost: unknown;
}

/** After the COMMIT: each member answers with its own outcome. */
function answerGroup({ members, outcomes }: Group): void {
  members.forEach((member, i) => {
    const outcome = outcomes[i]!;
    if (outcome.ok) member.resolve(outcome.value);
    else member.reject(outcome.error);
  });
}

/**
 * Nothing was committed: a member that failed keeps its own error, the rest get what ended
 * the group (not the ROLLBACK's complaint that SQLite had rolled back already).
 */
function failGroup({ members, outcomes, lost }: Group, error: unknown): void {
  members.forEach((member, i) => {
    const outcome = outcomes[i];
    member.reject(outcome && !outcome.ok ? outcome.error : (lost ?? error));
  });
}

/**
 * Runs members taken from `waiting` (at most MAX_MEMBERS) in arrival order, each in a
 * savepoint of the group's transaction `trx`.
 */
function memberRunner(sqlite: SQLite.Database) {
  const savepoint = sqlite.prepare('savepoint grouped');
  const rollbackToSavepoint = sqlite.prepare('rollback to grouped');
  const release = sqlite.prepare('release grouped');
  return async function runMembers(
    trx: Transaction<Database>,
    waiting: Member[],
    group: Group,
  ): Promise<void> {
    while (waiting.length > 0 && group.members.length < MAX_MEMBERS) {
      const member = waiting.shift()!;
      group.members.push(member);
      // Straight on the connection, which the group's transaction holds: Kysely's executor
      // around three statements a member cost more than they do.
      savepoint.run();
      try {
        group.outcomes.push({ ok: true, value: await member.work(trx) });
      } catch (error) {
        group.outcomes.push({ ok: false, error });
        // SQLite ended the whole transaction (SQLITE_FULL, an interrupt): the group is lost.
        if (!sqlite.inTransaction) {
          group.lost = error;
          throw error;
        }
        rollbackToSavepoint.run();
      }
      release.run();
    }
  };
}

/**
 * Group commit for SQLite. The one connection runs one transaction at a time, and a
 * commit writes every page the transaction changed to the WAL (a system call each): on a
 * booking, the commit cost more than the insert it made durable. Transactions begun in the
 * same turn of the event loop (the requests that arrived together), and those that queue
 * while a group runs, go into one database transaction, each inside a savepoint of its own,
 * and one COMMIT makes them all durable. A group starts once the turn's callbacks have run
 * (`setImmediate`): a transaction begun at once would be done before the next request's
 * callback, since better-sqlite3 answers synchronously.
 *
 * Each still answers only after that COMMIT, so a caller never sees as done what a crash
 * could undo. A member that fails rolls back to its savepoint and fails alone; the others
 * see the database exactly as if it had never run, as they would have after its own
 * rollback. When the COMMIT itself fails (or SQLite rolled the whole transaction back, as
 * it does on some errors), nothing of the group is written and every member fails. Members
 * run one after the other in arrival order, as they would have queued for the connection,
 * and statements outside transactions still wait for the connection, now until the group's
 * commit, so none reads what is not committed.
 */
export function groupCommit(
  kysely: Kysely<Database>,
  sqlite: SQLite.Database,
  /** Told of each group's transaction before its members run; answers what to do once they have. */
  begun: (trx: Transaction<Database>) => () => void,
): <T>(work: (trx: Transaction<Database>) => Promise<T>) => Promise<T> {
  const waiting: Member[] = [];
  let running = false;
  const runMembers = memberRunner(sqlite);

  async function runGroup(): Promise<void> {
    const group: Group = { members: [], outcomes: [], lost: undefined };
    try {
      await kysely.transaction().execute(async (trx) => {
        const ended = begun(trx);
        try {
          await runMembers(trx, waiting, group);
        } finally {
          ended();
        }
      });
    } catch (error) {
      // No transaction began (a closed database): whoever waits would wait for the same.
      if (group.members.length === 0) group.members.push(...waiting.splice(0));
      failGroup(group, error);
      return;
    }
    answerGroup(group);
  }

  async function drain(): Promise<void> {
    try {
      while (waiting.length > 0) await runGroup();
    } finally {
      running = false;
    }
  }

  return <T>(work: (trx: Transaction<Database>) => Promise<T>) =>
    new Promise<T>((resolve, reject) => {
      // Each member runs in its caller's trace context, not in that of the group's first.
      waiting.push({ work: inCurrentContext(work), resolve: resolve as (value: unknown) => void, reject });
      if (!running) {
        running = true;
        setImmediate(drain);
      }
    });
}
