import { type AccessScope, type Actor, agentActor } from '../../src/lib/actor.js';
import { compileTools } from '../../src/mcp/server.js';
import type { ToolCaller, ToolDefinition } from '../../src/mcp/types.js';
import { assertMatchesSchema, assertZonedTimes } from './tool-result-check.js';

/** The output schema `tools/list` publishes for a tool (compiled as the server compiles it). */
const publishedOutputSchema = (tool: ToolDefinition) =>
  compileTools([tool], () => 'read').byActionKey.get(tool.actionKey)!.outputSchema;

/** The calling agent as the MCP runtime hands it to a tool, as far as the actor tells it. */
function callerOf(actor: Actor): ToolCaller {
  return {
    agent: {
      id: actor.agent?.id ?? 0,
      userId: actor.userId,
      name: 'Harness agent',
      status: 'active',
      permissionGroupId: null,
      permissions: [...(actor.agent?.actions ?? [])].map((actionKey) => ({
        actionKey,
        scope: actor.agent?.scope ?? {},
      })),
      description: null,
      oauthClientId: null,
      createdAt: new Date(0).toISOString(),
      lastUsedAt: null,
    },
  };
}

/**
 * Calls one tool as the MCP runtime does, minus the transport: validate the
 * input with the tool's schema, run it as the actor, and check the answer
 * against the tool's output schema, and what it sends against the published
 * JSON Schema (so a tool can never answer off-contract).
 */
export async function callTool(
  tools: readonly ToolDefinition[],
  actionKey: string,
  actor: Actor,
  input: Record<string, unknown> = {},
): Promise<Record<string, unknown>> {
  const tool = tools.find((candidate) => candidate.actionKey === actionKey);
  if (!tool) throw new Error(`no tool for ${actionKey}`);
  const result = await tool.run(actor, tool.input.parse(input), callerOf(actor));
  const sent = tool.output.parse(result) as Record<string, unknown>;
  assertMatchesSchema(tool.actionKey, publishedOutputSchema(tool), sent);
  assertZonedTimes(tool.actionKey, sent);
  return sent;
}

/** An agent acting for `userId` under a permission with this scope (services take it as their actor). */
export function scopedAgent(userId: number, scope: AccessScope, agentId = 1): Actor {
  return agentActor(userId, { id: agentId, actions: new Set(), scope });
}
