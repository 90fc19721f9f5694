import { AsyncLocalStorage } from 'node:async_hooks';
import {
  type CompiledQuery,
  type DatabaseConnection,
  type DatabaseIntrospector,
  type Dialect,
  type DialectAdapter,
  type Driver,
  type Kysely,
  PostgresDriver,
  type QueryCompiler,
  type QueryResult,
  type TransactionSettings,
} from 'kysely';
import type pg from 'pg';
import { asDomainError } from '../lib/errors.js';

/**
 * A PostgreSQL streaming replica beside the primary (`DATABASE_READ_URL`). Work run in
 * `run` may have its lone reads (a SELECT outside a transaction) served by the replica;
 * everything else, and everything outside such work, runs on the primary: writes,
 * transactions (the booking path's checks among them), the reads before and after, and
 * the reads inside `onPrimary`. Which work runs in it is the HTTP layer's choice
 * (src/http/replica-reads.ts); repos know one database. What a request may open at all is
 * the service's to pin with `onPrimary`: a handler that resolves a credential of its own
 * (a feed's URL, a resource's public token, a booking page's slug and what it shows) reads
 * it on the primary, so a revocation, rotation or deactivation holds at once however far
 * the replica is behind, while what the page then shows may still come from the replica.
 */
export interface ReadReplica {
  /**
   * Runs `work` (a route handler) under `routing`: its lone reads may go to the replica
   * if `routing.replicaServes` says so (asked once, at the first such read); a write sends
   * its later reads to the primary too, and tells `routing.onWrite`.
   */
  run<T>(routing: Routing, work: () => T): T;
  /** The primary's WAL position now, past every commit acknowledged so far. */
  primaryPosition(): Promise<string>;
  /** Whether the replica has replayed up to `position`; false when it cannot say (down, resting). */
  hasReplayed(position: string): Promise<boolean>;
}

/** What one piece of work's statements go by. */
export interface Routing {
  /** Whether the replica may serve the work's lone reads; absent, it may not. */
  replicaServes?: () => Promise<boolean>;
  /** Told once, at the work's first statement that is not a lone read (a write, a transaction). */
  onWrite?: () => void;
}

/** After the replica could not be reached, how long reads leave it alone before trying it again. */
export const REPLICA_REST_MS = 5_000;

/**
 * The primary's insert position, past every commit (with `synchronous_commit` off too), as the
 * end of the last record: just past a page's header (24 bytes; a segment's first page, 40)
 * the insert position is ahead of any record's end, where no replica's replay ever stops.
 */
const PRIMARY_POSITION = `
  with now as (
    select pg_current_wal_insert_lsn() as lsn, current_setting('wal_block_size')::numeric as page,
      pg_size_bytes(current_setting('wal_segment_size')) as segment),
  at as (select lsn, lsn - '0/0'::pg_lsn as bytes, page, segment from now)
  select (case when bytes % segment = 40 then lsn - 40 when bytes % page = 24 then lsn - 24 else lsn end)::text
    as position
  from at`;

/** PostgreSQL's `X/Y` log position as 16 hex digits, so that text order is WAL order. */
export function walPosition(text: string): string {
  const [high = '', low = ''] = text.split('/');
  return `${high.padStart(8, '0')}${low.padStart(8, '0')}`.toUpperCase();
}

/** What a statement asks of the work it runs for. */
interface Scope {
  readonly mayUseReplica: boolean;
  onReplica(): Promise<boolean>;
  noteWrite(): void;
}

/** One handler's statements: whether the replica may serve its reads is asked once, at the first. */
class ReadScope implements Scope {
  #choice: Promise<boolean> | undefined;
  #wrote = false;
  /** The handler ended: work it left running reads the primary. */
  ended = false;
  constructor(private readonly routing: Routing) {}

  get mayUseReplica(): boolean {
    return this.routing.replicaServes !== undefined && !this.#wrote && !this.ended;
  }

