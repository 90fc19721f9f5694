import { sweep } from '../../jobs/declarations.js';
import { defineModule } from '../../module.js';
import { waitlist } from './migrations/0029_waitlist.js';
import { waitlistManageToken } from './migrations/0035_waitlist_manage_token.js';
import { waitlistCollective } from './migrations/0068_waitlist_collective.js';
import { waitlistPrivacy } from './privacy.js';
import { waitlistRoutes } from './routes.js';
import { createWaitlistService, WAITLIST_OFFERS_JOB, type WaitlistService } from './service.js';
import type { WaitlistTables } from './tables.js';
import { waitlistTools } from './tools.js';

declare module '../../module.js' {
  interface Services {
    waitlist: WaitlistService;
  }
}

declare module '../../db/types.js' {
  interface Database extends WaitlistTables {}
}

export const waitlistModule = defineModule({
  name: 'waitlist',
  tables: ['waitlistEntries', 'waitlistConsumer'],
  service: (deps, { organisations, reservations, resourceTypes, resources, outbox }) =>
    createWaitlistService({ ...deps, organisations, reservations, resourceTypes, resources, outbox }),
  routes: [{ prefix: '/api/reservations/waitlist', plugin: waitlistRoutes }],
  tools: waitlistTools,
  privacy: waitlistPrivacy,
  migrations: {
    '0029_waitlist': waitlist,
    '0035_waitlist_manage_token': waitlistManageToken,
    '0068_waitlist_collective': waitlistCollective,
  },
  jobs: ({ processOffers }) => [sweep(WAITLIST_OFFERS_JOB, 1, () => processOffers({ sweep: true }))],
});
