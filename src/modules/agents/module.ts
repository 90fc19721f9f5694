import { sweep } from '../../jobs/declarations.js';
import { defineModule } from '../../module.js';
import { agentUsageWindows } from './migrations/0041_agent_usage_windows.js';
import { agentPermissionsInOrder } from './migrations/0042_agent_permissions_in_order.js';
import { agentUsageFunctions } from './migrations/0079_agent_usage_functions.js';
import { agentPermissionsJson } from './migrations/0081_agent_permissions_json.js';
import { agentsPrivacy } from './privacy.js';
import { agentRoutes } from './routes.js';
import {
  AGENT_ACTIVITY_RETENTION_JOB,
  type AgentService,
  createAgentService,
  RETENTION_EVERY_MINUTES,
} from './service.js';
import type { AgentTables } from './tables.js';
import { agentTools } from './tools.js';

declare module '../../module.js' {
  interface Services {
    agents: AgentService;
  }
}

declare module '../../db/types.js' {
  interface Database extends AgentTables {}
}

export const agentsModule = defineModule({
  name: 'agents',
  tables: [
    'agents',
    'agentPermissions',
    'agentKeys',
    'agentActivity',
    'agentPolicies',
    'agentUsage',
    'agentUsageWindows',
  ],
  service: (deps, services) =>
    createAgentService({
      ...deps,
      // What a permission's scope may name: the owner's calendars and people groups.
      calendars: services.calendars,
      userGroups: services.userGroups,
      users: services.auth,
      sessions: deps.mcpSessions,
      // Read when an agent is disabled: the oauth service is built after this one (it reads agents).
      refreshTokens: {
        revokeForAgent: (executor, agentId, now) => services.oauth.revokeForAgent(executor, agentId, now),
      },
      catalogue: deps.catalogue,
    }),
  routes: [{ prefix: '/api/agents', plugin: agentRoutes }],
  tools: agentTools,
  privacy: agentsPrivacy,
  migrations: {
    '0041_agent_usage_windows': agentUsageWindows,
    '0042_agent_permissions_in_order': agentPermissionsInOrder,
    '0079_agent_usage_functions': agentUsageFunctions,
    '0081_agent_permissions_json': agentPermissionsJson,
  },
  jobs: (agents, { config }) => [
    sweep(AGENT_ACTIVITY_RETENTION_JOB, RETENTION_EVERY_MINUTES, () =>
      agents.purgeActivity(config.agentActivityRetentionDays),
    ),
  ],
  presentation: { order: 1 },
});
