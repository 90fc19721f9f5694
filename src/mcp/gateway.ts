import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { errorEnvelope, errorResponses, sendError } from '../http/errors.js';
import { security } from '../http/schemas.js';
import { DomainError } from '../lib/errors.js';
import {
  type AgentRequestContext,
  type AgentServerDeps,
  agentAccess,
  callAgentTool,
  permittedTools,
  SERVER_INFO,
  SUPPORTED_PROTOCOL_VERSIONS,
  toolErrorOf,
  toolListing,
} from './server.js';

export interface McpGatewayOptions {
  deps: AgentServerDeps;
  /** The request's authenticated agent (the `/api/mcp` hook has checked Origin and credential). */
  contextFor(request: FastifyRequest): AgentRequestContext;
}

/** Where the gateway's clients should go; relative, as the `Link` header names it. */
const SUCCESSOR = '/api/mcp';
const LINK = `<${SUCCESSOR}>; rel="successor-version"`;
const tags = ['mcp'];
const deprecatedNote =
  'Deprecated: kept for clients of the earlier gateway, not for new integrations. Every answer carries ' +
  '`Deprecation: true` and `Link: </api/mcp>; rel="successor-version"`; use MCP JSON-RPC at ' +
  '`POST /api/mcp` instead. Same agent credentials and Origin rule as /api/mcp.';

const jsonObject = z.record(z.string(), z.unknown());

const toolEntry = z.object({
  name: z.string().describe('The MCP tool name (the action key with "." replaced by "_")'),
  actionKey: z.string(),
  title: z.string(),
  description: z.string(),
  inputSchema: jsonObject.describe('JSON Schema of `input`'),
  outputSchema: jsonObject.describe('JSON Schema of `result`'),
  annotations: z.object({
    title: z.string().optional(),
    readOnlyHint: z.boolean().optional(),
    destructiveHint: z.boolean().optional(),
    idempotentHint: z.boolean().optional(),
    openWorldHint: z.boolean().optional(),
  }),
});

const metadata = z.object({
  server: z.object({
    name: z.string(),
    title: z.string(),
    version: z.string(),
    protocolVersions: z.array(z.string()),
  }),
  agent: z.object({
    id: z.number().int(),
    name: z.string(),
    status: z.enum(['active', 'paused', 'disabled']),
    permissionGroupId: z.string().nullable(),
    permissions: z.array(
      z.object({
        actionKey: z.string(),
        scope: z
          .object({
            calendarIds: z.array(z.number().int()).optional(),
            groupIds: z.array(z.number().int()).optional(),
          })
          .nullable(),
      }),
    ),
  }),
  deprecated: z.literal(true),
  successor: z.string().describe('The MCP endpoint to use instead'),
});

const executeBody = z
  .strictObject({
    action: z.string().min(1).max(200).optional().describe('An action key, e.g. calendar.events.read'),
    tool: z.string().min(1).max(200).optional().describe('Or the MCP tool name, e.g. calendar_events_read'),
    input: jsonObject.optional().describe("The tool's arguments (default {})"),
  })
  .refine((body) => (body.action === undefined) !== (body.tool === undefined), {
    message: 'exactly one of action or tool is required',
    path: ['action'],
  });

/**
 * The deprecated pre-MCP gateway: `/api/mcp/metadata`, `/actions`, `/execute` and
 * `/stream`. Registered inside `mcpRoutes`, so the same hook checks Origin and the
 * agent credential first; `/execute` runs a tool through `callAgentTool`, the very
 * code path of `tools/call`.
 */
export const mcpGatewayRoutes: FastifyPluginAsyncZod<McpGatewayOptions> = async (
  app,
  { deps, contextFor },
) => {
  // onSend runs for every answer of these routes, the refusals of the credential hook included.
  app.addHook('onSend', async (_request, reply, payload) => {
    reply.header('deprecation', 'true');
    reply.header('link', LINK);
    return payload;
  });

  const schema = <T extends object>(summary: string, extra: T) => ({
    tags,
    summary,
    description: deprecatedNote,
    deprecated: true,
    security: security.agent,
    ...extra,
  });

  app.get(
    '/metadata',
    {
      schema: schema('Deprecated: server information and the calling agent', {
        response: { 200: metadata, ...errorResponses(401, 403) },
      }),
    },
    async (request) => {
      const { agent } = contextFor(request);
      return {
        server: {
          name: SERVER_INFO.name,
          title: SERVER_INFO.title,
          version: SERVER_INFO.version,
          protocolVersions: [...SUPPORTED_PROTOCOL_VERSIONS],
        },
        agent: {
          id: agent.id,
          name: agent.name,
          status: agent.status,
          permissionGroupId: agent.permissionGroupId,
          permissions: agent.permissions.map(({ actionKey, scope }) => ({
            actionKey,
            // As the agent record shows it: null when the permission is not narrowed.
            scope:
              scope.calendarIds || scope.groupIds
                ? {
                    ...(scope.calendarIds ? { calendarIds: [...scope.calendarIds] } : {}),
                    ...(scope.groupIds ? { groupIds: [...scope.groupIds] } : {}),
                  }
                : null,
          })),
        },
        deprecated: true as const,
        successor: SUCCESSOR,
      };
    },
  );

  app.get(
    '/actions',
    {
      schema: schema('Deprecated: the tools this agent may call (as tools/list shows them)', {
        response: { 200: z.array(toolEntry), ...errorResponses(401, 403) },
      }),
    },
    async (request) => {
      const access = agentAccess(contextFor(request).agent, deps.catalogue.alwaysAllowed);
      return permittedTools(deps.catalogue, access).map((tool) => {
        const {
          name,
          title = tool.definition.title,
          description = '',
          inputSchema,
          outputSchema,
          annotations,
        } = toolListing(tool);
        return {
          name,
          actionKey: tool.definition.actionKey,
          title,
          description,
          inputSchema,
          outputSchema: outputSchema ?? {},
          annotations: annotations ?? {},
        };
      });
    },
  );

  app.post(
    '/execute',
    {
      schema: schema('Deprecated: run one tool (as tools/call does)', {
        body: executeBody,
        response: {
          200: z.object({ result: jsonObject.describe("The tool's structured result") }),
          ...errorResponses(400, 401, 403, 404, 409),
        },
      }),
    },
    async (request, reply) => {
      const { action, tool, input } = request.body;
      const reference = tool !== undefined ? { name: tool } : { actionKey: action ?? '' };
      const { result } = await callAgentTool(deps, contextFor(request), reference, input ?? {});
      const error = toolErrorOf(result);
      // A refused call answers the tool result's error with the status its code has everywhere.
      if (error) return sendError(request, reply, new DomainError(error.code, error.message));
      return { result: (result.structuredContent ?? {}) as Record<string, unknown> };
    },
  );

  app.get(
    '/stream',
    {
      schema: schema('Deprecated: gone (410); the server sends no unsolicited messages', {
        response: { 410: errorEnvelope },
      }),
    },
    async (request, reply) =>
      reply.code(410).send({
        success: false as const,
        error: {
          code: 'GONE',
          message:
            'The gateway stream is gone: the server sends no unsolicited messages. Send MCP JSON-RPC requests to POST /api/mcp.',
          requestId: request.id,
        },
      }),
  );
};
