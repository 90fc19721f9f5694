import type { Db } from '../../db/database.js';
import type { IdempotencyStore } from '../../http/idempotency.js';
import { createIdempotencyRepo } from './repo.js';

export type IdempotencyService = IdempotencyStore;

/**
 * The store of `Idempotency-Key` answers, shared by every instance: routes that honour the
 * header hand it to `idempotencyHooks` (src/http/idempotency.ts).
 */
export function createIdempotencyService({ db }: { db: Db }): IdempotencyService {
  return createIdempotencyRepo(db.kysely);
}
