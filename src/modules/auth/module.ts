import { defineModule } from '../../module.js';
import { authPrivacy } from './privacy.js';
import { authRoutes } from './routes.js';
import { type AuthService, createAuthService } from './service.js';
import { authTools } from './tools.js';

declare module '../../module.js' {
  interface Services {
    auth: AuthService;
  }
}

export const authModule = defineModule({
  name: 'auth',
  service: (deps, services) =>
    createAuthService({
      ...deps,
      // Every new user gets a default calendar, in the transaction that creates the user.
      onUserCreated: async (trx, user) => {
        await services.calendars.createDefaultCalendar(trx, user.id);
      },
    }),
  routes: [{ prefix: '/api/auth', plugin: authRoutes }],
  tools: authTools,
  privacy: authPrivacy,
});
