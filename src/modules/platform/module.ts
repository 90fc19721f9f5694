import { defineModule } from '../../module.js';
import { platformPrivacy } from './privacy.js';
import { platformRoutes } from './routes.js';
import { createPlatformService, type PlatformService } from './service.js';

declare module '../../module.js' {
  interface Services {
    platform: PlatformService;
  }
}

export const platformModule = defineModule({
  name: 'platform',
  service: (deps) => createPlatformService(deps),
  routes: [{ prefix: '/api', plugin: platformRoutes }],
  privacy: platformPrivacy,
});
