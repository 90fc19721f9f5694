import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, SqliteDialect, type Transaction } from 'kysely';
import { CompiledCamelCasePlugin } from './camel-case.js';
import type { Db, Executor } from './database.js';
import { groupCommit } from './group-commit.js';
import { runTraced, startQuerySpan } from './query-spans.js';
import type { Database } from './types.js';

/** The SQLite connection a compiled-once statement may run on directly, and the renaming Kysely's plugin would do. */
export interface DirectSqlite {
  sqlite: SQLite.Database;
  camelCase: CompiledCamelCasePlugin;
}

/** SQLite's root handles, each with the group commit its transactions go through. */
const groupCommits = new WeakMap<Executor, ReturnType<typeof groupCommit>>();

/**
 * The SQLite connection behind a root Kysely handle, or behind a group commit's transaction
 * while its members run (that transaction holds the connection: its statements may run on it
 * at any time), for compiled-once queries that skip Kysely's executor.
 */
const directSqlite = new WeakMap<Executor, DirectSqlite>();

/** The group commit of a SQLite root handle; undefined for a transaction or PostgreSQL. */
export const groupCommitOf = (executor: Executor) => groupCommits.get(executor);

/** The connection `executor` may run statements on directly (see `directSqlite`); undefined on PostgreSQL. */
export const directSqliteOf = (executor: Executor) => directSqlite.get(executor);

export function createSqlite(path: string, connection?: SQLite.Database): Db {
  if (!connection && path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  const sqlite = connection ?? new SQLite(path);
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('foreign_keys = ON');
  sqlite.pragma('busy_timeout = 5000');
  sqlite.pragma('synchronous = NORMAL');
  // Statement journals in memory, not in temporary files: a write inside a transaction whose
  // triggers could fail midway, and every savepoint of the group commit, journals the pages it
  // changes first; in a file that made a booking's insert 174 µs, in memory 33 (decisions.md).
  sqlite.pragma('temp_store = MEMORY');
  const camelCase = new CompiledCamelCasePlugin();
  const kysely = new Kysely<Database>({
    dialect: new SqliteDialect({ database: adaptForKysely(sqlite) }),
    plugins: [camelCase],
  });
  const direct = { sqlite, camelCase };
  directSqlite.set(kysely, direct);
  // A group's transaction runs compiled-once statements directly while its members run, and
  // never after (a transaction object kept past its commit must not reach the connection).
  const holding = (trx: Transaction<Database>) => {
    directSqlite.set(trx, direct);
    return () => directSqlite.delete(trx);
  };
  groupCommits.set(kysely, groupCommit(kysely, sqlite, holding));
  return {
    kysely,
    dialect: 'sqlite',
    waiting: () => 0,
    close: async () => {
      await kysely.destroy();
    },
  };
}

const STATEMENT_CACHE_SIZE = 500;
const SCHEMA_CHANGE = /^\s*(create|alter|drop)\b/i;

/**
 * Four adaptations of better-sqlite3 for Kysely, which prepares every query anew:
 * - prepared statements are cached by SQL text (the hot paths repeat a few dozen);
 *   a schema change empties the cache, as statements know their columns;
 * - rows are read as arrays and made objects by a constructor compiled per
 *   statement from its column names: half the cost of better-sqlite3 building
 *   each object in C++, which a list of a hundred rows feels;
 * - JS booleans bind as 0/1, which SQLite stores anyway (better-sqlite3 refuses
 *   booleans). Table types declare such columns `Bool`, so reads go through Boolean().
 * - a statement run inside traced work gets a span (query-spans.ts).
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
    if (SCHEMA_CHANGE.test(source)) cache.clear();
    const run = statement.run.bind(statement);
    let all = statement.all.bind(statement);
    let iterate = statement.iterate.bind(statement);
    if (statement.reader) {
      const toRow = rowConstructor(statement.columns().map((column) => column.name));
      const arrays = statement.raw(true);
      const allArrays = arrays.all.bind(arrays);
      const iterateArrays = arrays.iterate.bind(arrays);
      all = (...params: unknown[]) => (allArrays(...params) as unknown[][]).map(toRow);
      iterate = function* (...params: unknown[]) {
        for (const values of iterateArrays(...params)) yield toRow(values as unknown[]);
      };
    }
    const adapted = Object.assign(statement, {
      // Every statement passes here (Kysely's and the compiled-once ones): the query spans' seam.
      all: (...params: unknown[]) => {
        const span = startQuerySpan('sqlite', source);
        return span ? runTraced(span, () => all(...toSqlite(params))) : all(...toSqlite(params));
      },
      run: (...params: unknown[]) => {
        const span = startQuerySpan('sqlite', source);
        return span ? runTraced(span, () => run(...toSqlite(params))) : run(...toSqlite(params));
      },
      iterate: (...params: unknown[]) => iterate(...toSqlite(params)),
    });
    if (cache.size >= STATEMENT_CACHE_SIZE) cache.delete(cache.keys().next().value!);
    cache.set(source, adapted);
    return adapted;
  }) as typeof sqlite.prepare;
  return sqlite;
}

/** `(values) => ({name0: values[0], ...})` for one statement's columns; a repeated name keeps the last, as better-sqlite3 does. */
function rowConstructor(names: string[]): (values: unknown[]) => Record<string, unknown> {
  // Plain keys make one object shape V8 builds fast; only `__proto__` needs a computed key.
  const fields = names.map(
    (name, i) => `${name === '__proto__' ? `["__proto__"]` : JSON.stringify(name)}: values[${i}]`,
  );
  return new Function('values', `return { ${fields.join(', ')} };`) as (
    values: unknown[],
  ) => Record<string, unknown>;
}
