import { defineModule } from '../../module.js';
import { accounts } from './migrations/0045_accounts.js';
import { twoFactorAndPasskeys } from './migrations/0046_two_factor_and_passkeys.js';
import { authPrivacy } from './privacy.js';
import { authRoutes } from './routes.js';
import type { SecurityTables } from './security-tables.js';
import { type AuthService, createAuthService } from './service.js';
import type { AuthTables } from './tables.js';
import { authTools } from './tools.js';

declare module '../../module.js' {
  interface Services {
    auth: AuthService;
  }
}

declare module '../../db/types.js' {
  interface Database extends AuthTables, SecurityTables {}
}

export const authModule = defineModule({
  name: 'auth',
  tables: [
    'users',
    'loginSessions',
    'apiKeys',
    'authSessions',
    'accountLinks',
    'twoFactorSecrets',
    'twoFactorRecoveryCodes',
    'twoFactorChallenges',
    'passkeys',
    'passkeyChallenges',
  ],
  service: (deps, services) =>
    createAuthService({
      ...deps,
      // Every new user gets a default calendar, in the transaction that creates the user.
      onUserCreated: async (trx, user) => {
        await services.calendars.createDefaultCalendar(trx, user.id);
      },
      // Read when a mail goes, so neither service needs the other built first.
      sendMail: (mail) => services.mail.sendAccountMail(mail),
    }),
  routes: [{ prefix: '/api/auth', plugin: authRoutes }],
  tools: authTools,
  privacy: authPrivacy,
  migrations: { '0045_accounts': accounts, '0046_two_factor_and_passkeys': twoFactorAndPasskeys },
  presentation: { order: 2 },
});
