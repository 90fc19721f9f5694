import { z } from 'zod';
import { invalidVariable } from './fields.js';

/** The database, and Redis for state shared between instances (rate limits, short-lived records). */
export const storageEnv = z.object({
  DATABASE_URL: z
    .string()
    .regex(/^(postgres(ql)?:\/\/|sqlite:)/, 'must start with postgres://, postgresql:// or sqlite:')
    .default('sqlite:./data/reservations.db'),
  DATABASE_READ_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, 'must start with postgres:// or postgresql:// (a streaming replica)')
    .optional(),
  DATABASE_CONNECT_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(5_000),
  DATABASE_STATEMENT_TIMEOUT_MS: z.coerce.number().int().min(0).max(3_600_000).default(30_000),
  REDIS_URL: z
    .string()
    .regex(/^rediss?:\/\//, 'must start with redis:// or rediss://')
    .optional(),
});

export interface StorageConfig {
  databaseUrl: string;
  /** PostgreSQL only: a streaming replica of `databaseUrl` that serves the reads routes mark (src/http/replica-reads.ts). */
  databaseReadUrl: string | undefined;
  /** PostgreSQL: how long a query waits for a connection before it fails (503). */
  databaseConnectTimeoutMs: number;
  /** PostgreSQL: the statement timeout (0: none); a connection silent a second longer is closed. */
  databaseStatementTimeoutMs: number;
  redisUrl: string | undefined;
}

export function storageConfig(e: z.output<typeof storageEnv>): StorageConfig {
  return {
    databaseUrl: e.DATABASE_URL,
    databaseReadUrl: e.DATABASE_READ_URL,
    databaseConnectTimeoutMs: e.DATABASE_CONNECT_TIMEOUT_MS,
    databaseStatementTimeoutMs: e.DATABASE_STATEMENT_TIMEOUT_MS,
    redisUrl: e.REDIS_URL,
  };
}

/** A read replica is PostgreSQL's: SQLite has nothing to stream to one. */
export function assertReadReplicaOfPostgres(e: z.output<typeof storageEnv>): void {
  if (e.DATABASE_READ_URL && e.DATABASE_URL.startsWith('sqlite:'))
    throw invalidVariable(
      'DATABASE_READ_URL',
      'needs a PostgreSQL DATABASE_URL (a SQLite database has no replica)',
    );
}
