import {
  ProtocolError,
  ProtocolErrorCode,
  type ReadResourceResult,
  type Resource,
  ResourceNotFoundError,
  type Server,
  type ServerContext,
} from '@modelcontextprotocol/server';
import { asDomainError } from '../lib/errors.js';
import { type AgentAccess, agentAccess } from './access.js';
import type { AgentRequestContext } from './server.js';

/** What an agent may read as MCP resources; optional. */
export interface McpResourceProvider {
  /** The resources the agent may read. */
  list(access: AgentAccess): Promise<Resource[]>;
  /** The contents of one resource; null (or a NOT_FOUND/FORBIDDEN DomainError) when absent or not allowed. */
  read(access: AgentAccess, uri: string): Promise<ReadResourceResult['contents'] | null>;
}

/** A refusal reads as "not found"; anything unexpected is logged and answered without internals. */
async function guarded<T>(
  { agent, log }: AgentRequestContext,
  work: () => Promise<T>,
  uri?: string,
): Promise<T> {
  try {
    return await work();
  } catch (error) {
    const known = asDomainError(error);
    if (known) {
      if (uri !== undefined && (known.code === 'NOT_FOUND' || known.code === 'FORBIDDEN')) {
        throw new ResourceNotFoundError(uri);
      }
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, known.message, { code: known.code });
    }
    log.error({ err: error, agentId: agent.id, uri }, 'MCP resource request failed');
    throw new ProtocolError(ProtocolErrorCode.InternalError, 'Internal error');
  }
}

/** Answers `resources/list`, `resources/templates/list` and `resources/read` from `resources`, as each request's agent. */
export function serveResources(
  server: Server,
  resources: McpResourceProvider,
  alwaysAllowed: ReadonlySet<string>,
  contextOf: (ctx: ServerContext) => AgentRequestContext,
): void {
  server.setRequestHandler('resources/list', async (_request, ctx) => {
    const context = contextOf(ctx);
    return {
      resources: await guarded(context, () => resources.list(agentAccess(context.agent, alwaysAllowed))),
    };
  });
  server.setRequestHandler('resources/templates/list', () => ({ resourceTemplates: [] }));
  server.setRequestHandler('resources/read', async (request, ctx) => {
    const { uri } = request.params;
    const context = contextOf(ctx);
    const contents = await guarded(
      context,
      () => resources.read(agentAccess(context.agent, alwaysAllowed), uri),
      uri,
    );
    if (!contents) throw new ResourceNotFoundError(uri);
    return { contents };
  });
}
