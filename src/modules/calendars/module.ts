import { defineModule } from '../../module.js';
import { calendarsPrivacy } from './privacy.js';
import { calendarRoutes } from './routes.js';
import { calendar } from './schemas.js';
import { type CalendarService, createCalendarService } from './service.js';
import type { CalendarTables } from './tables.js';
import { calendarTools } from './tools.js';

declare module '../../module.js' {
  interface Services {
    calendars: CalendarService;
  }
}

declare module '../../db/types.js' {
  interface Database extends CalendarTables {}
}

export const calendarsModule = defineModule({
  name: 'calendars',
  tables: ['calendars'],
  service: (deps) => createCalendarService(deps),
  routes: [{ prefix: '/api/calendars', plugin: calendarRoutes }],
  tools: calendarTools,
  privacy: calendarsPrivacy,
  resources: [
    {
      path: 'calendars',
      action: 'calendar.list',
      label: 'Calendar',
      schema: calendar,
      list: (calendars, actor) => calendars.list(actor),
      read: (calendars, actor, id) => calendars.get(actor, id),
    },
  ],
  presentation: { order: 4 },
});