  // A choice that fails (the store of last writes unreachable) answers the primary.
  onReplica(): Promise<boolean> {
    this.#choice ??= (this.routing.replicaServes?.() ?? Promise.resolve(false)).catch(() => false);
    return this.#choice;
  }

  noteWrite(): void {
    if (this.#wrote) return;
    this.#wrote = true;
    this.routing.onWrite?.();
  }
}

/** Work `onPrimary` pinned inside a handler: its reads are the primary's, its writes still the handler's. */
class PrimaryScope implements Scope {
  readonly mayUseReplica = false;
  constructor(private readonly handler: Scope) {}

  onReplica(): Promise<boolean> {
    return Promise.resolve(false);
  }

  noteWrite(): void {
    this.handler.noteWrite();
  }
}

const scopes = new AsyncLocalStorage<Scope>();

/**
 * Runs `work` with every statement on the primary, in a replica-routed handler too (outside
 * one, or without a replica, it runs as it is): for the reads that decide whether a request
 * may see anything, which a replica behind the primary would answer from before a revocation.
 */
export function onPrimary<T>(work: () => T): T {
  const scope = scopes.getStore();
  return scope ? scopes.run(new PrimaryScope(scope), work) : work();
}

/** A statement the replica can answer alone: a SELECT, built or raw. */
function isRead(query: CompiledQuery): boolean {
  const kind = query.query.kind;
  return kind === 'SelectQueryNode' || (kind === 'RawNode' && /^\s*select\b/i.test(query.sql));
}

/** Whether the replica is reachable, and how far it has replayed, as last seen. */
class ReplicaState {
  #restUntil = 0;
  #replayed = '';
  #refreshing: Promise<void> | undefined;
  constructor(private readonly pool: pg.Pool) {}

  get usable(): boolean {
    return Date.now() >= this.#restUntil;
  }

  /** A statement failed on the replica: unreachable, it rests; anything else costs that statement only. */
  failed(error: unknown): void {
    if (asDomainError(error)?.code === 'UNAVAILABLE') this.#restUntil = Date.now() + REPLICA_REST_MS;
  }

  async hasReplayed(position: string): Promise<boolean> {
    if (!this.usable) return false;
    if (this.#replayed >= position) return true;
    // Requests behind one caller's write ask at once: one question to the replica answers them all.
    this.#refreshing ??= this.refresh().finally(() => {
      this.#refreshing = undefined;
    });
    await this.#refreshing;
    return this.#replayed >= position;
  }

  private async refresh(): Promise<void> {
    try {
      const { rows } = await this.pool.query<{ position: string | null }>(
        'select pg_last_wal_replay_lsn()::text as position',
      );
      // Null: not a standby at all, so it cannot vouch for any write.
      const replayed = rows[0]?.position ? walPosition(rows[0].position) : '';
      if (replayed > this.#replayed) this.#replayed = replayed;
    } catch (error) {
      this.failed(error);
    }
  }
}

/**
 * One connection as Kysely sees it: lone reads in a replica scope go to a replica connection
 * of their own, anything else to a primary connection taken at its first statement and kept
 * until release (a transaction's `begin` takes it, so a transaction is the primary's whole).
 */
class RoutedConnection implements DatabaseConnection {
  #primary: Promise<DatabaseConnection> | undefined;
  constructor(
    private readonly primaryDriver: Driver,
    private readonly replicaDriver: Driver,
    private readonly replica: ReplicaState,
  ) {}

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    const scope = scopes.getStore();
    if (scope) {
      if (!isRead(query)) scope.noteWrite();
      else if (!this.#primary && scope.mayUseReplica && this.replica.usable && (await scope.onReplica())) {
        try {
          return await this.onReplica<R>(query);
        } catch (error) {
          // Down, cancelled by a conflict with recovery, too slow: the primary answers instead.
          this.replica.failed(error);
        }
      }
    }
    return (await this.primary()).executeQuery<R>(query);
  }

