import type { Tool } from '@modelcontextprotocol/server';
import { z } from 'zod';
import type { AgentAccess } from './access.js';
import { appToolMeta } from './apps.js';
import { withIdempotencyKey } from './idempotent-call.js';
import { checkOutput, type OutputCheck } from './output-check.js';
import type { ActionRisk, ToolDefinition } from './types.js';

/** MCP tool name of an action key: `calendar.events.read` is `calendar_events_read`. */
export const toolNameOf = (actionKey: string) => actionKey.replaceAll('.', '_');

/** Per-tool data computed once: the wire name and JSON Schemas. */
export interface CompiledTool {
  name: string;
  definition: ToolDefinition;
  /** What its arguments are parsed with: the definition's input, plus `idempotencyKey` when idempotent. */
  input: ToolDefinition['input'];
  /** Takes `idempotencyKey` (src/mcp/idempotent-call.ts). */
  idempotent: boolean;
  risk: ActionRisk;
  /** Takes a `dryRun` argument: the policy prices a call by dry-running it. */
  takesDryRun: boolean;
  inputSchema: Tool['inputSchema'];
  outputSchema: NonNullable<Tool['outputSchema']>;
  /** Checks what the tool answered against its output schema (src/mcp/output-check.ts). */
  checkOutput(output: unknown): Promise<OutputCheck>;
  annotations: NonNullable<Tool['annotations']>;
}

export interface ToolCatalogue {
  byActionKey: ReadonlyMap<string, CompiledTool>;
  byName: ReadonlyMap<string, CompiledTool>;
  /** Actions every agent has whatever its permissions: the tools declared so (and the profile, access.ts). */
  alwaysAllowed: ReadonlySet<string>;
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

/**
 * A schema's JSON Schema, converted once per process: tool schemas are constant values, and
 * each app built (every test builds several) would otherwise convert all of them again.
 */
const converted = { input: new WeakMap<z.ZodType, object>(), output: new WeakMap<z.ZodType, object>() };
function jsonSchemaOf(schema: z.ZodType, io: 'input' | 'output'): Record<string, unknown> {
  const known = converted[io].get(schema);
  if (known) return known as Record<string, unknown>;
  const json = z.toJSONSchema(schema, { io });
  converted[io].set(schema, json);
  return json as Record<string, unknown>;
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
    const output = jsonSchemaOf(definition.output, 'output');
    const idempotent = definition.idempotent === true;
    const input = idempotent ? withIdempotencyKey(definition.input) : definition.input;
    const compiled: CompiledTool = {
      name,
      definition,
      input,
      idempotent,
      risk,
      takesDryRun: 'dryRun' in definition.input.shape,
      inputSchema: jsonSchemaOf(input, 'input') as Tool['inputSchema'],
      outputSchema: objectRooted(options.approvals && risk !== 'read' ? withApprovalAnswer(output) : output),
      checkOutput: (value) => checkOutput(definition.output, output, value),
      annotations: annotationsFor(risk, definition.title),
    };
    byActionKey.set(definition.actionKey, compiled);
    byName.set(name, compiled);
  }
  const alwaysAllowed = new Set(tools.filter((t) => t.alwaysAllowed).map((t) => t.actionKey));
  return { byActionKey, byName, alwaysAllowed };
}

/** A tool as `tools/list` (and the deprecated gateway's `/actions`) shows it. */
export const toolListing = (tool: CompiledTool): Tool => ({
  name: tool.name,
  title: tool.definition.title,
  description: tool.definition.description,
  inputSchema: tool.inputSchema,
  outputSchema: tool.outputSchema,
  annotations: tool.annotations,
  ...(tool.definition.app ? { _meta: appToolMeta(tool.definition.app) } : {}),
});

/** The tools `access` may call, in catalogue order: the one answer of "what may this agent call". */
export function permittedTools(catalogue: ToolCatalogue, access: AgentAccess): CompiledTool[] {
  return [...catalogue.byName.values()].filter((tool) => access.actorFor(tool.definition.actionKey) !== null);
}
