import { performance } from 'node:perf_hooks';
import {
  type CallToolResult,
  inputRequired,
  inputResponse,
  ProtocolError,
  ProtocolErrorCode,
  type ReadResourceResult,
  type RequestStateCodec,
  type Resource,
  ResourceNotFoundError,
  Server,
  type ServerContext,
  type Tool,
} from '@modelcontextprotocol/server';
import type { FastifyBaseLogger } from 'fastify';
import { z } from 'zod';
import { type AccessScope, type Actor, agentActor } from '../lib/actor.js';
import { controlCharacterIssues, replaceControlCharacters } from '../lib/control-characters.js';
import {
  type Alternative,
  asDomainError,
  ERROR_CODES,
  type ErrorCode,
  InputError,
  type OccurrenceConflict,
} from '../lib/errors.js';
import {
  type ApprovalRequestState,
  approvalElicitation,
  argumentsDigest,
  declaresUrlElicitation,
  type ElicitationAnswer,
  type LegacyElicit,
  requestCapabilities,
} from './elicitation.js';
import {
  type ActionRisk,
  type AgentDirectory,
  ALWAYS_ALLOWED_ACTIONS,
  type ApprovedCallRunner,
  type GateDecision,
  type PendingApproval,
  PROFILE_ACTION,
  type ResolvedAgent,
  type ToolCallGate,
  type ToolDefinition,
} from './types.js';

/** Protocol revisions served: the 2026-07-28 era and the three 2025-era versions (preferred first). */
export const LEGACY_PROTOCOL_VERSIONS = ['2025-11-25', '2025-06-18', '2025-03-26'];
export const SUPPORTED_PROTOCOL_VERSIONS = ['2026-07-28', ...LEGACY_PROTOCOL_VERSIONS];
export const SERVER_INFO = { name: 'reservation-service', title: 'Reservation Service', version: '0.1.0' };
const INSTRUCTIONS =
  'Calendars, tasks, reservations and the rest of the reservation service, acting for the agent owner ' +
  'within the permissions the owner granted. tools/list shows what this agent may call; call ' +
  'agent_profile to check who you act as before writing.';
/** The key of the approval's URL elicitation in a 2026-07-28 input-required result. */
const APPROVAL_INPUT = 'approval';
/** Longest unknown tool name echoed back or kept in the activity log (action keys are at most 100). */
const MAX_LOGGED_NAME = 100;

/** MCP tool name of an action key: `calendar.events.read` is `calendar_events_read`. */
export const toolNameOf = (actionKey: string) => actionKey.replaceAll('.', '_');

/** What an agent may read as MCP resources; optional. */
export interface McpResourceProvider {
  /** The resources the agent may read. */
  list(access: AgentAccess): Promise<Resource[]>;
  /** The contents of one resource; null (or a NOT_FOUND/FORBIDDEN DomainError) when absent or not allowed. */
  read(access: AgentAccess, uri: string): Promise<ReadResourceResult['contents'] | null>;
}

/** An agent as resource providers see it: each action carries its own scope. */
export interface AgentAccess {
  agent: ResolvedAgent;
  /** The Actor for one action (its permission's scope), or null when the agent may not perform it. */
  actorFor(actionKey: string): Actor | null;
}

/** Per-tool data computed once: the wire name and JSON Schemas. */
export interface CompiledTool {
  name: string;
  definition: ToolDefinition;
  risk: ActionRisk;
  /** Takes a `dryRun` argument: the policy prices a call by dry-running it. */
  takesDryRun: boolean;
  inputSchema: Tool['inputSchema'];
  outputSchema: NonNullable<Tool['outputSchema']>;
  annotations: NonNullable<Tool['annotations']>;
}

export interface ToolCatalogue {
  byActionKey: ReadonlyMap<string, CompiledTool>;
  byName: ReadonlyMap<string, CompiledTool>;
}

function annotationsFor(risk: ActionRisk, title: string): CompiledTool['annotations'] {
  return {
    title,
    readOnlyHint: risk === 'read',
    destructiveHint: risk === 'destructive',
    idempotentHint: risk === 'read',
  };
}

