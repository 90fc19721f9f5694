import { defineModule } from '../../module.js';
import { busyRead } from './migrations/0037_busy_read.js';
import { busySingleByEnd } from './migrations/0043_busy_single_by_end.js';
import { versionShards } from './migrations/0044_version_shards.js';
import { availabilityPrivacy } from './privacy.js';
import { availabilityRoutes } from './routes.js';
import { type AvailabilityService, createAvailabilityService } from './service.js';
import type { AvailabilityTables } from './tables.js';
import { availabilityTools } from './tools.js';

declare module '../../module.js' {
  interface Services {
    availability: AvailabilityService;
  }
}

declare module '../../db/types.js' {
  interface Database extends AvailabilityTables {}
}

export const availabilityModule = defineModule({
  name: 'availability',
  tables: ['availabilityVersions'],
  service: (deps, { organisations, resourceTypes }) =>
    createAvailabilityService({ ...deps, organisations, resourceTypes }),
  routes: [{ prefix: '/api', plugin: availabilityRoutes }],
  tools: availabilityTools,
  privacy: availabilityPrivacy,
  migrations: {
    '0037_busy_read': busyRead,
    '0043_busy_single_by_end': busySingleByEnd,
    '0044_version_shards': versionShards,
  },
  presentation: { order: 13 },
});
