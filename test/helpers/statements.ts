// Counts the statements a piece of work sends to the database, as bench/pg-statements.cjs logs a
// benchmarked server's: on PostgreSQL every `query` of a pg client (each a round trip), on SQLite
// every run of a better-sqlite3 statement. Only the work's own statements count: those issued in
// its async context (a request injected inside `statementsOf`), not a background job's.
//
// Import this module before the app under test opens its connections: PostgreSQL clients bind
// `query` when they connect, and SQLite statements bind their methods when first prepared.
import { AsyncLocalStorage } from 'node:async_hooks';
import SQLite from 'better-sqlite3';
import type pg from 'pg';
import { loadDriver } from '../../src/lib/load-driver.js';

const counting = new AsyncLocalStorage<string[]>();
const folded = (text: unknown) => String(text).replace(/\s+/g, ' ').trim();

// The driver as the app loads it (a require: ESM's import of pg is another copy of its classes).
const { Client, Query } = loadDriver<typeof pg>('pg');
const pgQuery = Client.prototype.query;
Client.prototype.query = function (this: pg.Client, config: unknown, ...rest: unknown[]) {
  const statements = counting.getStore();
  // A submittable other than a query (a cursor) is no statement of ours; a hot statement runs as
  // a Query (src/db/prepared-query.ts). The job queue's are outside any count.
  const submittable = typeof (config as { submit?: unknown } | null)?.submit === 'function';
  if (statements && (!submittable || config instanceof Query)) {
    statements.push(folded(typeof config === 'string' ? config : (config as { text?: unknown })?.text));
  }
  return (pgQuery as (...args: unknown[]) => unknown).call(this, config, ...rest);
} as typeof pgQuery;

const probe = new SQLite(':memory:');
const statementPrototype = Object.getPrototypeOf(probe.prepare('select 1')) as Record<
  'run' | 'all' | 'get' | 'iterate',
  (...args: unknown[]) => unknown
>;
probe.close();
for (const method of ['run', 'all', 'get', 'iterate'] as const) {
  const original = statementPrototype[method];
  statementPrototype[method] = function (this: { source: string }, ...args: unknown[]) {
    counting.getStore()?.push(folded(this.source));
    return original.apply(this, args);
  };
}

/** Transaction bookkeeping: a round trip on PostgreSQL, a library call on SQLite's own connection. */
const BOOKKEEPING = /^(begin|commit|rollback|savepoint|release)\b/i;

/** Runs `work`, answering its result and the statements it sent, in order. */
export async function statementsOf<T>(work: () => Promise<T>): Promise<{ result: T; statements: string[] }> {
  const statements: string[] = [];
  const result = await statementsInto(statements, work);
  return { result, statements };
}

/** Runs `work`, appending each statement it sends to `statements` as it goes: work in flight can be watched. */
export function statementsInto<T>(statements: string[], work: () => Promise<T>): Promise<T> {
  // Awaited inside the count: an injected request (a thenable) starts only when awaited.
  return counting.run(statements, async () => await work());
}

/**
 * The statements of `work` that reach the database server: all of them on PostgreSQL; on SQLite
 * all but the group commit's transaction bookkeeping, which a PostgreSQL statement does not need.
 */
export async function roundTripsOf<T>(work: () => Promise<T>): Promise<{ result: T; statements: string[] }> {
  const { result, statements } = await statementsOf(work);
  const sqlite = !process.env.TEST_DATABASE_URL;
  return { result, statements: sqlite ? statements.filter((s) => !BOOKKEEPING.test(s)) : statements };
}
