import { defineModule } from '../../module.js';
import { calendarSyncPrivacy } from './privacy.js';
import { calendarSyncRoutes } from './routes.js';
import { type CalendarSyncService, createCalendarSyncService } from './service.js';

declare module '../../module.js' {
  interface Services {
    calendarSync: CalendarSyncService;
  }
}

export const calendarSyncModule = defineModule({
  name: 'calendarSync',
  service: (deps, { calendars, events, automation }) =>
    createCalendarSyncService({ ...deps, calendars, events, automation }),
  routes: [{ prefix: '/api/calendar-sync', plugin: calendarSyncRoutes }],
  privacy: calendarSyncPrivacy,
});
