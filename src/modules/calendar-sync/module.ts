import { defineModule } from '../../module.js';
import { syncJobs } from './jobs.js';
import { calendarSyncPrivacy } from './privacy.js';
import { calendarSyncRoutes } from './routes.js';
import { type CalendarSyncService, createCalendarSyncService } from './service.js';
import type { CalendarSyncTables } from './tables.js';

declare module '../../module.js' {
  interface Services {
    calendarSync: CalendarSyncService;
  }
}

declare module '../../db/types.js' {
  interface Database extends CalendarSyncTables {}
}

export const calendarSyncModule = defineModule({
  name: 'calendarSync',
  tables: [
    'calendarSyncConnections',
    'calendarSyncMappings',
    'calendarSyncStates',
    'calendarSyncExceptions',
    'calendarSyncConflicts',
  ],
  service: (deps, services) =>
    createCalendarSyncService({
      ...deps,
      calendars: services.calendars,
      events: services.events,
      automation: services.automation,
      // The outbox is built on first use (it is listed after this module).
      outbox: { append: (executor, events) => services.outbox.append(executor, events) },
    }),
  routes: [{ prefix: '/api/calendar-sync', plugin: calendarSyncRoutes }],
  privacy: calendarSyncPrivacy,
  jobs: ({ workers }, { config }) => syncJobs(workers, config),
});
