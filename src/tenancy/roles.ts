import { forbidden } from '../lib/errors.js';
import type { OrganisationRole } from '../modules/organisations/tables.js';

const ANY_MEMBER: readonly OrganisationRole[] = ['OWNER', 'ADMIN', 'MANAGER', 'MEMBER'];

/**
 * The role matrix of DECISIONS.md "Organisations": who may do what in an
 * organisation. Every role check goes through `can` / `assertCan` (or the
 * `can` option of the tenant gate, ./gate.ts). Which members an ADMIN may manage
 * is a rule of its own, in the organisations service.
 *
 * An agent acts with its owner's role: the organisation side (organisations,
 * catalogue, availability, reservations, payments) is organisation-wide, so an
 * agent's calendar and group scope does not narrow it.
 */
export const ROLE_MATRIX = {
  readOrganisation: ANY_MEMBER,
  listMembers: ANY_MEMBER,
  updateOrganisation: ['OWNER', 'ADMIN'],
  /** What archiving would take out of service (deletion preview). */
  previewArchive: ['OWNER', 'ADMIN'],
  manageBilling: ['OWNER', 'ADMIN'],
  /** Archive and restore. */
  archiveOrganisation: ['OWNER'],
  /** Turn `requireTwoFactor` on or off. */
  setTwoFactorPolicy: ['OWNER'],
  manageMembers: ['OWNER', 'ADMIN'],
  readCatalogue: ANY_MEMBER,
  writeCatalogue: ['OWNER', 'ADMIN', 'MANAGER'],
  book: ANY_MEMBER,
  readReservations: ANY_MEMBER,
  /** Cancel a reservation someone else made; its creator may always cancel their own. */
  cancelAnyReservation: ['OWNER', 'ADMIN', 'MANAGER'],
  /** Mark whether a reservation's customer came (`attended` or `no_show`) once it started. */
  markAttendance: ['OWNER', 'ADMIN', 'MANAGER'],
  /** Book, cancel or move a reservation past its type's booking rules (`overrideRules`). */
  overrideBookingRules: ['OWNER', 'ADMIN', 'MANAGER'],
  /** The organisation's event feed (issue 24). */
  readEvents: ['OWNER', 'ADMIN'],
  /** Webhook endpoints, their secrets and delivery log (issue 24). */
  manageWebhooks: ['OWNER', 'ADMIN'],
} as const satisfies Record<string, readonly OrganisationRole[]>;
export type OrganisationAction = keyof typeof ROLE_MATRIX;

/** Whether `role` may do `action`. */
export function can(role: OrganisationRole, action: OrganisationAction): boolean {
  return (ROLE_MATRIX[action] as readonly OrganisationRole[]).includes(role);
}

/** Throws 403 FORBIDDEN unless `role` may do `action`. */
export function assertCan(role: OrganisationRole, action: OrganisationAction): void {
  if (!can(role, action)) {
    const allowed: readonly OrganisationRole[] = ROLE_MATRIX[action];
    throw forbidden(`This needs one of the organisation roles ${allowed.join(', ')}; yours is ${role}`);
  }
}
