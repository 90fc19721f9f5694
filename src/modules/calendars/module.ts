import { defineModule } from '../../module.js';
import { calendarsPrivacy } from './privacy.js';
import { calendarRoutes } from './routes.js';
import { calendar } from './schemas.js';
import { type CalendarService, createCalendarService } from './service.js';
import { calendarTools } from './tools.js';

declare module '../../module.js' {
  interface Services {
    calendars: CalendarService;
  }
}

export const calendarsModule = defineModule({
  name: 'calendars',
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
