import { ACTION_CATALOGUE } from './catalogue.js';
import { endAgentSessions, sessionColumns } from './mcp/sessions.js';
import {
  createServiceRegistry,
  type InfrastructureDeps,
  registerModuleJobs,
  type Services,
} from './module.js';
import { MODULES } from './modules/index.js';
import { PRIVACY_DECLARATIONS } from './privacy-declarations.js';

export type { ServiceDeps, Services } from './module.js';

/**
 * Every domain service, built once per app from MODULES (each module's module.ts says how
 * from its dependencies); HTTP routes and MCP tools both call these. Besides the app's
 * infrastructure, every module's factory receives what the wiring derives: the action
 * catalogue, every privacy declaration, and the MCP runtime's sessions. Once all are built,
 * every module's jobs are registered (before app.ts starts the queue).
 */
export function createServices(deps: InfrastructureDeps): Services {
  const serviceDeps = {
    ...deps,
    catalogue: ACTION_CATALOGUE,
    privacyDeclarations: PRIVACY_DECLARATIONS,
    mcpSessions: { endForAgent: endAgentSessions, sessionColumns },
  };
  const services = createServiceRegistry(MODULES, serviceDeps);
  registerModuleJobs(MODULES, services, serviceDeps);
  return services;
}
