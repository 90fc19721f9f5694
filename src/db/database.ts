import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import SQLite from 'better-sqlite3';
import {
  CamelCasePlugin,
  type CompiledQuery,
  type DatabaseIntrospector,
  type DatabaseMetadata,
  Kysely,
  type PluginTransformResultArgs,
  PostgresDialect,
  type QueryResult,
  SqliteDialect,
  sql,
  type TableMetadata,
  type Transaction,
} from 'kysely';
import type pg from 'pg';
import { loadDriver } from '../lib/load-driver.js';
import { groupCommit } from './group-commit.js';
import type { Database } from './types.js';

export type Dialect = 'sqlite' | 'postgres';

export interface Db {
  kysely: Kysely<Database>;
  dialect: Dialect;
  /** PostgreSQL schema the connection is pinned to, when not the default. */
  schema?: string;
  /** PostgreSQL only: the pool itself, for libraries that speak SQL of their own (the job queue). */
  pool?: pg.Pool;
  /**
   * Queries waiting now for a connection of PostgreSQL's full pool: the database is what
   * requests wait for. SQLite's one connection runs on the request thread: always 0.
   */
  waiting(): number;
  close(): Promise<void>;
}

/** A query runner: the root handle or an open transaction. Repos accept either. */
export type Executor = Kysely<Database> | Transaction<Database>;

let postgresDriver: typeof pg | undefined;

/** The pg driver, loaded on first use (a SQLite deployment never needs it), its parsers set. */
function loadPostgres(): typeof pg {
  if (postgresDriver) return postgresDriver;
  postgresDriver = loadDriver<typeof pg>('pg');
  // int8 (counts, bigint columns) as numbers; timestamptz as ISO-8601 UTC strings,
  // the same text form SQLite stores, so both dialects hand services identical values.
  postgresDriver.types.setTypeParser(20, (value) => Number(value));
  postgresDriver.types.setTypeParser(1184, isoTimestamp);
  return postgresDriver;
}

/** PostgreSQL's text form of a timestamptz in a UTC session, `2026-01-31 09:30:00.123456+00`. */
const UTC_TIMESTAMP = /^(\d{4}-\d\d-\d\d) (\d\d:\d\d:\d\d)(?:\.(\d{1,6}))?\+00$/;

/**
 * A timestamptz as ISO-8601 UTC with milliseconds. A UTC session's text is rearranged
 * (a list reads hundreds, and a Date per value costs several times more); any other
 * offset goes through Date.
 */
function isoTimestamp(value: string): string {
  const utc = UTC_TIMESTAMP.exec(value);
  if (!utc) return new Date(value).toISOString();
  return `${utc[1]}T${utc[2]}.${(utc[3] ?? '').padEnd(3, '0').slice(0, 3)}Z`;
}

