import { performance } from 'node:perf_hooks';
import type { CallToolResult } from '@modelcontextprotocol/server';
import { type Span, SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { ATTR_ERROR_TYPE } from '@opentelemetry/semantic-conventions';
import type { FastifyBaseLogger } from 'fastify';
import type { Actor } from '../lib/actor.js';
import { controlCharacterIssues, replaceControlCharacters } from '../lib/control-characters.js';
import { asDomainError, InputError } from '../lib/errors.js';
import { activeTracer, inSpan } from '../lib/tracing.js';
import { agentAccess } from './access.js';
import type { CompiledTool } from './catalogue.js';
import { overlongKeyResult, splitKey } from './idempotent-call.js';
import type { AgentRequestContext, AgentServerDeps } from './server.js';
import {
  ARGUMENTS,
  approvalResult,
  errorResult,
  issuesText,
  successResult,
  toolErrorOf,
} from './tool-results.js';
import type { ApprovedCallRunner, GateDecision, PendingApproval, ResolvedAgent } from './types.js';

/** The MCP method of a tool call, and the (incubating) attributes of its span. */
const TOOLS_CALL = 'tools/call';
const ATTR_MCP_METHOD_NAME = 'mcp.method.name';
const ATTR_GEN_AI_OPERATION_NAME = 'gen_ai.operation.name';
const ATTR_GEN_AI_TOOL_NAME = 'gen_ai.tool.name';

/** Longest unknown tool name echoed back or kept in the activity log (action keys are at most 100). */
const MAX_LOGGED_NAME = 100;

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

type ToolCallDeps = Pick<AgentServerDeps, 'catalogue' | 'agents' | 'gate' | 'idempotency'>;
type Settle = Extract<GateDecision, { kind: 'run' }>['settle'];

/** A permitted call: the tool, the Actor it runs as, and the approval it runs under (if any). */
interface PermittedCall {
  tool: CompiledTool;
  actor: Actor;
  approvalId: number | null;
}

/** What one call left for the activity record, with its result. */
interface CallRecord {
  result: CallToolResult;
  /** The arguments as the tool's input schema parsed them; undefined when they did not parse. */
  validInput?: Record<string, unknown>;
  /** What the tool answered; undefined when it did not run or failed. */
  output?: unknown;
  approval?: PendingApproval;
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

/** Tells the policy how the call went (a failed call gives its counted units back). */
async function settleQuietly(
  settle: Settle | undefined,
  ok: boolean,
  output: unknown,
  log: FastifyBaseLogger,
  agent: ResolvedAgent,
  tool: CompiledTool,
) {
  if (!settle) return;
  try {
    await settle({ ok, output });
  } catch (settleError) {
    log.error(
      { err: settleError, agentId: agent.id, tool: tool.name },
      'settling a tool call with its policy failed',
    );
  }
}

/** A thrown error as the call's refusal: a domain error as itself, anything else logged and INTERNAL. */
function thrownResult(thrown: unknown, tool: CompiledTool, log: FastifyBaseLogger, agent: ResolvedAgent) {
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

/**
 * Runs a permitted call with valid input through the agent's policy (reads never wait
 * for anyone: only what changes something goes through it): refused, sent for approval,
 * or run, and the policy told how the run went.
 */
async function admitAndRun(
  deps: ToolCallDeps,
  context: AgentRequestContext,
  { tool, actor, approvalId }: PermittedCall,
  input: Record<string, unknown>,
): Promise<{ result: CallToolResult; approval?: PendingApproval } | { output: unknown }> {
  // The context is the tool's caller too: the agent as the credential read loaded it.
  const { agent, log } = context;
  let settle: Settle | undefined;
  let output: unknown;
  try {
    if (deps.gate && tool.risk !== 'read') {
      const decision = await deps.gate.admit({
        agent,
        actionKey: tool.definition.actionKey,
        title: tool.definition.title,
        risk: tool.risk,
        input,
        actor,
        dryRun: tool.takesDryRun
          ? () => tool.definition.run(actor, { ...input, dryRun: true }, context)
          : undefined,
        approvalId,
      });
      if (decision.kind === 'refuse') return { result: errorResult(decision.code, decision.message) };
      if (decision.kind === 'approval')
        return { result: approvalResult(decision.approval), approval: decision.approval };
      settle = decision.settle;
    }
    output = await tool.definition.run(actor, input, context);
  } catch (thrown) {
    await settleQuietly(settle, false, output, log, agent, tool);
    return { result: thrownResult(thrown, tool, log, agent) };
  }
  // A dry run that would fail counts nothing either.
  const refusedDryRun =
    output !== null &&
    typeof output === 'object' &&
    (output as { wouldSucceed?: unknown }).wouldSucceed === false;
  await settleQuietly(settle, !refusedDryRun, output, log, agent, tool);
  return { output };
}

/** A permitted call with valid arguments: run through the policy, its output checked. */
async function runValid(
  deps: ToolCallDeps,
  context: AgentRequestContext,
  call: PermittedCall,
  validInput: Record<string, unknown>,
): Promise<CallRecord> {
  const { tool } = call;
  const ran = await admitAndRun(deps, context, call, validInput);
  if (!('output' in ran)) return { validInput, ...ran };
  const checked = await tool.checkOutput(ran.output);
  if (!checked.ok) {
    context.log.error(
      { agentId: context.agent.id, tool: tool.name, issues: issuesText(checked.issues) },
      'MCP tool output does not match its schema',
    );
    return { validInput, output: ran.output, result: errorResult('INTERNAL', 'Internal error') };
  }
  return { validInput, output: ran.output, result: successResult(checked.value) };
}

/**
 * A permitted call: its arguments checked, then run (`runValid`). With an `idempotencyKey`
 * (idempotent tools), through the key store: a retry answers the first result again. An
 * approved call being run, and a dry run, stand aside (the approval runs once by itself; a
 * dry run writes nothing). The key is taken out of the arguments here, so neither the
 * policy, the approval, the tool nor the activity record ever sees it.
 */
async function runPermitted(
  deps: ToolCallDeps,
  context: AgentRequestContext,
  call: PermittedCall,
  args: unknown,
): Promise<CallRecord> {
  const { tool } = call;
  // The one rule for text, as every HTTP route applies it (http/validation.ts).
  const controls = controlCharacterIssues(args);
  if (controls.length > 0)
    return {
      result: errorResult(
        'VALIDATION_FAILED',
        `Invalid arguments for tool ${tool.name}: ${issuesText(controls)}`,
      ),
    };
  const overlong = tool.idempotent ? overlongKeyResult(args) : undefined;
  if (overlong) return { result: overlong };
  const input = await tool.input.safeParseAsync(args ?? {});
  if (!input.success)
    return {
      result: errorResult(
        'VALIDATION_FAILED',
        `Invalid arguments for tool ${tool.name}: ${issuesText(input.error.issues)}`,
      ),
    };
  const parsed = input.data as Record<string, unknown>;
  const { key, rest: validInput } = tool.idempotent ? splitKey(parsed) : { key: undefined, rest: parsed };
  const run = () => runValid(deps, context, call, validInput);
  if (key === undefined || !deps.idempotency || call.approvalId !== null || validInput.dryRun === true)
    return run();
  const keyed = await deps.idempotency(
    { agent: context.agent, toolName: tool.name, key, input: validInput },
    run,
    context.log,
  );
  if (!('notRun' in keyed)) return keyed;
  const { result } = keyed;
  return { validInput, result, output: result.isError ? undefined : result.structuredContent };
}

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
export function callAgentTool(
  deps: ToolCallDeps,
  context: AgentRequestContext,
  reference: ToolReference,
  args: unknown,
  approved?: { approvalId: number; organisationId: number | null },
): Promise<ToolCallOutcome> {
  if (!activeTracer()) return runToolCall(deps, context, reference, args, approved);
  return inSpan(TOOLS_CALL, { kind: SpanKind.INTERNAL }, async (span) => {
    const outcome = await runToolCall(deps, context, reference, args, approved);
    if (span) describeToolCall(span, outcome);
    return outcome;
  });
}

/**
 * A tool call's span, once it ran: named by the tool (an unknown name is not echoed: the span
 * names are a small set), and failed when the call was refused. The arguments are never
 * recorded: they can carry a customer's details and an agent's secrets.
 */
function describeToolCall(span: Span, { result, tool }: ToolCallOutcome): void {
  span.setAttribute(ATTR_MCP_METHOD_NAME, TOOLS_CALL);
  span.setAttribute(ATTR_GEN_AI_OPERATION_NAME, 'execute_tool');
  if (tool) {
    span.updateName(`${TOOLS_CALL} ${tool.name}`);
    span.setAttribute(ATTR_GEN_AI_TOOL_NAME, tool.name);
  }
  const error = toolErrorOf(result);
  if (error) {
    span.setAttribute(ATTR_ERROR_TYPE, error.code);
    span.setStatus({ code: SpanStatusCode.ERROR });
  }
}

async function runToolCall(
  deps: ToolCallDeps,
  context: AgentRequestContext,
  reference: ToolReference,
  args: unknown,
  approved: { approvalId: number; organisationId: number | null } | undefined,
): Promise<ToolCallOutcome> {
  const { agent, log } = context;
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
  const permitted = tool
    ? agentAccess(agent, deps.catalogue.alwaysAllowed).actorFor(tool.definition.actionKey)
    : null;
  const actor = permitted && approved ? { ...permitted, organisationId: approved.organisationId } : permitted;
  const call: CallRecord =
    tool && actor
      ? await runPermitted(deps, context, { tool, actor, approvalId }, args)
      : // Not permitted reads exactly like not existing.
        { result: errorResult('NOT_FOUND', `Tool ${requested} not found`) };
  const { result, validInput, approval } = call;
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
      targetIds: targetIdsOf(validInput, error ? undefined : call.output),
      approvalId: approvalId ?? approval?.id ?? null,
    });
  } catch (recordError) {
    log.error({ err: recordError, agentId: agent.id, actionKey }, 'recording an MCP tool call failed');
  }
  return { result, tool: actor ? tool : undefined, approval };
}

/**
 * How an approved call runs (the gate's runner): as the agent is now, read again, so a
 * paused or disabled agent's approval fails, and a permission taken away since is gone.
 */
export function approvedCallRunner(deps: ToolCallDeps, log: FastifyBaseLogger): ApprovedCallRunner {
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
