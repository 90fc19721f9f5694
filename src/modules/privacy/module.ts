import { defineModule } from '../../module.js';
import { privacyPrivacy } from './privacy.js';
import { privacyRoutes } from './routes.js';
import { createPrivacyService, PROCESS_REQUEST_JOB, type PrivacyService } from './service.js';
import type { PrivacyTables } from './tables.js';

declare module '../../module.js' {
  interface Services {
    privacy: PrivacyService;
  }
}

declare module '../../db/types.js' {
  interface Database extends PrivacyTables {}
}

export const privacyModule = defineModule({
  name: 'privacy',
  tables: ['dataSubjectRequests', 'consentDecisions', 'policyAcceptances', 'privacyAudit'],
  // It runs every privacy declaration; of other services it needs only the account, and
  // the outbox (built on first use) for the completion's event.
  service: (deps, services) =>
    createPrivacyService({
      ...deps,
      users: services.auth,
      declarations: deps.privacyDeclarations,
      events: { append: (executor, events) => services.outbox.append(executor, events) },
    }),
  routes: [{ prefix: '/api/compliance/me/privacy', plugin: privacyRoutes }],
  privacy: privacyPrivacy,
  jobs: ({ operator }) => [
    { name: PROCESS_REQUEST_JOB, handler: operator.run, options: { retryLimit: 3, retryDelaySeconds: 10 } },
  ],
});
