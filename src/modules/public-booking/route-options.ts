import { errorResponses } from '../../http/errors.js';
import type { idempotencyHooks } from '../../http/idempotency.js';
import { dryRunAnswer } from '../reservations/dry-run-schemas.js';
import { publicReservation } from '../reservations/schemas.js';

export const tags = ['public booking'];
export const errors = errorResponses(400, 404, 409, 429);
/** What `?dryRun=true` answers (200): the would-be booking (id null, no manage link), or the refusal. */
export const dryRun = dryRunAnswer(publicReservation);

/** What routes.ts hands every public route file: one rate limit config and the idempotency hooks. */
export interface PublicRouteOptions {
  /** Anyone can reach these; each route has its own, tighter rate limit. */
  config: { rateLimit: { max: number; timeWindow: string } };
  /** Keys scoped to the client's IP address; a booking's manage token is never replayed. */
  idempotent: ReturnType<typeof idempotencyHooks>;
}
