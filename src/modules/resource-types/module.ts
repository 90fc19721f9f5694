import { defineModule } from '../../module.js';
import { bookingQuestions } from './migrations/0058_booking_questions.js';
import { resourceTypesPrivacy } from './privacy.js';
import { resourceTypeRoutes } from './routes.js';
import { resourceTypeAnswer } from './schemas.js';
import { createResourceTypesService, type ResourceTypesService } from './service.js';
import { resourceTypeTools } from './tools.js';

declare module '../../module.js' {
  interface Services {
    resourceTypes: ResourceTypesService;
  }
}

export const resourceTypesModule = defineModule({
  name: 'resourceTypes',
  service: (deps, { organisations, payments }) =>
    createResourceTypesService({ ...deps, organisations, payments }),
  routes: [{ prefix: '/api/resource-types', plugin: resourceTypeRoutes }],
  tools: resourceTypeTools,
  privacy: resourceTypesPrivacy,
  migrations: { '0058_booking_questions': bookingQuestions },
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
