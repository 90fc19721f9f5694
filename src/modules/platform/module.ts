import { defineModule } from '../../module.js';
import { platformPrivacy } from './privacy.js';
import { platformRoutes } from './routes.js';
import { createPlatformService, type PlatformService } from './service.js';
import type { PlatformTables } from './tables.js';

declare module '../../module.js' {
  interface Services {
    platform: PlatformService;
  }
}

declare module '../../db/types.js' {
  interface Database extends PlatformTables {}
}

export const platformModule = defineModule({
  name: 'platform',
  tables: ['frontendErrors', 'securityReports', 'honeypotHits'],
  service: (deps) => createPlatformService(deps),
  routes: [{ prefix: '/api', plugin: platformRoutes }],
  privacy: platformPrivacy,
});
