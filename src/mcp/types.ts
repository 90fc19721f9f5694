import type { RawBuilder } from 'kysely';
import type { z } from 'zod';
import type { AccessScope, Actor } from '../lib/actor.js';
import type { ErrorCode } from '../lib/errors.js';

/** Where the MCP runtime listens (app.ts mounts it here): agents connect to `<PUBLIC_URL>` + this. */
export const MCP_PATH = '/api/mcp';

/**
 * The action every agent may call, whatever its permissions: the profile tool, to check
 * before writing. Other tools are always allowed by their declaration (CatalogueEntry).
 */
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
  /** The rest of its record, as the credential read loaded it: what its profile tool answers. */
  description: string | null;
  oauthClientId: string | null;
  createdAt: string;
  lastUsedAt: string | null;
  /**
   * The 2025-era session the credential read was asked to check in its own statement: null when
   * it is not open for this agent; undefined when not asked (src/mcp/sessions.ts reads it then).
   */
  session?: ProbedSession | null;
}

/** A 2025-era session for the credential read to check (src/mcp/sessions.ts `sessionColumns`). */
export interface SessionProbe {
  id: string;
  /** The request's time, and the idle cutoff: a session last used before it is over. */
  at: string;
  cutoff: string;
}

/** The two columns a credential read selects to probe a session, and their parameters in SQL order. */
export interface SessionColumns {
  lastUsedAt: RawBuilder<string | null>;
  urlElicitation: RawBuilder<unknown>;
  parameters(probe: SessionProbe): unknown[];
}

/** The probed session, open for the agent. */
export interface ProbedSession extends SessionProbe {
  lastUsedAt: string;
  urlElicitation: boolean;
}

/**
 * Who a tool call is for, beside the Actor it runs as: the agent as this request's credential
 * read loaded it (read on every request, never kept across them), so a tool about the calling
 * agent itself needs no read of its own.
 */
export interface ToolCaller {
  agent: ResolvedAgent;
}

/** The agents module, as the MCP layer uses it (wired in app.ts; src/mcp knows no module). */
export interface AgentDirectory {
  /**
   * A static agent key (`ag_sk_...`): null when unknown or revoked, or when the agent is disabled.
   * With `session`, the same statement checks that session (`ResolvedAgent.session`).
   */
  resolveKey(key: string, session?: SessionProbe): Promise<ResolvedAgent | null>;
  /** The agent an OAuth access token names (`sub`): null when absent or disabled; `session` as above. */
  resolveAgent(agentId: number, session?: SessionProbe): Promise<ResolvedAgent | null>;
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
  /** The validated arguments (the directory redacts them before keeping them); undefined when invalid. */
  arguments?: unknown;
  /** Ids the call named or answered. */
  targetIds?: readonly number[];
  /** The approval the call asked for, or ran under. */
  approvalId?: number | null;
}

/** One tool call as an agent's policy sees it before it runs (src/mcp/server.ts `callAgentTool`). */
export interface GatedCall {
  agent: ResolvedAgent;
  actionKey: string;
  title: string;
  risk: ActionRisk;
  /** The validated arguments. */
  input: Record<string, unknown>;
  /** The Actor the call runs as (the permission's scope). */
  actor: Actor;
  /** Runs the same call with `dryRun: true` (tools that take one); undefined otherwise. */
  dryRun: (() => Promise<unknown>) | undefined;
  /** The approval whose call this is (an approved call being run); null for an agent's own call. */
  approvalId: number | null;
}

/** What `tools/call` answers instead of running a call the policy sends for approval. */
export interface PendingApproval {
  id: number;
  status: 'pending';
  expiresAt: string;
  approveUrl: string;
  /** The call in words for its owner ("Book Room A, ..."): what an elicitation tells the person; not in the result. */
  summary?: string;
}

/** The policy's verdict on one call. `settle` runs after a call that ran (counts to release when it failed). */
export type GateDecision =
  | { kind: 'run'; settle?(outcome: { ok: boolean; output: unknown }): Promise<void> }
  | { kind: 'approval'; approval: PendingApproval }
  | { kind: 'refuse'; code: ErrorCode; message: string };

/**
 * An approved call, run once as the agent is now (its status, permissions and scope at
 * that moment), in the organisation it was asked in (null: none).
 */
export type ApprovedCallRunner = (call: {
  agentId: number;
  actionKey: string;
  arguments: unknown;
  approvalId: number;
  organisationId: number | null;
}) => Promise<{ ok: true; output: unknown } | { ok: false; code: ErrorCode; message: string }>;

/**
 * Agents' policies (approval, amount threshold, daily limits) as the MCP runtime applies
 * them on every tool call; a module provides it (the wiring passes it in).
 */
