import { type AccessScope, type Actor, agentActor } from '../../src/lib/actor.js';
import type { ToolDefinition } from '../../src/mcp/types.js';

/**
 * Calls one tool as the MCP runtime does, minus the transport: validate the
 * input with the tool's schema, run it as the actor, and check the answer
 * against the tool's output schema (so a tool can never answer off-contract).
 */
export async function callTool(
  tools: readonly ToolDefinition[],
  actionKey: string,
  actor: Actor,
  input: Record<string, unknown> = {},
): Promise<Record<string, unknown>> {
  const tool = tools.find((candidate) => candidate.actionKey === actionKey);
  if (!tool) throw new Error(`no tool for ${actionKey}`);
  const result = await tool.run(actor, tool.input.parse(input));
  return tool.output.parse(result) as Record<string, unknown>;
}

/** An agent acting for `userId` under a permission with this scope (services take it as their actor). */
export function scopedAgent(userId: number, scope: AccessScope, agentId = 1): Actor {
  return agentActor(userId, { id: agentId, actions: new Set(), scope });
}
