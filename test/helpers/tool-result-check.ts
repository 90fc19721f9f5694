import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/client';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { ERROR_CODES } from '../../src/lib/errors.js';

/**
 * Every tool result a test sees is checked here, as a strict client would: a success's
 * `structuredContent` against the `outputSchema` the server published (tools/list, or the
 * same compiled schema for the in-process harness), a refusal against the error shape,
 * and an INTERNAL refusal fails the test unless it said it expects one.
 */

// ajv-formats is CommonJS: its default export is the plugin itself.
const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default;

/** Strict: a schema ajv finds ambiguous (unknown keyword, union type, unknown format) fails to compile. */
export function strictAjv(): Ajv2020 {
  const ajv = new Ajv2020({ strict: true, allErrors: true });
  addFormats(ajv);
  return ajv;
}

const ajv = strictAjv();
/** Compiled once per distinct schema: every test connects clients that list the same tools. */
const compiled = new Map<string, ValidateFunction>();
function validatorOf(schema: object): ValidateFunction {
  const key = JSON.stringify(schema);
  let validate = compiled.get(key);
  if (!validate) {
    validate = ajv.compile(schema);
    compiled.set(key, validate);
  }
  return validate;
}

/** What every refused call answers (src/mcp/tool-results.ts `errorResult`). */
export const ERROR_RESULT_SCHEMA = {
  type: 'object',
  properties: {
    error: {
      type: 'object',
      properties: {
        code: { enum: [...ERROR_CODES] },
        message: { type: 'string', minLength: 1 },
        alternatives: { type: 'array', items: { type: 'object' } },
        conflicts: { type: 'array', items: { type: 'object' } },
      },
      required: ['code', 'message'],
      additionalProperties: false,
    },
  },
  required: ['error'],
  additionalProperties: false,
} as const;

/** Throws (naming the tool and ajv's complaints) when `value` breaks `schema`. */
export function assertMatchesSchema(tool: string, schema: object, value: unknown, what = 'result'): void {
  const validate = validatorOf(schema);
  if (!validate(value))
    assert.fail(
      `${tool}: the ${what} breaks its published schema: ${ajv.errorsText(validate.errors)}\n${JSON.stringify(value)}`,
    );
}

/** A value that is a date with a time of day: an instant only with Z or an offset after it. */
const DATE_AND_TIME = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}(:?\d{2})?)?$/;
const ZONED_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/;
/** A wall-clock time of day or a calendar date on its own: local, so a zone must be named beside it. */
const LOCAL_TIME_OR_DATE = /^(\d{2}:\d{2}(:\d{2})?|\d{4}-\d{2}-\d{2})$/;
const ZONE_KEYS = ['timeZone', 'timezone'];

/**
 * Times carry their zone (DECISIONS.md "MCP frontier"): every date-time in a result is an
 * instant with Z or an offset, and a local time or date has an IANA zone named on its object
 * or an enclosing one. Answers paths that break it.
 */
export function unzonedTimes(value: unknown, path = '', zoned = false): string[] {
  if (typeof value === 'string') {
    if (DATE_AND_TIME.test(value) && !ZONED_INSTANT.test(value)) return [`${path}: ${value} has no zone`];
    if (LOCAL_TIME_OR_DATE.test(value) && !zoned) return [`${path}: ${value} is local with no zone named`];
    return [];
  }
  if (Array.isArray(value))
    return value.flatMap((item, index) => unzonedTimes(item, `${path}[${index}]`, zoned));
  if (value === null || typeof value !== 'object') return [];
  const entries = Object.entries(value);
  const here = zoned || entries.some(([key, item]) => ZONE_KEYS.includes(key) && typeof item === 'string');
  return entries.flatMap(([key, item]) => unzonedTimes(item, `${path}.${key}`, here));
}

interface ToolResultLike {
  isError?: boolean | undefined;
  structuredContent?: unknown;
  content?: unknown;
}

/**
 * Checks one `tools/call` result: an error against the error shape (and INTERNAL only when
 * `internalExpected`), a success against `outputSchema`; the text content carries the same
 * JSON, and every time its zone (refusals' alternatives too).
 */
export function checkToolResult(
  tool: string,
  result: ToolResultLike,
  outputSchema: object | undefined,
  internalExpected = false,
): void {
  const text = (result.content as Array<{ type: string; text?: string }> | undefined)?.[0];
  assert.equal(text?.type, 'text', `${tool}: the result has no text content for older clients`);
  // The approval answer follows its JSON with a line for the agent.
  assert.deepEqual(
    JSON.parse((text.text ?? '').split('\n')[0] ?? ''),
    result.structuredContent,
    `${tool}: the text content is not the structured content`,
  );
  assertZonedTimes(tool, result.structuredContent);
  if (result.isError) {
    assertMatchesSchema(tool, ERROR_RESULT_SCHEMA, result.structuredContent, 'error');
    const { code } = (result.structuredContent as { error: { code: string } }).error;
    if (code === 'INTERNAL' && !internalExpected)
      assert.fail(
        `${tool} answered INTERNAL (a server error; see the log). Expect it with expectingInternal().`,
      );
    return;
  }
  assert.ok(outputSchema, `${tool} answered a result but tools/list does not list it with an outputSchema`);
  assertMatchesSchema(tool, outputSchema, result.structuredContent);
}

/** Fails naming the tool and every time in `value` that does not carry its zone (`unzonedTimes`). */
export function assertZonedTimes(tool: string, value: unknown): void {
  const unzoned = unzonedTimes(value);
  assert.deepEqual(unzoned, [], `${tool}: times without their zone`);
}

type CallToolArgs = Parameters<Client['callTool']>;

/**
 * The SDK client every test uses: each `callTool` result is checked (`checkToolResult`)
 * against the output schemas this client's own `tools/list` answers, listed once when the
 * first success needs them (and again when a tool is missing: permissions change).
 */
export class CheckedClient extends Client {
  private outputSchemas: Map<string, object> | undefined;
  private internalAllowed = 0;

  /** Runs `during` with INTERNAL results allowed: for tests about server failures. */
  async expectingInternal<T>(during: () => Promise<T>): Promise<T> {
    this.internalAllowed += 1;
    try {
      return await during();
    } finally {
      this.internalAllowed -= 1;
    }
  }

  override async callTool(...args: CallToolArgs): Promise<Awaited<ReturnType<Client['callTool']>>> {
    const result = await super.callTool(...args);
    // A 2026-07-28 input_required answer (handled by hand) is no tool result yet.
    if ('inputRequests' in result) return result;
    const name = args[0].name;
    const schema = result.isError ? undefined : await this.outputSchemaOf(name);
    checkToolResult(name, result, schema, this.internalAllowed > 0);
    return result;
  }

  private async outputSchemaOf(name: string): Promise<object | undefined> {
    if (!this.outputSchemas?.has(name)) this.outputSchemas = await this.listedOutputSchemas();
    return this.outputSchemas.get(name);
  }

  /** Every page of `tools/list`, asked directly: a resumed session's client never saw the capabilities. */
  private async listedOutputSchemas(): Promise<Map<string, object>> {
    const schemas = new Map<string, object>();
    let cursor: string | undefined;
    do {
      const page = await this.request({ method: 'tools/list', params: cursor ? { cursor } : {} });
      for (const tool of page.tools) if (tool.outputSchema) schemas.set(tool.name, tool.outputSchema);
      cursor = page.nextCursor;
    } while (cursor);
    return schemas;
  }
}