  async *streamQuery<R>(query: CompiledQuery, chunkSize?: number): AsyncIterableIterator<QueryResult<R>> {
    yield* (await this.primary()).streamQuery<R>(query, chunkSize);
  }

  async release(): Promise<void> {
    const primary = await this.#primary?.catch(() => undefined);
    this.#primary = undefined;
    if (primary) await this.primaryDriver.releaseConnection(primary);
  }

  private primary(): Promise<DatabaseConnection> {
    this.#primary ??= this.primaryDriver.acquireConnection();
    return this.#primary;
  }

  private async onReplica<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    const connection = await this.replicaDriver.acquireConnection();
    try {
      return await connection.executeQuery<R>(query);
    } finally {
      await this.replicaDriver.releaseConnection(connection);
    }
  }
}

/** Kysely's driver over both pools: transactions and their savepoints are the primary driver's, on a routed connection. */
class ReadRoutingDriver implements Driver {
  constructor(
    private readonly primary: Driver,
    private readonly replicaDriver: Driver,
    private readonly replica: ReplicaState,
  ) {}

  async init(): Promise<void> {
    await this.primary.init();
    await this.replicaDriver.init();
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    return new RoutedConnection(this.primary, this.replicaDriver, this.replica);
  }

  beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    return this.primary.beginTransaction(connection, settings);
  }

  commitTransaction(connection: DatabaseConnection): Promise<void> {
    return this.primary.commitTransaction(connection);
  }

  rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    return this.primary.rollbackTransaction(connection);
  }

  async savepoint(connection: DatabaseConnection, name: string, compile: QueryCompiler['compileQuery']) {
    await this.primary.savepoint?.(connection, name, compile);
  }

  async rollbackToSavepoint(
    connection: DatabaseConnection,
    name: string,
    compile: QueryCompiler['compileQuery'],
  ) {
    await this.primary.rollbackToSavepoint?.(connection, name, compile);
  }

  async releaseSavepoint(
    connection: DatabaseConnection,
    name: string,
    compile: QueryCompiler['compileQuery'],
  ) {
    await this.primary.releaseSavepoint?.(connection, name, compile);
  }

  async releaseConnection(connection: DatabaseConnection): Promise<void> {
    await (connection as RoutedConnection).release();
  }

  async destroy(): Promise<void> {
    await this.replicaDriver.destroy();
    await this.primary.destroy();
  }
}

/**
 * `primary` (a PostgreSQL dialect over `primaryPool`) with its reads routable to the replica
 * behind `replicaPool`; answers the dialect and the replica's controls.
 */
export function withReadReplica(
  primary: Dialect,
  primaryPool: pg.Pool,
  replicaPool: pg.Pool,
): { dialect: Dialect; replica: ReadReplica } {
  const state = new ReplicaState(replicaPool);
  const replicaDriver = new PostgresDriver({ pool: replicaPool });
  const dialect: Dialect = {
    createAdapter: (): DialectAdapter => primary.createAdapter(),
    createDriver: (): Driver => new ReadRoutingDriver(primary.createDriver(), replicaDriver, state),
    createQueryCompiler: (): QueryCompiler => primary.createQueryCompiler(),
    // biome-ignore lint/suspicious/noExplicitAny: Kysely's own signature
    createIntrospector: (db: Kysely<any>): DatabaseIntrospector => primary.createIntrospector(db),
  };
  const replica: ReadReplica = {
    run: (routing, work) => {
      const scope = new ReadScope(routing);
      const result = scopes.run(scope, work);
      const end = () => {
        scope.ended = true;
      };
      if (result instanceof Promise) result.then(end, end);
      else end();
      return result;
    },
    primaryPosition: async () => {
      const { rows } = await primaryPool.query<{ position: string }>(PRIMARY_POSITION);
      return walPosition(rows[0]!.position);
    },
    hasReplayed: (position) => state.hasReplayed(position),
  };
  return { dialect, replica };
}
