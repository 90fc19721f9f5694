import { defineModule } from '../../module.js';
import { automationPrivacy } from './privacy.js';
import { automationRoutes } from './routes.js';
import { type AutomationService, createAutomationService } from './service.js';
import { automationTools } from './tools.js';

declare module '../../module.js' {
  interface Services {
    automation: AutomationService;
  }
}

export const automationModule = defineModule({
  name: 'automation',
  service: (deps, { calendars, events, tasks }) =>
    createAutomationService({ ...deps, calendars, events, tasks }),
  routes: [{ prefix: '/api/automation', plugin: automationRoutes }],
  tools: automationTools,
  privacy: automationPrivacy,
});
