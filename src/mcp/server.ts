import { type RequestStateCodec, Server, type ServerContext } from '@modelcontextprotocol/server';
import type { FastifyBaseLogger } from 'fastify';
import { agentAccess } from './access.js';
import { serveToolCalls } from './call-elicitation.js';
import { permittedTools, type ToolCatalogue, toolListing } from './catalogue.js';
import type { ApprovalRequestState, LegacyElicit } from './elicitation.js';
import type { RunKeyed } from './idempotent-call.js';
import { type McpResourceProvider, serveResources } from './resources.js';
import type { CallTaskStore } from './task-types.js';
import { serveTasks, TASKS_CAPABILITY, withTaskSupport } from './tasks.js';
import type { AgentDirectory, ResolvedAgent, ToolCallGate } from './types.js';

// The agent server's parts, named here as they always were: agent access (access.ts), the
// tool catalogue (catalogue.ts), the tool call (tool-call.ts, tool-results.ts), tools/call
// with approval elicitation (call-elicitation.ts) and MCP resources (resources.ts).
export { type AgentAccess, agentAccess } from './access.js';
export {
  approvalRequiredAnswer,
  type CompiledTool,
  compileTools,
  permittedTools,
  type ToolCatalogue,
  toolListing,
  toolNameOf,
} from './catalogue.js';
export type { McpResourceProvider } from './resources.js';
export { approvedCallRunner, callAgentTool, type ToolCallOutcome, type ToolReference } from './tool-call.js';
export { toolErrorOf } from './tool-results.js';

/** Protocol revisions served: the 2026-07-28 era and the three 2025-era versions (preferred first). */
export const LEGACY_PROTOCOL_VERSIONS = ['2025-11-25', '2025-06-18', '2025-03-26'];
export const SUPPORTED_PROTOCOL_VERSIONS = ['2026-07-28', ...LEGACY_PROTOCOL_VERSIONS];
export const SERVER_INFO = { name: 'reservation-service', title: 'Reservation Service', version: '0.1.0' };
const INSTRUCTIONS =
  'Calendars, tasks, reservations and the rest of the reservation service, acting for the agent owner ' +
  'within the permissions the owner granted. tools/list shows what this agent may call; call ' +
  'agent_profile to check who you act as before writing.';

export interface AgentServerDeps {
  catalogue: ToolCatalogue;
  agents: AgentDirectory;
  resources?: McpResourceProvider | undefined;
  /** Agents' policies; absent: every permitted call runs. */
  gate?: ToolCallGate | undefined;
  /** Keyed calls of idempotent tools (`idempotencyKey`), through the REST keys' store; absent: keys are ignored. */
  idempotency?: RunKeyed | undefined;
  /** Signs and verifies what a 2026-07-28 call that asked through URL elicitation carries to its retry. */
  approvalState?: RequestStateCodec<ApprovalRequestState> | undefined;
  /** Tasks of task-augmented calls sent for approval (2025-11-25); absent: no tasks capability. */
  tasks?: CallTaskStore | undefined;
}

/** What one HTTP request hands the server factory. */
export interface AgentRequestContext {
  agent: ResolvedAgent;
  log: FastifyBaseLogger;
  /**
   * How a call sent for approval may also ask the person through URL-mode elicitation:
   * `input-required` (a 2026-07-28 request, when it declares the capability), the asker
   * of a 2025-era session whose client declared it, or absent (never).
   */
  elicitation?: 'input-required' | LegacyElicit | undefined;
}

/**
 * An SDK server for the agents its requests come from: each request lists and runs only the
 * tools its agent is permitted. `contextOf` names the request's agent: a fixed one for a server
 * built for one request, or the one each request's `authInfo` carries for a server shared by
 * many (src/mcp/exchange.ts). The SDK owns the protocol (both eras); this file and its parts
 * own what the tools mean.
 */
export function createAgentServer(
  deps: AgentServerDeps,
  contextOf: (ctx: ServerContext) => AgentRequestContext,
): Server {
  const { approvalState } = deps;
  const server = new Server(SERVER_INFO, {
    capabilities: {
      tools: {},
      ...(deps.resources ? { resources: {} } : {}),
      ...(deps.tasks ? { tasks: TASKS_CAPABILITY } : {}),
    },
    instructions: INSTRUCTIONS,
    supportedProtocolVersions: SUPPORTED_PROTOCOL_VERSIONS,
    // A retry's state is checked (signature, expiry, agent) before the handler sees it.
    ...(approvalState ? { requestState: { verify: approvalState.verify } } : {}),
  });

  server.setRequestHandler('tools/list', (_request, ctx) => {
    const context = contextOf(ctx);
    const tools = permittedTools(deps.catalogue, agentAccess(context.agent, deps.catalogue.alwaysAllowed));
    // Tasks are 2025-era vocabulary: a 2026-07-28 request (asked through input_required) has none.
    const tasks = deps.tasks !== undefined && context.elicitation !== 'input-required';
    return { tools: tools.map(tasks ? withTaskSupport : toolListing) };
  });
  serveToolCalls(server, deps, contextOf);
  if (deps.resources) serveResources(server, deps.resources, deps.catalogue.alwaysAllowed, contextOf);
  if (deps.tasks) serveTasks(server, deps.tasks, contextOf);

  return server;
}
