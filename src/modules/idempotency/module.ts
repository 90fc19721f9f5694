import { defineModule } from '../../module.js';
import { idempotencyPrivacy } from './privacy.js';
import { createIdempotencyService, type IdempotencyService } from './service.js';
import type { IdempotencyTables } from './tables.js';

declare module '../../module.js' {
  interface Services {
    idempotency: IdempotencyService;
  }
}

declare module '../../db/types.js' {
  interface Database extends IdempotencyTables {}
}

export const idempotencyModule = defineModule({
  name: 'idempotency',
  tables: ['idempotencyKeys'],
  // The Idempotency-Key store the booking routes hand to src/http/idempotency.ts.
  service: (deps) => createIdempotencyService(deps),
  privacy: idempotencyPrivacy,
});
