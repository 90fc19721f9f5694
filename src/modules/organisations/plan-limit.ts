import { DomainError, notFound } from '../../lib/errors.js';
import type { Plan } from '../auth/tables.js';
import type { OrganisationRepo } from './repo.js';

/** Owned active organisations a user may have, by plan (DECISIONS.md). */
export const PLAN_ORGANISATION_LIMITS: Record<Plan, number> = { STORE: 1, ENTERPRISE: 5 };

/**
 * 403 PLAN_LIMIT_REACHED when the user already owns as many active organisations as
 * the plan allows. `whose` names the user in the message: the caller, or the member
 * about to be made OWNER. Call inside the transaction that adds the ownership.
 */
export async function assertBelowPlanLimit(
  repo: OrganisationRepo,
  userId: number,
  whose: 'Your' | "The member's" = 'Your',
): Promise<void> {
  // The row lock makes two concurrent creates (or restores, or acceptances) of one user take turns here.
  const owner = await repo.lockUser(userId);
  if (!owner) throw notFound('User');
  const limit = PLAN_ORGANISATION_LIMITS[owner.plan];
  const owned = await repo.countOwnedActive(userId);
  if (owned >= limit) {
    throw new DomainError(
      'PLAN_LIMIT_REACHED',
      `${whose} plan ${owner.plan} allows ${limit} owned active organisation${limit === 1 ? '' : 's'}; ` +
        'archive one or upgrade the plan',
    );
  }
}