export interface ToolCallGate {
  admit(call: GatedCall): Promise<GateDecision>;
  /** The runtime hands over how to run an approved call; called once when the routes register. */
  bindRunner(runner: ApprovedCallRunner): void;
}

export type ActionRisk = 'read' | 'write' | 'destructive';

/**
 * What an owner may narrow an action with: `calendar` (scope.calendarIds) and
 * `userGroup` (scope.groupIds), as src/lib/actor.ts applies them. Reads of calendars
 * and events take both, since a calendar shared through a group counts only through
 * groups in scope; writes of calendars and events need ownership, so only the calendar
 * kind narrows them.
 */
export type ScopeKind = 'calendar' | 'userGroup';

/** A tool as the owner's permission screens show it (`GET /api/agents/catalog`). */
export interface CatalogueEntry {
  /** Owner-facing: what granting the action lets an agent do (the tool's own description speaks to the agent). */
  description: string;
  /** Also the tool's annotations: read-only, destructive, idempotent. */
  risk: ActionRisk;
  scopeKinds: readonly ScopeKind[];
  /**
   * Every agent has it, whatever its permissions: granting it changes nothing. Only for
   * tools that reach nothing of another's (the profile, its own approvals, the clock).
   */
  alwaysAllowed?: true;
}

/** One action of the catalogue, derived from its tool's declaration. */
export interface CatalogueAction<K extends string = string> {
  key: K;
  title: string;
  description: string;
  risk: ActionRisk;
  scopeKinds: readonly ScopeKind[];
  alwaysAllowed: boolean;
}

/** What a tool answers: one object, or one of several objects (e.g. a record, or a dry run's verdict). */
export type ToolOutput = z.ZodObject | z.ZodUnion<readonly z.ZodObject[]>;

/**
 * One MCP tool, declared once in a module's `tools.ts`: its action key, the title both
 * the agent and the owner read, the agent-facing description, the owner-facing catalogue
 * entry, its schemas and its handler on the module's service. The tool name is the
 * action key with `.` replaced by `_`; annotations follow the catalogue risk.
 */
export interface ToolDeclaration<
  S = unknown,
  K extends string = string,
  I extends z.ZodObject = z.ZodObject,
  O extends ToolOutput = ToolOutput,
> {
  actionKey: K;
  title: string;
  description: string;
  catalogue: CatalogueEntry;
  input: I;
  output: O;
  /**
   * Retry-safe: the tool also takes `idempotencyKey` (src/mcp/idempotent-call.ts), with the REST
   * `Idempotency-Key`'s semantics; `run` never sees the key.
   */
  idempotent?: true;
  /** The MCP App (a `ui://` resource, src/mcp/apps.ts) a host shows this tool's result in. */
  app?: string;
  /** Runs as the agent's Actor (owner's rights, this action's scope) on the module's service. */
  run(service: S, actor: Actor, input: z.infer<I>, caller: ToolCaller): Promise<z.infer<O>>;
}

/** Keeps a tool's input and output types tied to its schemas, and its action key a literal type. */
export function defineTool<S, const K extends string, I extends z.ZodObject, O extends ToolOutput>(
  tool: ToolDeclaration<S, K, I, O>,
): ToolDeclaration<S, K> {
  return tool as unknown as ToolDeclaration<S, K>;
}

/** A declared tool as the MCP runtime runs it: bound to its module's service. */
export interface ToolDefinition<I extends z.ZodObject = z.ZodObject, O extends ToolOutput = ToolOutput> {
  actionKey: string;
  title: string;
  description: string;
  /** Every agent may call it (its catalogue entry's `alwaysAllowed`). */
  alwaysAllowed?: true;
  input: I;
  output: O;
  /** Takes `idempotencyKey` too (its declaration's `idempotent`); the runtime handles the key. */
  idempotent?: true;
  /** Its declaration's `app`: the `ui://` resource that shows its result. */
  app?: string;
  /** Runs as the agent's Actor (owner's rights, this action's scope) through the module's service. */
  run(actor: Actor, input: z.infer<I>, caller: ToolCaller): Promise<z.infer<O>>;
}

/** Binds a module's declared tools to its service (the wiring does, once per app). */
export function bindTools<S>(tools: ReadonlyArray<ToolDeclaration<S>>, service: S): ToolDefinition[] {
  return tools.map(({ actionKey, title, description, catalogue, input, output, idempotent, app, run }) => ({
    actionKey,
    title,
    description,
    ...(catalogue.alwaysAllowed ? { alwaysAllowed: true as const } : {}),
    ...(idempotent ? { idempotent } : {}),
    ...(app ? { app } : {}),
    input,
    output,
    run: (actor, args, caller) => run(service, actor, args, caller),
  }));
}
