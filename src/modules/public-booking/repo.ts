import type { OrganisationsService } from '../organisations/service.js';
import type { ResourcesService } from '../resources/service.js';

/**
 * What the public pages read of organisations and resources, through those modules' read
 * ports (this module owns no table).
 */
export function createPublicBookingReads(
  organisations: Pick<OrganisationsService, 'publicOrganisationBySlug' | 'publicOrganisationById'>,
  resources: Pick<ResourcesService, 'byPublicToken'>,
) {
  return {
    /** An active organisation by its public slug. */
    organisationBySlug: organisations.publicOrganisationBySlug,
    /** An active organisation by id: the one a customer's manage link belongs to. */
    organisationById: organisations.publicOrganisationById,
    /** The active, non-lane resource a public token names, with its active organisation. */
    async resourceByToken(token: string) {
      const resource = await resources.byPublicToken(token);
      if (!resource) return undefined;
      const organisation = await organisations.publicOrganisationById(resource.organisationId);
      return organisation && { resourceId: resource.id, organisation };
    },
  };
}