/**
 * An output schema as MCP wants it, rooted at `type: object`: a union of objects (a tool
 * answering one of several shapes) is an object too, so its root says so.
 */
function objectRooted(schema: Record<string, unknown>): CompiledTool['outputSchema'] {
  const options = (schema.anyOf ?? schema.oneOf) as Array<{ type?: unknown }> | undefined;
  if (schema.type === undefined && options?.every((option) => option.type === 'object'))
    return { type: 'object', ...schema } as CompiledTool['outputSchema'];
  return schema as CompiledTool['outputSchema'];
}

/** What a call the policy sends for approval answers (DECISIONS.md "Agents acting safely"). */
export const approvalRequiredAnswer = z.object({
  approvalRequired: z.literal(true),
  approval: z.object({
    id: z.number().int(),
    status: z.literal('pending'),
    expiresAt: z.string(),
    approveUrl: z.string().describe('Where the owner approves or denies the call'),
  }),
});
const APPROVAL_REQUIRED_JSON = (() => {
  const { $schema: _, ...schema } = z.toJSONSchema(approvalRequiredAnswer, { io: 'output' });
  return schema;
})();

/**
 * A writing tool's output schema widened by the approval answer: under a policy any
 * write may answer it instead of running, and clients check results against the schema.
 * Root keywords (`$schema`, `$defs`) stay at the root, where references resolve.
 */
function withApprovalAnswer(schema: Record<string, unknown>): Record<string, unknown> {
  const { $schema, $defs, ...rest } = schema;
  const options = (rest.anyOf ?? rest.oneOf ?? [rest]) as unknown[];
  return {
    ...($schema === undefined ? {} : { $schema }),
    ...($defs === undefined ? {} : { $defs }),
    type: 'object',
    anyOf: [...options, APPROVAL_REQUIRED_JSON],
  };
}

/** Converts every tool's schemas once, at start: a tool whose schema cannot be expressed fails the start. */
export function compileTools(
  tools: readonly ToolDefinition[],
  riskOf: (actionKey: string) => ActionRisk,
  options: { approvals?: boolean } = {},
): ToolCatalogue {
  const byActionKey = new Map<string, CompiledTool>();
  const byName = new Map<string, CompiledTool>();
  for (const definition of tools) {
    const name = toolNameOf(definition.actionKey);
    if (byName.has(name)) throw new Error(`Two MCP tools are named ${name}`);
    const risk = riskOf(definition.actionKey);
    const output = z.toJSONSchema(definition.output, { io: 'output' }) as Record<string, unknown>;
    const compiled: CompiledTool = {
      name,
      definition,
      risk,
      takesDryRun: 'dryRun' in definition.input.shape,
      inputSchema: z.toJSONSchema(definition.input, { io: 'input' }) as Tool['inputSchema'],
      outputSchema: objectRooted(options.approvals && risk !== 'read' ? withApprovalAnswer(output) : output),
      annotations: annotationsFor(risk, definition.title),
    };
    byActionKey.set(definition.actionKey, compiled);
    byName.set(name, compiled);
  }
  return { byActionKey, byName };
}

/** The scope an agent acts under for one action; null when the action is not permitted. */
function scopeFor(agent: ResolvedAgent, actionKey: string): AccessScope | null {
  const permission = agent.permissions.find((p) => p.actionKey === actionKey);
  if (permission) return permission.scope;
  // The profile (and the rest always allowed) touch no calendar or group, so their scope allows none.
  return ALWAYS_ALLOWED_ACTIONS.has(actionKey) ? { calendarIds: [], groupIds: [] } : null;
}

export function agentAccess(agent: ResolvedAgent): AgentAccess {
  const actions = new Set([...agent.permissions.map((p) => p.actionKey), PROFILE_ACTION]);
  return {
    agent,
    actorFor(actionKey) {
      const scope = scopeFor(agent, actionKey);
      return scope ? agentActor(agent.userId, { id: agent.id, actions, scope }) : null;
    },
  };
}

