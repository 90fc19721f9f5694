import { sweep } from '../../jobs/declarations.js';
import { defineModule } from '../../module.js';
import { agentUsageWindows } from './migrations/0041_agent_usage_windows.js';
import { agentPermissionsInOrder } from './migrations/0042_agent_permissions_in_order.js';
import { agentsPrivacy } from './privacy.js';
import { agentRoutes } from './routes.js';
import {
  AGENT_ACTIVITY_RETENTION_JOB,
  type AgentService,
  createAgentService,
  RETENTION_EVERY_MINUTES,
} from './service.js';
import { agentTools } from './tools.js';

declare module '../../module.js' {
  interface Services {
    agents: AgentService;
  }
}

export const agentsModule = defineModule({
  name: 'agents',
  service: (deps, { calendars, userGroups }) =>
    createAgentService({
      ...deps,
      // What a permission's scope may name: the owner's calendars and people groups.
      calendars,
      userGroups,
      sessions: deps.mcpSessions,
      catalogue: deps.catalogue,
    }),
  routes: [{ prefix: '/api/agents', plugin: agentRoutes }],
  tools: agentTools,
  privacy: agentsPrivacy,
  migrations: {
    '0041_agent_usage_windows': agentUsageWindows,
    '0042_agent_permissions_in_order': agentPermissionsInOrder,
  },
  jobs: (agents, { config }) => [
    sweep(AGENT_ACTIVITY_RETENTION_JOB, RETENTION_EVERY_MINUTES, () =>
      agents.purgeActivity(config.agentActivityRetentionDays),
    ),
  ],
  presentation: { order: 1 },
});
