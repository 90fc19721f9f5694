import { defineModule } from '../../module.js';
import { idempotencyPrivacy } from './privacy.js';
import { createIdempotencyService, type IdempotencyService } from './service.js';

declare module '../../module.js' {
  interface Services {
    idempotency: IdempotencyService;
  }
}

export const idempotencyModule = defineModule({
  name: 'idempotency',
  // The Idempotency-Key store the booking routes hand to src/http/idempotency.ts.
  service: (deps) => createIdempotencyService(deps),
  privacy: idempotencyPrivacy,
});
