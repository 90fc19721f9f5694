import { defineModule } from '../../module.js';
import { feeds } from './migrations/0030_feeds.js';
import { feedsOfMembersWhoLeft } from './migrations/0055_feeds_of_members_who_left.js';
import { feedsPrivacy } from './privacy.js';
import type { FeedTables } from './repo.js';
import { feedRoutes } from './routes.js';
import { createFeedsService, type FeedsService } from './service.js';

declare module '../../module.js' {
  interface Services {
    feeds: FeedsService;
  }
}

declare module '../../db/types.js' {
  interface Database extends FeedTables {}
}

export const feedsModule = defineModule({
  name: 'feeds',
  tables: ['feedTokens'],
  service: (deps, services) =>
    createFeedsService({
      ...deps,
      calendars: services.calendars,
      events: services.events,
      organisations: services.organisations,
      resources: services.resources,
    }),
  routes: [{ prefix: '/api', plugin: feedRoutes }],
  privacy: feedsPrivacy,
  migrations: { '0030_feeds': feeds, '0055_feeds_of_members_who_left': feedsOfMembersWhoLeft },
});
