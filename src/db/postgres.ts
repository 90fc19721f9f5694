import {
  type DatabaseIntrospector,
  type DatabaseMetadata,
  Kysely,
  PostgresDialect,
  sql,
  type TableMetadata,
} from 'kysely';
import type pg from 'pg';
import { loadDriver } from '../lib/load-driver.js';
import { CompiledCamelCasePlugin } from './camel-case.js';
import { hotStatementName } from './compiled.js';
import type { DatabaseOptions, Db } from './database.js';
import { preparedQueryClass } from './prepared-query.js';
import { endQuerySpan, startQuerySpan } from './query-spans.js';
import { withReadReplica } from './read-replica.js';
import type { Database } from './types.js';

let postgresDriver: typeof pg | undefined;
let PreparedQuery: ReturnType<typeof preparedQueryClass>;

/** The pg driver, loaded on first use (a SQLite deployment never needs it), its parsers set. */
function loadPostgres(): typeof pg {
  if (postgresDriver) return postgresDriver;
  postgresDriver = loadDriver<typeof pg>('pg');
  PreparedQuery = preparedQueryClass(postgresDriver);
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

const DEFAULT_CONNECT_TIMEOUT_MS = 5_000;
const DEFAULT_STATEMENT_TIMEOUT_MS = 30_000;
/** Beyond the statement timeout: time for the server's cancellation to arrive before the connection counts as lost. */
const LOST_CONNECTION_GRACE_MS = 1_000;

/** A replica's connection is given up on sooner: the primary is there to answer instead. */
const REPLICA_CONNECT_TIMEOUT_MS = 1_000;
/** A read the replica has not answered by then is asked of the primary. */
const REPLICA_STATEMENT_TIMEOUT_MS = 5_000;

export function createPostgres(url: string, options: DatabaseOptions): Db {
  const pool = createPool(url, options, {
    connectTimeoutMs: options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS,
    statementTimeoutMs: options.statementTimeoutMs ?? DEFAULT_STATEMENT_TIMEOUT_MS,
  });
  const primary = options.searchPath
    ? new OneSchemaPostgresDialect({ pool }, options.searchPath)
    : new PostgresDialect({ pool });
  const replicaPool = options.readUrl
    ? createPool(options.readUrl, options, {
        connectTimeoutMs: REPLICA_CONNECT_TIMEOUT_MS,
        statementTimeoutMs: Math.min(
          REPLICA_STATEMENT_TIMEOUT_MS,
          options.statementTimeoutMs || REPLICA_STATEMENT_TIMEOUT_MS,
        ),
      })
    : undefined;
  const routed = replicaPool ? withReadReplica(primary, pool, replicaPool) : undefined;
  const kysely = new Kysely<Database>({
    dialect: routed?.dialect ?? primary,
    plugins: [new CompiledCamelCasePlugin()],
  });
  return {
    kysely,
    dialect: 'postgres',
    pool,
    ...(options.searchPath ? { schema: options.searchPath } : {}),
    ...(routed ? { replica: routed.replica } : {}),
    waiting: () => pool.waitingCount,
    close: async () => {
      await kysely.destroy();
    },
  };
}

/** One pool (the primary's, or the replica's) with every client adapted as `adaptClient` says. */
function createPool(
  url: string,
  options: DatabaseOptions,
  timeouts: { connectTimeoutMs: number; statementTimeoutMs: number },
): pg.Pool {
  const { statementTimeoutMs } = timeouts;
  const pool = new (loadPostgres().Pool)({
    connectionString: url,
    max: options.poolSize ?? 10,
    // A database that is down or unreachable fails a query in bounded time (then 503), never hangs it.
    connectionTimeoutMillis: timeouts.connectTimeoutMs,
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
  return pool;
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
 * - A span per statement run inside traced work (`statementEnd`).
 * - The hot statements as named prepared statements: each connection parses and plans
 *   one once, then only binds and executes it, where an unnamed statement is parsed and
 *   planned on every call. Other SQL (built per call, with variable `in` lists) stays
 *   unnamed, so a connection holds a bounded set. A prepared statement reading `*` fails
 *   for good once a migration (another instance's, during a rolling deploy) adds a
 *   column to its table; such a statement runs unnamed from then on, on that connection
 *   (the failed attempt executed nothing). A new connection (after a reconnect) starts
 *   afresh and prepares each statement again on first use. A prepared statement's rows are
 *   built from the row shape kept for it (prepared-query.ts).
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
    const stop = statementEnd(watch(), text);
    try {
      // The callback form (pool.query, which the job queue uses) passes through as it came.
      if (typeof callback === 'function' || typeof values === 'function') {
        const done = (typeof callback === 'function' ? callback : values) as QueryCallback;
        const stopThenDone: QueryCallback = (error, result) => {
          stop(error);
          done(error, result);
        };
        return typeof callback === 'function' ? query(text, values, stopThenDone) : query(text, stopThenDone);
      }
      const name = typeof text === 'string' && !reshaped.has(text) ? hotStatementName(text) : undefined;
      const running =
        name === undefined ? query(text, values) : runPrepared(query, name, text as string, values, reshaped);
      return running.then(
        (result) => {
          stop();
          return result;
        },
        (error: unknown) => {
          stop(error);
          throw error;
        },
      );
    } catch (error) {
      // pg refuses some calls at once (no query text); nothing was sent.
      stop(error);
      throw error;
    }
  }) as typeof client.query;
}

/**
 * Runs a hot statement prepared under `name`; once PostgreSQL says its result changed shape
 * (a column added to a table it reads with `*`), unnamed from then on, noted in `reshaped`.
 */
function runPrepared(
  query: (...args: unknown[]) => Promise<unknown>,
  name: string,
  text: string,
  values: unknown,
  reshaped: Set<string>,
): Promise<unknown> {
  return new Promise((resolve, reject) => {
    query(
      new PreparedQuery(name, text, values, (error, result) => (error ? reject(error) : resolve(result))),
    );
  }).catch((error: { code?: string }) => {
    if (error?.code !== PLAN_CHANGED_RESULT_TYPE) throw error;
    reshaped.add(text);
    return query(text, values);
  });
}

/**
 * The end of one statement: its silence bound stopped, and its span ended (with how it failed)
 * when it runs inside traced work (query-spans.ts).
 */
function statementEnd(stopBound: () => void, text: unknown): (error?: unknown) => void {
  const span = startQuerySpan('postgresql', text);
  if (!span) return stopBound;
  return (error) => {
    stopBound();
    endQuerySpan(span, error);
  };
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
