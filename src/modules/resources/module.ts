import { defineModule } from '../../module.js';
import { managersWhoLeft } from './migrations/0054_managers_who_left.js';
import { assignmentWeightsAndCaps } from './migrations/0065_assignment_weights_and_caps.js';
import { resourcesPrivacy } from './privacy.js';
import { resourceRoutes } from './routes.js';
import { resource } from './schemas.js';
import { createResourcesService, type ResourcesService } from './service.js';
import type { ResourceTables } from './tables.js';
import { resourceTools } from './tools.js';

declare module '../../module.js' {
  interface Services {
    resources: ResourcesService;
  }
}

declare module '../../db/types.js' {
  interface Database extends ResourceTables {}
}

export const resourcesModule = defineModule({
  name: 'resources',
  tables: ['resources', 'resourceListVersions'],
  service: (deps, { organisations, resourceTypes, calendars }) =>
    createResourcesService({ ...deps, organisations, resourceTypes, calendars }),
  routes: [{ prefix: '/api/resources', plugin: resourceRoutes }],
  tools: resourceTools,
  privacy: resourcesPrivacy,
  migrations: {
    '0054_managers_who_left': managersWhoLeft,
    '0065_assignment_weights_and_caps': assignmentWeightsAndCaps,
  },
  resources: [
    {
      path: 'resources',
      action: 'resources.list',
      label: 'Resource',
      schema: resource,
      list: (resources, actor) => resources.list(actor, {}),
      read: (resources, actor, id) => resources.get(actor, id),
    },
  ],
  presentation: { order: 12 },
});
