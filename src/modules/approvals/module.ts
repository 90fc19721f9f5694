import { sweep } from '../../jobs/declarations.js';
import { defineModule } from '../../module.js';
import { agentApprovals } from './migrations/0032_agent_approvals.js';
import { approvalFacts } from './migrations/0052_approval_facts.js';
import { approvalTasks } from './migrations/0076_approval_tasks.js';
import { approvalsPrivacy } from './privacy.js';
import type { ApprovalTables } from './repo.js';
import { approvalRoutes } from './routes.js';
import {
  APPROVAL_EXPIRY_JOB,
  type ApprovalsService,
  createApprovalsService,
  EXPIRY_EVERY_MINUTES,
} from './service.js';
import { approvalTools } from './tools.js';

declare module '../../module.js' {
  interface Services {
    approvals: ApprovalsService;
  }
}

declare module '../../db/types.js' {
  interface Database extends ApprovalTables {}
}

export const approvalsModule = defineModule({
  name: 'approvals',
  tables: ['agentApprovals', 'agentApprovalTasks'],
  service: (deps, services) =>
    createApprovalsService({
      db: deps.db,
      frontendUrl: deps.config.frontendUrl,
      // Read when a call is gated, not now: several of these are built after this one.
      deps: () => ({
        agents: services.agents,
        outbox: services.outbox,
        organisations: services.organisations,
        resources: services.resources,
        resourceTypes: services.resourceTypes,
        reservations: services.reservations,
        waitlist: services.waitlist,
      }),
    }),
  routes: [{ prefix: '/api/approvals', plugin: approvalRoutes }],
  tools: approvalTools,
  privacy: approvalsPrivacy,
  migrations: {
    '0032_agent_approvals': agentApprovals,
    '0052_approval_facts': approvalFacts,
    '0076_approval_tasks': approvalTasks,
  },
  jobs: ({ expireDue }) => [sweep(APPROVAL_EXPIRY_JOB, EXPIRY_EVERY_MINUTES, expireDue)],
});
