import { ACTION_CATALOGUE } from './catalogue.js';
import { endAgentSessions } from './mcp/sessions.js';
import { createServiceRegistry, type InfrastructureDeps, type Services } from './module.js';
import { MODULES } from './modules/index.js';
import { PRIVACY_DECLARATIONS } from './privacy-declarations.js';

export type { ServiceDeps, Services } from './module.js';

/**
 * Every domain service, built once per app from MODULES (each module's module.ts says how
 * from its dependencies); HTTP routes and MCP tools both call these. Besides the app's
 * infrastructure, every module's factory receives what the wiring derives: the action
 * catalogue, every privacy declaration, and the MCP runtime's sessions.
 */
export function createServices(deps: InfrastructureDeps): Services {
  return createServiceRegistry(MODULES, {
    ...deps,
    catalogue: ACTION_CATALOGUE,
    privacyDeclarations: PRIVACY_DECLARATIONS,
    mcpSessions: { endForAgent: endAgentSessions },
  });
}