export interface AgentServerDeps {
  catalogue: ToolCatalogue;
  agents: AgentDirectory;
  resources?: McpResourceProvider | undefined;
  /** Agents' policies; absent: every permitted call runs. */
  gate?: ToolCallGate | undefined;
  /** Signs and verifies what a 2026-07-28 call that asked through URL elicitation carries to its retry. */
  approvalState?: RequestStateCodec<ApprovalRequestState> | undefined;
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

const errorResult = (
  code: ErrorCode,
  message: string,
  alternatives?: Alternative[],
  conflicts?: OccurrenceConflict[],
): CallToolResult => {
  const structuredContent = {
    error: { code, message, ...(alternatives ? { alternatives } : {}), ...(conflicts ? { conflicts } : {}) },
  };
  return {
    isError: true,
    structuredContent,
    content: [{ type: 'text', text: JSON.stringify(structuredContent) }],
  };
};

/** How a message names the arguments as a whole. */
const ARGUMENTS = '(arguments)';

const issuesText = (issues: ReadonlyArray<{ path: PropertyKey[]; message: string }>) =>
  issues
    .map((issue) => `${issue.path.length ? issue.path.join('.') : ARGUMENTS}: ${issue.message}`)
    .join('; ');

/** A tool as `tools/list` (and the deprecated gateway's `/actions`) shows it. */
export const toolListing = (tool: CompiledTool): Tool => ({
  name: tool.name,
  title: tool.definition.title,
  description: tool.definition.description,
  inputSchema: tool.inputSchema,
  outputSchema: tool.outputSchema,
  annotations: tool.annotations,
});

/** The tools `access` may call, in catalogue order: the one answer of "what may this agent call". */
export function permittedTools(catalogue: ToolCatalogue, access: AgentAccess): CompiledTool[] {
  return [...catalogue.byName.values()].filter((tool) => access.actorFor(tool.definition.actionKey) !== null);
}

/** Which tool a call names: a tool name (`tools/call`, gateway `tool`) or an action key (gateway `action`). */
export type ToolReference = { name: string } | { actionKey: string };

export interface ToolCallOutcome {
  /** What `tools/call` answers: `isError` with `{error: {code, message}}` when refused. */
  result: CallToolResult;
  /** The tool that ran; undefined when the name is unknown or not permitted. */
  tool: CompiledTool | undefined;
  /** The approval the call was sent for instead of running; undefined otherwise. */
  approval?: PendingApproval | undefined;
}

/** The `{code, message}` of a refused call; null when the call succeeded. */
export function toolErrorOf(result: CallToolResult): { code: ErrorCode; message: string } | null {
  if (!result.isError) return null;
  const error = (result.structuredContent as { error?: { code?: unknown; message?: unknown } } | undefined)
    ?.error;
  const code = ERROR_CODES.find((known) => known === error?.code) ?? 'INTERNAL';
  return { code, message: typeof error?.message === 'string' ? error.message : 'Internal error' };
}

/** Ids a call names (`reservationId`, `eventId`, ...) or answers (`id`): what the activity shows it touched. */
function targetIdsOf(input: unknown, output: unknown): number[] {
  const ids = new Set<number>();
  const collect = (value: unknown, key: string) => {
    if ((key === 'id' || key.endsWith('Id')) && Number.isInteger(value) && (value as number) > 0)
      ids.add(value as number);
  };
  if (input && typeof input === 'object')
    for (const [key, value] of Object.entries(input)) if (key !== 'id') collect(value, key);
  if (output && typeof output === 'object' && 'id' in output) collect((output as { id: unknown }).id, 'id');
  return [...ids];
}

/** What a call the policy sends for approval answers: a result, not an error. */
const approvalResult = ({
  id,
  expiresAt,
  approveUrl,
}: Pick<PendingApproval, 'id' | 'expiresAt' | 'approveUrl'>): CallToolResult => {
  const approval = { id, status: 'pending' as const, expiresAt, approveUrl };
  const structuredContent = { approvalRequired: true as const, approval };
  return {
    structuredContent,
    content: [
      {
        type: 'text',
        text: `${JSON.stringify(structuredContent)}\nThis call needs your person's approval: nothing was done yet. They decide at ${approval.approveUrl}; read the outcome with approvals_get {"approvalId": ${approval.id}}.`,
      },
    ],
  };
};

/**
 * THE tool call, for `tools/call` of both protocol eras and the deprecated gateway's
 * `/execute`: checks the permission (a tool the agent may not call reads exactly like
 * an unknown one), validates the arguments, applies the agent's policy (approval,
 * amount threshold, daily limits), runs the tool as the agent's Actor under that
 * permission's scope, checks the output, maps every error to a refused result
 * (nothing internal leaks), and records the call for the agent's activity.
 * `approved`: an approved call being run (the approval step is behind it, limits are not),
 * bound to the organisation it was asked in.
 */
export async function callAgentTool(
  deps: Pick<AgentServerDeps, 'catalogue' | 'agents' | 'gate'>,
  { agent, log }: AgentRequestContext,
  reference: ToolReference,
  args: unknown,
  approved?: { approvalId: number; organisationId: number | null },
): Promise<ToolCallOutcome> {
  const approvalId = approved?.approvalId ?? null;
  const started = performance.now();
  // Recorded as the call's action key: PostgreSQL refuses a NUL in it, SQLite would store it.
  const requested = replaceControlCharacters(
    ('name' in reference ? reference.name : reference.actionKey).slice(0, MAX_LOGGED_NAME),
  );
  const tool =
    'name' in reference
      ? deps.catalogue.byName.get(reference.name)
      : deps.catalogue.byActionKey.get(reference.actionKey);
  const permitted = tool ? agentAccess(agent).actorFor(tool.definition.actionKey) : null;
  const actor = permitted && approved ? { ...permitted, organisationId: approved.organisationId } : permitted;
  let validInput: Record<string, unknown> | undefined;
  let output: unknown;
  let askedApproval: PendingApproval | undefined;
  const result = await run();
  const error = toolErrorOf(result);
  const actionKey = tool?.definition.actionKey ?? requested;
  try {
    await deps.agents.recordToolCall({
      agentId: agent.id,
      actionKey,
      outcome: error ? 'error' : 'ok',
      errorCode: error?.code ?? null,
      durationMs: Math.round(performance.now() - started),
      arguments: validInput,
      targetIds: targetIdsOf(validInput, error ? undefined : output),
      approvalId: approvalId ?? askedApproval?.id ?? null,
    });
  } catch (recordError) {
    log.error({ err: recordError, agentId: agent.id, actionKey }, 'recording an MCP tool call failed');
  }
  return { result, tool: actor ? tool : undefined, approval: askedApproval };

  async function run(): Promise<CallToolResult> {
    // Not permitted reads exactly like not existing.
    if (!tool || !actor) return errorResult('NOT_FOUND', `Tool ${requested} not found`);
    // The one rule for text, as every HTTP route applies it (http/validation.ts).
    const controls = controlCharacterIssues(args);
    if (controls.length > 0) {
      return errorResult(
        'VALIDATION_FAILED',
        `Invalid arguments for tool ${tool.name}: ${issuesText(controls)}`,
      );
    }
    const input = await tool.definition.input.safeParseAsync(args ?? {});
    if (!input.success) {
      return errorResult(
        'VALIDATION_FAILED',
        `Invalid arguments for tool ${tool.name}: ${issuesText(input.error.issues)}`,
      );
    }
    validInput = input.data as Record<string, unknown>;
    let settle: Extract<GateDecision, { kind: 'run' }>['settle'];
    try {
      // Reads never wait for anyone: only what changes something goes through the policy.
      if (deps.gate && tool.risk !== 'read') {
        const parsed = input.data as Record<string, unknown>;
        const decision = await deps.gate.admit({
          agent,
          actionKey: tool.definition.actionKey,
          title: tool.definition.title,
          risk: tool.risk,
          input: parsed,
          actor,
          dryRun: tool.takesDryRun
            ? () => tool.definition.run(actor, { ...parsed, dryRun: true })
            : undefined,
          approvalId,
        });
        if (decision.kind === 'refuse') return errorResult(decision.code, decision.message);
        if (decision.kind === 'approval') {
          askedApproval = decision.approval;
          return approvalResult(decision.approval);
        }
        settle = decision.settle;
      }
      output = await tool.definition.run(actor, input.data);
    } catch (thrown) {
      await settleQuietly(false);
      const known = asDomainError(thrown);
      if (known) {
        // Refused fields are named as the tool's arguments: its input is the service's input.
        const shown =
          known instanceof InputError
            ? known.placed(`arguments for tool ${tool.name}`, (path) => path || ARGUMENTS)
            : known;
        return errorResult(shown.code, shown.message, shown.alternatives, shown.conflicts);
      }
      log.error({ err: thrown, agentId: agent.id, tool: tool.name }, 'MCP tool failed');
      return errorResult('INTERNAL', 'Internal error');
    }
    // A dry run that would fail counts nothing either.
    const refusedDryRun =
      output !== null &&
      typeof output === 'object' &&
      (output as { wouldSucceed?: unknown }).wouldSucceed === false;
    await settleQuietly(!refusedDryRun);
    const checked = await tool.definition.output.safeParseAsync(output);
    if (!checked.success) {
      log.error(
        { agentId: agent.id, tool: tool.name, issues: issuesText(checked.error.issues) },
        'MCP tool output does not match its schema',
      );
      return errorResult('INTERNAL', 'Internal error');
    }
    return {
      structuredContent: checked.data,
      content: [{ type: 'text', text: JSON.stringify(checked.data) }],
    };

    /** Tells the policy how the call went (a failed call gives its counted units back). */
    async function settleQuietly(ok: boolean) {
      if (!settle) return;
      const done = settle;
      settle = undefined;
      try {
        await done({ ok, output });
      } catch (settleError) {
        log.error(
          { err: settleError, agentId: agent.id, tool: tool?.name },
          'settling a tool call with its policy failed',
        );
      }
    }
  }
}

/**
 * How an approved call runs (the gate's runner): as the agent is now, read again, so a
 * paused or disabled agent's approval fails, and a permission taken away since is gone.
 */
export function approvedCallRunner(
  deps: Pick<AgentServerDeps, 'catalogue' | 'agents' | 'gate'>,
  log: FastifyBaseLogger,
): ApprovedCallRunner {
  return async ({ agentId, actionKey, arguments: args, approvalId, organisationId }) => {
    const agent = await deps.agents.resolveAgent(agentId);
    if (!agent || agent.status === 'disabled')
      return {
        ok: false,
        code: 'FORBIDDEN',
        message: 'The agent is disabled; its approved call did not run',
      };
    if (agent.status !== 'active')
      return {
        ok: false,
        code: 'AGENT_PAUSED',
        message: 'The agent is paused by its owner; its approved call did not run',
      };
    const { result } = await callAgentTool(deps, { agent, log }, { actionKey }, args, {
      approvalId,
      organisationId,
    });
    const error = toolErrorOf(result);
    if (error) return { ok: false, ...error };
    return { ok: true, output: result.structuredContent };
  };
}

/**
 * An SDK server for the agents its requests come from: each request lists and runs only the
 * tools its agent is permitted. `contextOf` names the request's agent: a fixed one for a server
 * built for one request, or the one each request's `authInfo` carries for a server shared by
 * many (src/mcp/exchange.ts). The SDK owns the protocol (both eras); this file owns what the
 * tools mean.
 */
export function createAgentServer(
  deps: AgentServerDeps,
  contextOf: (ctx: ServerContext) => AgentRequestContext,
): Server {
  const { approvalState } = deps;
  const server = new Server(SERVER_INFO, {
    capabilities: { tools: {}, ...(deps.resources ? { resources: {} } : {}) },
    instructions: INSTRUCTIONS,
    supportedProtocolVersions: SUPPORTED_PROTOCOL_VERSIONS,
    // A retry's state is checked (signature, expiry, agent) before the handler sees it.
    ...(approvalState ? { requestState: { verify: approvalState.verify } } : {}),
  });

  server.setRequestHandler('tools/list', (_request, ctx) => ({
    tools: permittedTools(deps.catalogue, agentAccess(contextOf(ctx).agent)).map(toolListing),
  }));

  const project = (result: CallToolResult, tool: CompiledTool | undefined) =>
    server.projectCallToolResult(result, result.isError ? undefined : tool?.outputSchema);

  /** Declining to open the link is not a denial: the answer is only noted, the approval stays pending. */
  const noteAnswer = ({ agent, log }: AgentRequestContext, approvalId: number, answer: ElicitationAnswer) =>
    log.info({ agentId: agent.id, approvalId, elicitation: answer }, 'approval elicitation answered');

  /** The approval a 2026-07-28 retry's verified state names, when the state is this call's. */
  function retriedApproval(context: AgentRequestContext, ctx: ServerContext, name: string, args: unknown) {
    const { agent } = context;
    const state = ctx.mcpReq.requestState<ApprovalRequestState>();
    if (!state || typeof state !== 'object' || state.v !== 1) return undefined;
    if (state.agentId !== agent.id || state.tool !== name || state.args !== argumentsDigest(args))
      return undefined;
    const answer = inputResponse(ctx.mcpReq.inputResponses, APPROVAL_INPUT);
    noteAnswer(context, state.approval.id, answer.kind === 'elicit' ? answer.action : 'error');
    return state.approval;
  }

  server.setRequestHandler('tools/call', async (request, ctx) => {
    const { name, arguments: args } = request.params;
    const context = contextOf(ctx);
    const { agent, elicitation } = context;
    if (elicitation === 'input-required') {
      // The retry of a call that asked: it answers the approval it created, and creates none.
      const retried = retriedApproval(context, ctx, name, args);
      if (retried) return project(approvalResult(retried), deps.catalogue.byName.get(name));
    }
    const { result, tool, approval } = await callAgentTool(deps, context, { name }, args);
    // Only a call sent for approval asks anything: every other call answers as it is.
    if (approval && tool && elicitation) {
      const asking = approvalElicitation(agent.name, approval, tool.definition.title);
      if (elicitation !== 'input-required') {
        noteAnswer(context, approval.id, await elicitation(asking, ctx.mcpReq.id, ctx.mcpReq.signal));
      } else if (approvalState && declaresUrlElicitation(requestCapabilities(ctx))) {
        const { id, expiresAt, approveUrl } = approval;
        return inputRequired({
          inputRequests: {
            [APPROVAL_INPUT]: inputRequired.elicitUrl({ url: asking.url, message: asking.message }),
          },
          requestState: await approvalState.mint(
            {
              v: 1,
              agentId: agent.id,
              tool: name,
              args: argumentsDigest(args),
              approval: { id, expiresAt, approveUrl },
            },
            ctx,
          ),
        });
      }
    }
    return project(result, tool);
  });

  const { resources } = deps;
  if (resources) {
    // A refusal reads as "not found"; anything unexpected is logged and answered without internals.
    const guarded = async <T>(
      { agent, log }: AgentRequestContext,
      work: () => Promise<T>,
      uri?: string,
    ): Promise<T> => {
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
    };
    server.setRequestHandler('resources/list', async (_request, ctx) => {
      const context = contextOf(ctx);
      return { resources: await guarded(context, () => resources.list(agentAccess(context.agent))) };
    });
    server.setRequestHandler('resources/templates/list', () => ({ resourceTemplates: [] }));
    server.setRequestHandler('resources/read', async (request, ctx) => {
      const { uri } = request.params;
      const context = contextOf(ctx);
      const contents = await guarded(context, () => resources.read(agentAccess(context.agent), uri), uri);
      if (!contents) throw new ResourceNotFoundError(uri);
      return { contents };
    });
  }

  return server;
}
