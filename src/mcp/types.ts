import type { z } from 'zod';
import type { AccessScope, Actor } from '../lib/actor.js';

/** The action every agent may call, whatever its permissions: the profile tool, to check before writing. */
export const PROFILE_ACTION = 'agent.profile';

/** What the MCP layer needs to know of an agent; the agents module answers it. */
export interface ResolvedAgent {
  id: number;
  /** The owner: every tool runs with this user's rights, never more. */
  userId: number;
  name: string;
  status: 'active' | 'paused' | 'disabled';
  permissionGroupId: string | null;
  permissions: ReadonlyArray<{ actionKey: string; scope: AccessScope }>;
}

/** The agents module, as the MCP layer uses it (wired in app.ts; src/mcp knows no module). */
export interface AgentDirectory {
  /** A static agent key (`ag_sk_...`): null when unknown or revoked, or when the agent is disabled. */
  resolveKey(key: string): Promise<ResolvedAgent | null>;
  /** The agent an OAuth access token names (`sub`): null when absent or disabled. */
  resolveAgent(agentId: number): Promise<ResolvedAgent | null>;
  /** Records one tool call for `GET /api/agents/:id/activity`. */
  recordToolCall(call: ToolCallRecord): Promise<void>;
}

export interface ToolCallRecord {
  agentId: number;
  actionKey: string;
  outcome: 'ok' | 'error';
  /** The domain error code of a refused call, null on success. */
  errorCode: string | null;
  durationMs: number;
}

export type ActionRisk = 'read' | 'write' | 'destructive';

/**
 * One MCP tool: an action of the catalogue, implemented by a module's
 * `tools.ts` on top of its own service. The tool name is the action key with
 * `.` replaced by `_`; annotations follow the action's risk.
 */
export interface ToolDefinition<I extends z.ZodObject = z.ZodObject, O extends z.ZodObject = z.ZodObject> {
  actionKey: string;
  title: string;
  description: string;
  input: I;
  output: O;
  /** Runs as the agent's Actor (owner's rights, this action's scope) through the module's service. */
  run(actor: Actor, input: z.infer<I>): Promise<z.infer<O>>;
}

/** Keeps a tool's input and output types tied to its schemas while the catalogue holds them together. */
export function defineTool<I extends z.ZodObject, O extends z.ZodObject>(
  tool: ToolDefinition<I, O>,
): ToolDefinition {
  return tool as unknown as ToolDefinition;
}
