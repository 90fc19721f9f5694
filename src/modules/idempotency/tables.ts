import type { Id, Timestamp } from '../../db/column-types.js';

/**
 * A client's idempotency key for one booking request. `statusCode` and `responseBody`
 * are null while the first request runs; then they hold its answer (which names the
 * customer), replayed for 24 hours and purged after.
 */
export interface IdempotencyKeysTable {
  id: Id;
  /** `user:<id>` for signed-in callers, `ip:<address>` for the public routes. */
  scope: string;
  key: string;
  userId: number | null;
  /** SHA-256 (hex) of method, path and canonical JSON body. */
  fingerprint: string;
  statusCode: number | null;
  /** The JSON text sent as the answer. */
  responseBody: string | null;
  createdAt: Timestamp;
  completedAt: Timestamp | null;
}

/** The tables this module owns (declared into Database by its module.ts). */
export interface IdempotencyTables {
  idempotencyKeys: IdempotencyKeysTable;
}
