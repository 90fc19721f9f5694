import type SQLite from 'better-sqlite3';
import type { Kysely, Transaction } from 'kysely';
import type { Database } from './types.js';

/** Transactions one commit carries at most: bounds what waits on the slowest of them. */
const MAX_MEMBERS = 16;

type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown };

interface Member {
  work: (trx: Transaction<Database>) => Promise<unknown>;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
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
  const savepoint = sqlite.prepare('savepoint grouped');
  const rollbackToSavepoint = sqlite.prepare('rollback to grouped');
  const release = sqlite.prepare('release grouped');

  async function runGroup(): Promise<void> {
    const members: Member[] = [];
    const outcomes: Outcome[] = [];
    let lost: unknown;
    try {
      await kysely.transaction().execute(async (trx) => {
        const ended = begun(trx);
        try {
          while (waiting.length > 0 && members.length < MAX_MEMBERS) {
            const member = waiting.shift()!;
            members.push(member);
            // Straight on the connection, which the group's transaction holds: Kysely's executor
            // around three statements a member cost more than they do.
            savepoint.run();
            try {
              outcomes.push({ ok: true, value: await member.work(trx) });
            } catch (error) {
              outcomes.push({ ok: false, error });
              // SQLite ended the whole transaction (SQLITE_FULL, an interrupt): the group is lost.
              if (!sqlite.inTransaction) {
                lost = error;
                throw error;
              }
              rollbackToSavepoint.run();
            }
            release.run();
          }
        } finally {
          ended();
        }
      });
    } catch (error) {
      // No transaction began (a closed database): whoever waits would wait for the same.
      if (members.length === 0) members.push(...waiting.splice(0));
      // Nothing was committed: a member that failed keeps its own error, the rest get what
      // ended the group (not the ROLLBACK's complaint that SQLite had rolled back already).
      members.forEach((member, i) => {
        const outcome = outcomes[i];
        member.reject(outcome && !outcome.ok ? outcome.error : (lost ?? error));
      });
      return;
    }
    members.forEach((member, i) => {
      const outcome = outcomes[i]!;
      if (outcome.ok) member.resolve(outcome.value);
      else member.reject(outcome.error);
    });
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
      waiting.push({ work, resolve: resolve as (value: unknown) => void, reject });
      if (!running) {
        running = true;
        setImmediate(drain);
      }
    });
}
