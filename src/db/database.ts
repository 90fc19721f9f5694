import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import SQLite from 'better-sqlite3';
import {
  CamelCasePlugin,
  type CompiledQuery,
  Kysely,
  PostgresDialect,
  SqliteDialect,
  type Transaction,
} from 'kysely';
import pg from 'pg';
import type { Database } from './types.js';

export type Dialect = 'sqlite' | 'postgres';

export interface Db {
  kysely: Kysely<Database>;
  dialect: Dialect;
  /** PostgreSQL schema the connection is pinned to, when not the default. */
  schema?: string;
  /** PostgreSQL only: the pool itself, for libraries that speak SQL of their own (the job queue). */
  pool?: pg.Pool;
  close(): Promise<void>;
}

/** A query runner: the root handle or an open transaction. Repos accept either. */
export type Executor = Kysely<Database> | Transaction<Database>;

// int8 (counts, bigint columns) as numbers; timestamptz as ISO-8601 UTC strings,
// the same text form SQLite stores, so both dialects hand services identical values.
pg.types.setTypeParser(20, (value) => Number(value));
pg.types.setTypeParser(1184, (value) => new Date(value).toISOString());

export interface DatabaseOptions {
  /** PostgreSQL only: the schema to use (tests isolate runs in their own schema). */
  searchPath?: string;
  poolSize?: number;
}

export function createDatabase(url: string, options: DatabaseOptions = {}): Db {
  if (url.startsWith('sqlite:')) return createSqlite(url.slice('sqlite:'.length));
  return createPostgres(url, options);
}

function createSqlite(path: string): Db {
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  const sqlite = new SQLite(path);
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('foreign_keys = ON');
  sqlite.pragma('busy_timeout = 5000');
  sqlite.pragma('synchronous = NORMAL');
  const kysely = new Kysely<Database>({
    dialect: new SqliteDialect({ database: adaptForKysely(sqlite) }),
    plugins: [new CamelCasePlugin()],
  });
  return {
    kysely,
    dialect: 'sqlite',
    close: async () => {
      await kysely.destroy();
    },
  };
}

function createPostgres(url: string, options: DatabaseOptions): Db {
  const pool = new pg.Pool({
    connectionString: url,
    max: options.poolSize ?? 10,
    ...(options.searchPath ? { options: `-c search_path=${options.searchPath}` } : {}),
  });
  // An idle client losing its connection must not crash the process; the pool replaces it.
  pool.on('error', () => {});
  const kysely = new Kysely<Database>({
    dialect: new PostgresDialect({ pool }),
    plugins: [new CamelCasePlugin()],
  });
  return {
    kysely,
    dialect: 'postgres',
    pool,
    ...(options.searchPath ? { schema: options.searchPath } : {}),
    close: async () => {
      await kysely.destroy();
    },
  };
}

const STATEMENT_CACHE_SIZE = 500;

/**
 * Two adaptations of better-sqlite3 for Kysely, which prepares every query anew:
 * - prepared statements are cached by SQL text (the hot paths repeat a few dozen);
 * - JS booleans bind as 0/1, which SQLite stores anyway (better-sqlite3 refuses
 *   booleans). Table types declare such columns `Bool`, so reads go through Boolean().
 */
function adaptForKysely(sqlite: SQLite.Database): SQLite.Database {
  const toInteger = (value: unknown) => (typeof value === 'boolean' ? Number(value) : value);
  // Kysely passes the parameters as one array argument.
  const toSqlite = (params: unknown[]) =>
    params.map((p) => (Array.isArray(p) ? p.map(toInteger) : toInteger(p)));
  const prepare = sqlite.prepare.bind(sqlite);
  const cache = new Map<string, SQLite.Statement>();
  sqlite.prepare = ((source: string) => {
    const cached = cache.get(source);
    if (cached) return cached;
    const statement = prepare(source);
    const all = statement.all.bind(statement);
    const run = statement.run.bind(statement);
    const iterate = statement.iterate.bind(statement);
    const adapted = Object.assign(statement, {
      all: (...params: unknown[]) => all(...toSqlite(params)),
      run: (...params: unknown[]) => run(...toSqlite(params)),
      iterate: (...params: unknown[]) => iterate(...toSqlite(params)),
    });
    if (cache.size >= STATEMENT_CACHE_SIZE) cache.delete(cache.keys().next().value!);
    cache.set(source, adapted);
    return adapted;
  }) as typeof sqlite.prepare;
  return sqlite;
}

/** Runs `work` in one transaction; nested calls join the outer one. */
export function inTransaction<T>(
  executor: Executor,
  work: (trx: Transaction<Database>) => Promise<T>,
): Promise<T> {
  if (executor.isTransaction) return work(executor as Transaction<Database>);
  return executor.transaction().execute(work);
}

/**
 * Builds and compiles a query once; each call runs it with new parameter values,
 * in the order they appear in the SQL, and answers the whole result (rows, and
 * affected rows of a write). For the few per-request hot paths, where Kysely's
 * build-and-compile costs more than SQLite's execution.
 */
export function compiledOnce<Row>(query: { compile(): CompiledQuery<Row> }) {
  const compiled = query.compile();
  return (executor: Executor, ...parameters: unknown[]) =>
    executor.executeQuery<Row>({ ...compiled, parameters });
}

/** `compiledOnce` for reads: answers the rows. */
export function precompiled<Row>(query: { compile(): CompiledQuery<Row> }) {
  const run = compiledOnce(query);
  return async (executor: Executor, ...parameters: unknown[]): Promise<Row[]> =>
    (await run(executor, ...parameters)).rows;
}
