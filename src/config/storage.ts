import { z } from 'zod';

/** The database, and Redis for state shared between instances (rate limits, short-lived records). */
export const storageEnv = z.object({
  DATABASE_URL: z
    .string()
    .regex(/^(postgres(ql)?:\/\/|sqlite:)/, 'must start with postgres://, postgresql:// or sqlite:')
    .default('sqlite:./data/reservations.db'),
  DATABASE_CONNECT_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(5_000),
  DATABASE_STATEMENT_TIMEOUT_MS: z.coerce.number().int().min(0).max(3_600_000).default(30_000),
  REDIS_URL: z
    .string()
    .regex(/^rediss?:\/\//, 'must start with redis:// or rediss://')
    .optional(),
});

export interface StorageConfig {
  databaseUrl: string;
  /** PostgreSQL: how long a query waits for a connection before it fails (503). */
  databaseConnectTimeoutMs: number;
  /** PostgreSQL: the statement timeout (0: none); a connection silent a second longer is closed. */
  databaseStatementTimeoutMs: number;
  redisUrl: string | undefined;
}

export function storageConfig(e: z.output<typeof storageEnv>): StorageConfig {
  return {
    databaseUrl: e.DATABASE_URL,
    databaseConnectTimeoutMs: e.DATABASE_CONNECT_TIMEOUT_MS,
    databaseStatementTimeoutMs: e.DATABASE_STATEMENT_TIMEOUT_MS,
    redisUrl: e.REDIS_URL,
  };
}
