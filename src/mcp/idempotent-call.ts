import type { CallToolResult } from '@modelcontextprotocol/server';
import type { FastifyBaseLogger } from 'fastify';
import { z } from 'zod';
import { httpStatusOf } from '../http/errors.js';
import { asDomainError } from '../lib/errors.js';
import { canonicalJson, fingerprintOf, type IdempotencyStore, keyClaimer } from '../lib/idempotency.js';
import { errorResult, toolErrorOf } from './tool-results.js';
import type { ResolvedAgent } from './types.js';

/** The argument an idempotent tool (declared `idempotent: true`) takes on top of its own input. */
export const IDEMPOTENCY_KEY = 'idempotencyKey';
const MAX_KEY_LENGTH = 255;

export const idempotencyKeyArgument = z
  .string()
  .min(1)
  .max(MAX_KEY_LENGTH)
  .optional()
  .describe(
    'Retry-safe call: the same key with the same arguments within 24 hours answers the first result again ' +
      'without doing it twice; with other arguments the error IDEMPOTENCY_KEY_REUSED. Use a new key ' +
      '(e.g. a UUID) for each new action and the same one when retrying it.',
  );

/** The input schema of an idempotent tool: its own, plus `idempotencyKey` (each schema extended once). */
const extended = new WeakMap<z.ZodObject, z.ZodObject>();
export function withIdempotencyKey(input: z.ZodObject): z.ZodObject {
  let schema = extended.get(input);
  if (!schema) {
    schema = input.safeExtend({ [IDEMPOTENCY_KEY]: idempotencyKeyArgument });
    extended.set(input, schema);
  }
  return schema;
}

/**
 * A key over 255 characters is refused before the arguments are read, as issue 54's "Bad
 * input" says: the tool error IDEMPOTENCY_KEY_REUSED (never a key the store could keep).
 */
export function overlongKeyResult(args: unknown): CallToolResult | undefined {
  const key =
    args !== null && typeof args === 'object'
      ? (args as Record<string, unknown>)[IDEMPOTENCY_KEY]
      : undefined;
  if (typeof key !== 'string' || key.length <= MAX_KEY_LENGTH) return undefined;
  return errorResult(
    'IDEMPOTENCY_KEY_REUSED',
    `idempotencyKey must be 1 to ${MAX_KEY_LENGTH} characters (got ${key.length}); nothing was done`,
  );
}

/** Parsed arguments split into the key (undefined when absent) and the tool's own input. */
export function splitKey(input: Record<string, unknown>): {
  key: string | undefined;
  rest: Record<string, unknown>;
} {
  const { [IDEMPOTENCY_KEY]: key, ...rest } = input;
  return { key: typeof key === 'string' ? key : undefined, rest };
}

/** One keyed call: who makes it, with which tool, on what. */
export interface KeyedCall {
  agent: ResolvedAgent;
  toolName: string;
  key: string;
  /** The tool's own arguments, parsed (the key excluded). */
  input: Record<string, unknown>;
}

/**
 * Runs keyed tool calls through the store the REST `Idempotency-Key` uses (one mechanism,
 * src/lib/idempotency.ts). A key belongs to its agent (scope `agent:<id>`, the row the owner's
 * for privacy), bound to the tool's name and its canonical arguments: the same key and
 * arguments answer the first result again (`run` does not run), other arguments are
 * IDEMPOTENCY_KEY_REUSED. Every answer is kept but one that failed inside (5xx-like:
 * INTERNAL, UNAVAILABLE), whose claim is dropped so a retry runs again.
 */
export function idempotentCalls(store: IdempotencyStore) {
  const claim = keyClaimer(store, {
    reused: 'This idempotencyKey was already used with other arguments; use a new key',
    inProgress: 'A call with this idempotencyKey is in progress; retry later',
  });

  return async function runKeyed<T extends { result: CallToolResult }>(
    { agent, toolName, key, input }: KeyedCall,
    run: () => Promise<T>,
    log: FastifyBaseLogger,
  ): Promise<T | { result: CallToolResult; notRun: true }> {
    const fingerprint = fingerprintOf('tools/call', toolName, canonicalJson(input));
    let outcome: Awaited<ReturnType<typeof claim>>;
    try {
      outcome = await claim({ scope: `agent:${agent.id}`, userId: agent.userId, key, fingerprint });
    } catch (thrown) {
      const refused = asDomainError(thrown);
      if (refused) return { result: errorResult(refused.code, refused.message), notRun: true };
      log.error({ err: thrown, agentId: agent.id, tool: toolName }, 'claiming an idempotency key failed');
      return { result: errorResult('INTERNAL', 'Internal error'), notRun: true };
    }
    if ('replay' in outcome)
      return { result: JSON.parse(outcome.replay.responseBody) as CallToolResult, notRun: true };
    const ran = await run();
    const { result } = ran;
    const error = toolErrorOf(result);
    const statusCode = error ? httpStatusOf(error.code) : 200;
    try {
      if (statusCode >= 500) await store.release(outcome.claimed);
      else
        await store.complete(outcome.claimed, statusCode, JSON.stringify(result), new Date().toISOString());
    } catch (err) {
      // The answer still goes out; the claim goes stale and is given up after a while.
      log.error({ err, agentId: agent.id, tool: toolName }, 'could not store the idempotent answer');
    }
    return ran;
  };
}

export type RunKeyed = ReturnType<typeof idempotentCalls>;
