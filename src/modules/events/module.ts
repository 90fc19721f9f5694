import { defineModule } from '../../module.js';
import { eventsPrivacy } from './privacy.js';
import { eventRoutes } from './routes.js';
import { createEventService, type EventService } from './service.js';
import type { EventTables } from './tables.js';
import { eventTools } from './tools.js';

declare module '../../module.js' {
  interface Services {
    events: EventService;
  }
}

declare module '../../db/types.js' {
  interface Database extends EventTables {}
}

export const eventsModule = defineModule({
  name: 'events',
  tables: ['events'],
  service: (deps, services) =>
    createEventService({
      ...deps,
      calendars: services.calendars,
      // Automation listens to event creation (after the write commits), so events never depend on it.
      onEventCreated: async (actor, event) => services.automation.onEventCreated(actor, event),
      // Calendar sync pushes local writes in two-way mapped calendars to the provider (in a job).
      onEventChanged: async (actor, change) => services.calendarSync.onLocalEventChanged(actor, change),
    }),
  routes: [{ prefix: '/api/events', plugin: eventRoutes }],
  tools: eventTools,
  privacy: eventsPrivacy,
  presentation: { order: 5 },
});
