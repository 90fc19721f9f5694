import { forbidden } from '../../lib/errors.js';
import type { OrganisationRole } from './schemas.js';

/** Roles an ADMIN may give, take away, or act on; OWNER may act on every role. */
const ADMIN_MANAGEABLE: readonly OrganisationRole[] = ['MANAGER', 'MEMBER'];

/**
 * Which members a manager may act on, once the matrix allowed `manageMembers`:
 * an OWNER acts on every role, an ADMIN only on MANAGER and MEMBER (as the
 * member's current role and as the new one).
 */
export function assertCanManage(
  role: OrganisationRole,
  current: OrganisationRole | null,
  next: OrganisationRole | null,
) {
  if (role === 'OWNER') return;
  if (current !== null && !ADMIN_MANAGEABLE.includes(current)) {
    throw forbidden(`An ${role} cannot change or remove a member with role ${current}`);
  }
  if (next !== null && !ADMIN_MANAGEABLE.includes(next)) {
    throw forbidden(`An ${role} cannot give the role ${next}`);
  }
}