export interface DatabaseOptions {
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

const DEFAULT_CONNECT_TIMEOUT_MS = 5_000;
const DEFAULT_STATEMENT_TIMEOUT_MS = 30_000;
/** Beyond the statement timeout: time for the server's cancellation to arrive before the connection counts as lost. */
const LOST_CONNECTION_GRACE_MS = 1_000;

export function createDatabase(url: string, options: DatabaseOptions = {}): Db {
  if (url.startsWith('sqlite:')) return createSqlite(url.slice('sqlite:'.length), options.sqliteConnection);
  return createPostgres(url, options);
}

function createSqlite(path: string, connection?: SQLite.Database): Db {
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

function createPostgres(url: string, options: DatabaseOptions): Db {
  const statementTimeoutMs = options.statementTimeoutMs ?? DEFAULT_STATEMENT_TIMEOUT_MS;
  const pool = new (loadPostgres().Pool)({
    connectionString: url,
    max: options.poolSize ?? 10,
    // A database that is down or unreachable fails a query in bounded time (then 503), never hangs it.
    connectionTimeoutMillis: options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS,
    // TCP keepalive probes an idle pooled connection, so one whose server vanished without a
    // reset is dropped by the pool, not handed to a request (the silence bound below catches the rest).
    keepAlive: true,
    keepAliveInitialDelayMillis: 10_000,
    ...(statementTimeoutMs > 0 ? { statement_timeout: statementTimeoutMs } : {}),
    ...(options.searchPath ? { options: `-c search_path=${options.searchPath}` } : {}),
  });
  // An idle client losing its connection must not crash the process; the pool replaces it.
  pool.on('error', () => {});
  pool.on('connect', (client) =>
    adaptClient(client, statementTimeoutMs > 0 ? statementTimeoutMs + LOST_CONNECTION_GRACE_MS : 0),
  );
  const dialect = options.searchPath
    ? new OneSchemaPostgresDialect({ pool }, options.searchPath)
    : new PostgresDialect({ pool });
  const kysely = new Kysely<Database>({ dialect, plugins: [new CompiledCamelCasePlugin()] });
  return {
    kysely,
    dialect: 'postgres',
    pool,
    ...(options.searchPath ? { schema: options.searchPath } : {}),
    waiting: () => pool.waitingCount,
    close: async () => {
      await kysely.destroy();
    },
  };
}

/**
 * PostgreSQL pinned to one schema of a shared database. Kysely's introspector (only
 * the migrator uses it) reads every schema's columns and fails when another run drops
 * its schema mid-query (`has_schema_privilege` on a name that just went away); this
 * one reads the pinned schema's table names only, all the migrator asks.
 */
class OneSchemaPostgresDialect extends PostgresDialect {
  readonly #schema: string;
  constructor(config: ConstructorParameters<typeof PostgresDialect>[0], schema: string) {
    super(config);
    this.#schema = schema;
  }

  // biome-ignore lint/suspicious/noExplicitAny: Kysely's own signature
  override createIntrospector(db: Kysely<any>): DatabaseIntrospector {
    const schema = this.#schema;
    const getSchemas = async () => {
      const { rows } = await sql<{ name: string }>`
        select nspname as name from pg_catalog.pg_namespace where nspname = ${schema}`.execute(db);
      return rows;
    };
    const getTables = async (): Promise<TableMetadata[]> => {
      const { rows } = await sql<{ name: string; kind: string }>`
        select c.relname as name, c.relkind as kind from pg_catalog.pg_class c
        join pg_catalog.pg_namespace n on n.oid = c.relnamespace
        where n.nspname = ${schema} and c.relkind in ('r', 'v', 'p')`.execute(db);
      return rows.map((row) => ({ name: row.name, schema, isView: row.kind === 'v', columns: [] }));
    };
    return {
      getSchemas,
      getTables,
      getMetadata: async (): Promise<DatabaseMetadata> => ({ tables: await getTables() }),
    };
  }
}

type Row = Record<string, unknown>;
const RENAMERS_MAX = 1000;

/**
 * Kysely's CamelCasePlugin with its result mapping compiled: each set of columns a
 * query answers gets one constructor, `(row) => ({organisationId: row.organisation_id, ...})`,
 * where the plugin renamed every key of every row afresh (a list of a hundred rows
 * felt it). Nested objects and arrays (JSON PostgreSQL aggregated) map as the plugin maps them.
 */
class CompiledCamelCasePlugin extends CamelCasePlugin {
  readonly #renamers = new Map<string, (row: Row) => Row>();
  readonly #nested = (value: unknown) => this.mapRow({ value }).value;

  override async transformResult(args: PluginTransformResultArgs): Promise<QueryResult<Row>> {
    const { rows } = args.result;
    if (!Array.isArray(rows) || rows.length === 0) return args.result;
    return { ...args.result, rows: this.renameRows(rows) };
  }

  /** The result mapping alone, for rows read past Kysely's executor. */
  renameRows(rows: Row[]): Row[] {
    if (rows.length === 0) return rows;
    // Every row of one result has the same columns.
    const columns = Object.keys(rows[0]!);
    const signature = columns.join('\u0000');
    let rename = this.#renamers.get(signature);
    if (!rename) {
      rename = this.#compile(columns);
      if (this.#renamers.size >= RENAMERS_MAX) this.#renamers.clear();
      this.#renamers.set(signature, rename);
    }
    return rows.map(rename);
  }

  #compile(columns: string[]): (row: Row) => Row {
    const fields = columns.map((column) => {
      const name = this.camelCase(column);
      const key = name === '__proto__' ? '["__proto__"]' : JSON.stringify(name);
      const read = `row[${JSON.stringify(column)}]`;
      return `${key}: typeof (value = ${read}) === 'object' && value !== null ? nested(value) : value`;
    });
    return new Function('nested', `return (row) => { let value; return { ${fields.join(', ')} }; };`)(
      this.#nested,
    ) as (row: Row) => Row;
  }
}

const STATEMENT_CACHE_SIZE = 500;
const SCHEMA_CHANGE = /^\s*(create|alter|drop)\b/i;

/**
 * Three adaptations of better-sqlite3 for Kysely, which prepares every query anew:
 * - prepared statements are cached by SQL text (the hot paths repeat a few dozen);
 *   a schema change empties the cache, as statements know their columns;
 * - rows are read as arrays and made objects by a constructor compiled per
 *   statement from its column names: half the cost of better-sqlite3 building
 *   each object in C++, which a list of a hundred rows feels;
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

/** SQLite's root handles, each with the group commit its transactions go through. */
const groupCommits = new WeakMap<Executor, ReturnType<typeof groupCommit>>();

/**
 * Runs `work` in one transaction; nested calls join the outer one. On SQLite, transactions
 * that queue behind one another share a commit (`groupCommit`).
 */
export function inTransaction<T>(
  executor: Executor,
  work: (trx: Transaction<Database>) => Promise<T>,
): Promise<T> {
  if (executor.isTransaction) return work(executor as Transaction<Database>);
  const grouped = groupCommits.get(executor);
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
  const grouped = executor.isTransaction ? undefined : groupCommits.get(executor);
  return grouped ? grouped(write) : write(executor);
}

/**
 * The SQL of every query compiled once (`compiledOnce`, `precompiled`), each with a
 * statement name. A fixed, small set: the per-request hot paths, and the mail drain's group
 * statements (`compiledPerCount`, one a group size up to 25).
 */
const HOT_STATEMENTS = new Map<string, string>();

/** PostgreSQL's "cached plan must not change result type": a table a prepared statement reads changed shape. */
const PLAN_CHANGED_RESULT_TYPE = '0A000';

/** The session settings `withoutStatementTimeout` sends; the client wrapper watches for them. */
const LIFT_STATEMENT_TIMEOUT = 'set statement_timeout = 0';
const RESTORE_STATEMENT_TIMEOUT = 'reset statement_timeout';

type QueryCallback = (error: Error | null, result?: unknown) => void;

/**
 * What every pooled PostgreSQL client gets when it connects:
 *
 * - An error listener for its whole life. The pool listens only while a client is idle;
 *   a connection lost while the client is checked out (a reset, a failover) emits
 *   `error` with nobody listening, which kills the process. The query in flight fails
 *   with that error (a 503 for the request) and the pool drops the client on release.
 * - A bound on silence (`lostAfterMs`, 0 for none): a statement the server has not
 *   answered by then, though it cancels statements sooner, went to a connection that is
 *   gone without a reset (a dropped network); the connection is closed, so the query
 *   fails now instead of when TCP gives up, many minutes later.
 * - The hot statements as named prepared statements: each connection parses and plans
 *   one once, then only binds and executes it, where an unnamed statement is parsed and
 *   planned on every call. Other SQL (built per call, with variable `in` lists) stays
 *   unnamed, so a connection holds a bounded set. A prepared statement reading `*` fails
 *   for good once a migration (another instance's, during a rolling deploy) adds a
 *   column to its table; such a statement runs unnamed from then on, on that connection
 *   (the failed attempt executed nothing). A new connection (after a reconnect) starts
 *   afresh and prepares each statement again on first use.
 */
function adaptClient(client: pg.PoolClient, lostAfterMs: number): void {
  client.on('error', () => {});
  const query = client.query.bind(client) as (...args: unknown[]) => Promise<unknown>;
  const reshaped = new Set<string>();
  let silenceBound = lostAfterMs;

  /** Starts the silence bound of one statement; answers its stop. */
  const watch = (): (() => void) => {
    if (silenceBound === 0) return () => {};
    const limit = silenceBound;
    const timer = setTimeout(() => {
      const lost = Object.assign(new Error(`The database did not answer within ${limit} ms`), {
        code: 'ETIMEDOUT',
      });
      (
        client as unknown as { connection: { stream: { destroy(error: Error): void } } }
      ).connection.stream.destroy(lost);
    }, limit);
    timer.unref();
    return () => clearTimeout(timer);
  };

  client.query = ((text: unknown, values?: unknown, callback?: unknown) => {
    // A submittable (a cursor; Kysely is given none) is pg's own business.
    if (typeof (text as { submit?: unknown } | null)?.submit === 'function')
      return query(text, values, callback);
    if (text === LIFT_STATEMENT_TIMEOUT) silenceBound = 0;
    else if (text === RESTORE_STATEMENT_TIMEOUT) silenceBound = lostAfterMs;
    const stop = watch();
    try {
      // The callback form (pool.query, which the job queue uses) passes through as it came.
      if (typeof callback === 'function' || typeof values === 'function') {
        const done = (typeof callback === 'function' ? callback : values) as QueryCallback;
        const stopThenDone: QueryCallback = (error, result) => {
          stop();
          done(error, result);
        };
        return typeof callback === 'function' ? query(text, values, stopThenDone) : query(text, stopThenDone);
      }
      const name = typeof text === 'string' && !reshaped.has(text) ? HOT_STATEMENTS.get(text) : undefined;
      const running =
        name === undefined
          ? query(text, values)
          : query({ name, text, values }).catch((error: { code?: string }) => {
              if (error?.code !== PLAN_CHANGED_RESULT_TYPE) throw error;
              reshaped.add(text as string);
              return query(text, values);
            });
      return running.finally(stop);
    } catch (error) {
      // pg refuses some calls at once (no query text); nothing was sent.
      stop();
      throw error;
    }
  }) as typeof client.query;
}

/**
 * Runs `work` on one connection without the statement timeout: schema changes may take
 * long on a large table, and that is no outage. SQLite has no timeout to lift.
 */
export async function withoutStatementTimeout<T>(
  db: Db,
  work: (executor: Kysely<Database>) => Promise<T>,
): Promise<T> {
  if (db.dialect !== 'postgres') return work(db.kysely);
  return db.kysely.connection().execute(async (connection) => {
    await sql.raw(LIFT_STATEMENT_TIMEOUT).execute(connection);
    try {
      return await work(connection);
    } finally {
      await sql.raw(RESTORE_STATEMENT_TIMEOUT).execute(connection);
    }
  });
}

/**
 * The SQLite connection behind a root Kysely handle, or behind a group commit's transaction
 * while its members run (that transaction holds the connection: its statements may run on it
 * at any time), for compiled-once queries that skip Kysely's executor.
 */
const directSqlite = new WeakMap<Executor, { sqlite: SQLite.Database; camelCase: CompiledCamelCasePlugin }>();

/**
 * Builds and compiles a query once, at its first run; each call runs it with new parameter values,
 * in the order they appear in the SQL, and answers the whole result (rows, and
 * affected rows of a write). For the few per-request hot paths, where Kysely's
 * build-and-compile costs more than SQLite's execution.
 *
 * On SQLite, outside a transaction, the statement runs directly, as Kysely's driver
 * would run it: Kysely's executor around it (a connection mutex, a driver wrapper,
 * a plugin pass, each a promise) cost more than the statement on the per-request
 * paths (about 10 of the 100 µs of CPU of `GET /api/auth/me`, bench/foundation.ts).
 * better-sqlite3 runs a statement synchronously on the one connection Kysely also
 * uses, so a direct statement sees every committed write and commits at once, as a
 * queued one would. While a transaction is open that connection is the
 * transaction's, and a direct statement would read its uncommitted rows or join its
 * fate: then the statement queues behind it, through Kysely. The group commit's own
 * transaction runs them directly: its members run one at a time, each the only user of
 * the connection while it runs.
 */
export function compiledOnce<Row>(build: () => { compile(): CompiledQuery<Row> }) {
  // Built and compiled at its first run: a repo made for one transaction declares statements it
  // never runs, and building a query's tree costs as much as running it on SQLite.
  let compiled: CompiledQuery<Row> | undefined;
  const compile = () => {
    const done = build().compile();
    if (!HOT_STATEMENTS.has(done.sql)) HOT_STATEMENTS.set(done.sql, `hot_${HOT_STATEMENTS.size + 1}`);
    return done;
  };
  return (executor: Executor, ...parameters: unknown[]): Promise<QueryResult<Row>> => {
    compiled ??= compile();
    const direct = directSqlite.get(executor);
    if (direct && (executor.isTransaction || !direct.sqlite.inTransaction)) {
      // A failing statement rejects, as through Kysely, rather than throwing at the call.
      try {
        return Promise.resolve(runDirect<Row>(direct.sqlite, direct.camelCase, compiled.sql, parameters));
      } catch (error) {
        return Promise.reject(error);
      }
    }
    return executor.executeQuery<Row>({ ...compiled, parameters });
  };
}

/** What Kysely's SQLite driver and the camel-case plugin answer for one statement. */
function runDirect<Row>(
  sqlite: SQLite.Database,
  camelCase: CompiledCamelCasePlugin,
  sql: string,
  parameters: unknown[],
): QueryResult<Row> {
  const statement = sqlite.prepare(sql);
  if (statement.reader) {
    return {
      rows: camelCase.renameRows(statement.all(parameters) as Row[] & Record<string, unknown>[]) as Row[],
    };
  }
  const { changes, lastInsertRowid } = statement.run(parameters);
  return { numAffectedRows: BigInt(changes), insertId: BigInt(lastInsertRowid), rows: [] };
}

/**
 * `compiledOnce` for a statement whose shape follows a count (the rows of a multi-row insert,
 * the ids of an `in` list): one compiled statement a count, made at that count's first run.
 * Callers keep the counts small (a group of a few), so the set of statements stays bounded.
 */
export function compiledPerCount<Row>(build: (count: number) => { compile(): CompiledQuery<Row> }) {
  const byCount = new Map<number, ReturnType<typeof compiledOnce<Row>>>();
  return (executor: Executor, count: number, parameters: readonly unknown[]): Promise<QueryResult<Row>> => {
    let run = byCount.get(count);
    if (!run) {
      run = compiledOnce(() => build(count));
      byCount.set(count, run);
    }
    return run(executor, ...parameters);
  };
}

const rowsOf = <Row>(result: QueryResult<Row>): Row[] => result.rows;

/** `compiledOnce` for reads: answers the rows. */
export function precompiled<Row>(build: () => { compile(): CompiledQuery<Row> }) {
  const run = compiledOnce(build);
  return (executor: Executor, ...parameters: unknown[]): Promise<Row[]> =>
    run(executor, ...parameters).then(rowsOf<Row>);
}
