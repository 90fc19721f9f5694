import { defineModule } from '../../module.js';
import { requireTwoFactor } from './migrations/0048_require_two_factor.js';
import { defaultLocale } from './migrations/0073_default_locale.js';
import { organisationsPrivacy } from './privacy.js';
import { organisationRoutes } from './routes.js';
import { createOrganisationsService, type OrganisationsService } from './service.js';
import type { OrganisationTables } from './tables.js';
import { organisationTools } from './tools.js';

declare module '../../module.js' {
  interface Services {
    organisations: OrganisationsService;
  }
}

declare module '../../db/types.js' {
  interface Database extends OrganisationTables {}
}

export const organisationsModule = defineModule({
  name: 'organisations',
  tables: ['organisations', 'organisationMemberships', 'organisationInvitations'],
  // The outbox is built on first use (it reads memberships through this service).
  service: (deps, services) =>
    createOrganisationsService({
      ...deps,
      events: { append: (executor, events) => services.outbox.append(executor, events) },
    }),
  routes: [{ prefix: '/api/organisations', plugin: organisationRoutes }],
  tools: organisationTools,
  privacy: organisationsPrivacy,
  migrations: { '0048_require_two_factor': requireTwoFactor, '0073_default_locale': defaultLocale },
  presentation: { order: 3 },
});
