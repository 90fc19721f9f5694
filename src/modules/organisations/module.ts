import { defineModule } from '../../module.js';
import { organisationsPrivacy } from './privacy.js';
import { organisationRoutes } from './routes.js';
import { createOrganisationsService, type OrganisationsService } from './service.js';
import { organisationTools } from './tools.js';

declare module '../../module.js' {
  interface Services {
    organisations: OrganisationsService;
  }
}

export const organisationsModule = defineModule({
  name: 'organisations',
  service: (deps) => createOrganisationsService(deps),
  routes: [{ prefix: '/api/organisations', plugin: organisationRoutes }],
  tools: organisationTools,
  privacy: organisationsPrivacy,
});
