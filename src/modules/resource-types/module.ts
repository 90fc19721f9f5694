import { defineModule } from '../../module.js';
import { bookingQuestions } from './migrations/0058_booking_questions.js';
import { poolAssignment } from './migrations/0064_pool_assignment.js';
import { typeReminders } from './migrations/0074_type_reminders.js';
import { resourceTypesPrivacy } from './privacy.js';
import { resourceTypeRoutes } from './routes.js';
import { resourceTypeAnswer } from './schemas.js';
import { createResourceTypesService, type ResourceTypesService } from './service.js';
import type { ResourceTypeTables } from './tables.js';
import { resourceTypeTools } from './tools.js';

declare module '../../module.js' {
  interface Services {
    resourceTypes: ResourceTypesService;
  }
}

declare module '../../db/types.js' {
  interface Database extends ResourceTypeTables {}
}

export const resourceTypesModule = defineModule({
  name: 'resourceTypes',
  tables: ['resourceTypes'],
  service: (deps, services) =>
    createResourceTypesService({
      ...deps,
      organisations: services.organisations,
      payments: services.payments,
      // Read when a type is deleted: the resources service is built after this one (it reads types).
      resources: {
        hasResourcesOfType: (executor, id) => services.resources.hasResourcesOfType(executor, id),
      },
    }),
  routes: [{ prefix: '/api/resource-types', plugin: resourceTypeRoutes }],
  tools: resourceTypeTools,
  privacy: resourceTypesPrivacy,
  migrations: {
    '0058_booking_questions': bookingQuestions,
    '0064_pool_assignment': poolAssignment,
    '0074_type_reminders': typeReminders,
  },
  resources: [
    {
      path: 'resource-types',
      action: 'resourceTypes.list',
      label: 'Resource type',
      schema: resourceTypeAnswer,
      list: (resourceTypes, actor) => resourceTypes.list(actor),
      read: (resourceTypes, actor, id) => resourceTypes.get(actor, id),
    },
  ],
  presentation: { order: 11 },
});
