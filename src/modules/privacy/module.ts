import { defineModule } from '../../module.js';
import { privacyPrivacy } from './privacy.js';
import { privacyRoutes } from './routes.js';
import { createPrivacyService, type PrivacyService } from './service.js';

declare module '../../module.js' {
  interface Services {
    privacy: PrivacyService;
  }
}

export const privacyModule = defineModule({
  name: 'privacy',
  // It runs every privacy declaration; of other services it needs only the account.
  service: (deps, { auth }) =>
    createPrivacyService({ ...deps, users: auth, declarations: deps.privacyDeclarations }),
  routes: [{ prefix: '/api/compliance/me/privacy', plugin: privacyRoutes }],
  privacy: privacyPrivacy,
});
