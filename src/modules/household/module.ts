import { defineModule } from '../../module.js';
import { householdPrivacy } from './privacy.js';
import { householdRoutes } from './routes.js';
import { createHouseholdService, type HouseholdService } from './service.js';
import type { HouseholdTables } from './tables.js';
import { householdTools } from './tools.js';

declare module '../../module.js' {
  interface Services {
    household: HouseholdService;
  }
}

declare module '../../db/types.js' {
  interface Database extends HouseholdTables {}
}

export const householdModule = defineModule({
  name: 'household',
  tables: ['householdItems'],
  service: (deps, { userGroups }) => createHouseholdService({ ...deps, userGroups }),
  routes: [{ prefix: '/api/household', plugin: householdRoutes }],
  tools: householdTools,
  privacy: householdPrivacy,
  presentation: { order: 9 },
});
