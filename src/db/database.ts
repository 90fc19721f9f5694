import type SQLite from 'better-sqlite3';
import type { Kysely, Transaction } from 'kysely';
import type pg from 'pg';
import { createPostgres } from './postgres.js';
import type { ReadReplica } from './read-replica.js';
import { createSqlite, groupCommitOf } from './sqlite.js';
import type { Database } from './types.js';

// The whole database surface imports from here; the compiled statements and the PostgreSQL timeout lift live beside it.
export { compiledOnce, compiledPerCount, precompiled } from './compiled.js';
export { withoutStatementTimeout } from './postgres.js';
export { onPrimary, type ReadReplica } from './read-replica.js';

export type Dialect = 'sqlite' | 'postgres';

export interface Db {
  kysely: Kysely<Database>;
  dialect: Dialect;
  /** PostgreSQL schema the connection is pinned to, when not the default. */
  schema?: string;
  /** PostgreSQL only: the pool itself, for libraries that speak SQL of their own (the job queue). */
  pool?: pg.Pool;
  /** PostgreSQL with `readUrl`: the streaming replica that may serve reads (read-replica.ts). */
  replica?: ReadReplica;
  /**
   * Queries waiting now for a connection of PostgreSQL's full pool: the database is what
   * requests wait for. SQLite's one connection runs on the request thread: always 0.
   */
  waiting(): number;
  close(): Promise<void>;
}

/** A query runner: the root handle or an open transaction. Repos accept either. */
export type Executor = Kysely<Database> | Transaction<Database>;

export interface DatabaseOptions {
  /**
   * PostgreSQL only: a streaming replica of `url` for the reads that work run in
   * `replica.run` lets it serve; its connections are given up on after 1 s, its statements after 5 s.
   */
  readUrl?: string;
  /** PostgreSQL only: the schema to use (tests isolate runs in their own schema). */
  searchPath?: string;
  poolSize?: number;
  /**
   * PostgreSQL only: how long a query waits for a connection (a new one, or a free one of
   * a full pool) before it fails. Default 5 s.
   */
  connectTimeoutMs?: number;
  /**
   * PostgreSQL only: the server cancels a statement running longer than this, and a
   * connection that has not answered a statement this long plus a second is presumed
   * lost and closed. 0 turns both off. Default 30 s. Migrations run without it.
   */
  statementTimeoutMs?: number;
  /**
   * SQLite only: an open connection to use instead of opening the url's file; it gets the
   * same settings. Tests hand in an in-memory copy of a database migrated once.
   */
  sqliteConnection?: SQLite.Database;
}

export function createDatabase(url: string, options: DatabaseOptions = {}): Db {
  if (url.startsWith('sqlite:')) return createSqlite(url.slice('sqlite:'.length), options.sqliteConnection);
  return createPostgres(url, options);
}

/**
 * Runs `work` in one transaction; nested calls join the outer one. On SQLite, transactions
 * that queue behind one another share a commit (`groupCommit`).
 */
export function inTransaction<T>(
  executor: Executor,
  work: (trx: Transaction<Database>) => Promise<T>,
): Promise<T> {
  if (executor.isTransaction) return work(executor as Transaction<Database>);
  const grouped = groupCommitOf(executor);
  if (grouped) return grouped(work);
  return executor.transaction().execute(work);
}

/**
 * Runs a write that needs no transaction of its own (one statement) so that it is durable when
 * it answers: on SQLite through the group commit, sharing a COMMIT with the transactions begun
 * with it, where alone it would pay a COMMIT of its own; on PostgreSQL as it is (autocommit, one
 * round trip); inside a transaction, in it.
 */
export function committedWithOthers<T>(
  executor: Executor,
  write: (executor: Executor) => Promise<T>,
): Promise<T> {
  const grouped = executor.isTransaction ? undefined : groupCommitOf(executor);
  return grouped ? grouped(write) : write(executor);
}
