import type { MemberOrganisation, MembershipOf, Organisation, OrganisationRole } from './schemas.js';

/** An organisation as its member sees it: with their role and whether it is their active one. */
export function view(
  organisation: Organisation,
  role: OrganisationRole,
  isActiveOrganisation: boolean,
): MemberOrganisation {
  return {
    ...organisation,
    role,
    isOwner: role === 'OWNER',
    isActiveOrganisation,
  } satisfies MemberOrganisation;
}

export const viewOf = ({ organisation, role, isActiveOrganisation }: MembershipOf): MemberOrganisation =>
  view(organisation, role, isActiveOrganisation);
