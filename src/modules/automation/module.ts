import { defineModule } from '../../module.js';
import { automationPrivacy } from './privacy.js';
import { automationRoutes } from './routes.js';
import { type AutomationService, createAutomationService } from './service.js';
import type { AutomationTables } from './tables.js';
import { automationTools } from './tools.js';

declare module '../../module.js' {
  interface Services {
    automation: AutomationService;
  }
}

declare module '../../db/types.js' {
  interface Database extends AutomationTables {}
}

export const automationModule = defineModule({
  name: 'automation',
  tables: ['automationRules', 'automationAudit', 'eventTags'],
  service: (deps, services) =>
    createAutomationService({
      ...deps,
      calendars: services.calendars,
      events: services.events,
      tasks: services.tasks,
      // Read when a rule runs: whether the agent that wrote it is active, and what it may do now.
      agents: () => services.agents,
    }),
  routes: [{ prefix: '/api/automation', plugin: automationRoutes }],
  tools: automationTools,
  privacy: automationPrivacy,
  presentation: { order: 10 },
});
