import type SQLite from 'better-sqlite3';
import type { CompiledQuery, QueryResult } from 'kysely';
import type { CompiledCamelCasePlugin } from './camel-case.js';
import type { Executor } from './database.js';
import { directSqliteOf } from './sqlite.js';

/**
 * The SQL of every query compiled once (`compiledOnce`, `precompiled`), each with a
 * statement name. A fixed, small set: the per-request hot paths, and the mail drain's group
 * statements (`compiledPerCount`, one a group size up to 25).
 */
const HOT_STATEMENTS = new Map<string, string>();

/** The statement name PostgreSQL connections prepare `sql` under, if it is a hot statement. */
export const hotStatementName = (sql: string): string | undefined => HOT_STATEMENTS.get(sql);

/** The SQL of every hot statement compiled so far (their plans are checked in tests). */
export const hotStatements = (): string[] => [...HOT_STATEMENTS.keys()];

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
    const direct = directSqliteOf(executor);
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
