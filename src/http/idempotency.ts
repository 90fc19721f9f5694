import type { FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { validationFailed } from '../lib/errors.js';
import {
  canonicalJson,
  fingerprintOf,
  type IdempotencyScope,
  type IdempotencyStore,
  keyClaimer,
} from '../lib/idempotency.js';

export {
  canonicalJson,
  IDEMPOTENCY_TTL_MS,
  type IdempotencyScope,
  type IdempotencyStore,
  type StoredKey,
} from '../lib/idempotency.js';

/** 1..255 printable ASCII characters (space included). */
const KEY = /^[\x20-\x7e]{1,255}$/;

/** The `headers` schema of a route that honours `Idempotency-Key`; other headers pass through. */
export const idempotencyHeaders = z.looseObject({
  'idempotency-key': z
    .string()
    .regex(KEY, 'must be 1 to 255 printable ASCII characters')
    .optional()
    .describe(
      'Retry-safe request: the same key with the same body within 24 hours answers the first result again ' +
        '(header Idempotent-Replayed: true); with another body 409 IDEMPOTENCY_KEY_REUSED',
    ),
});

/**
 * Whether a request is a dry run (`dryRunQuery` parsed `?dryRun=true`): it writes nothing,
 * so it claims, waits for and replays no key, and its answer is not stored.
 */
export const isDryRun = (request: FastifyRequest) =>
  (request.query as { dryRun?: unknown } | undefined)?.dryRun === true;

/** The request's `Idempotency-Key`, or undefined when it has none or is a dry run. */
function keyOf(request: FastifyRequest): string | undefined {
  const key = request.headers['idempotency-key'];
  if (key === undefined || isDryRun(request)) return undefined;
  if (typeof key !== 'string' || !KEY.test(key))
    throw validationFailed('Invalid headers: idempotency-key must be 1 to 255 printable ASCII characters', [
      { path: 'headers.idempotency-key', message: 'must be 1 to 255 printable ASCII characters' },
    ]);
  return key;
}

/** What a key is bound to: method, path and canonical body. */
function requestFingerprint(request: FastifyRequest): string {
  const path = request.url.split('?')[0] ?? request.url;
  return fingerprintOf(request.method, path, canonicalJson(request.body));
}

/**
 * The text kept for an answer: with the given fields nulled in it and in the records of its
 * lists (a series' occurrences), so a secret shown once is never kept in clear.
 */
function answerWithoutSecrets(secretFields: readonly string[]): (payload: string) => string {
  const withoutSecrets = (answer: object) => {
    for (const field of secretFields)
      if (Object.hasOwn(answer, field)) (answer as Record<string, unknown>)[field] = null;
    for (const value of Object.values(answer))
      if (Array.isArray(value))
        for (const item of value) if (item !== null && typeof item === 'object') withoutSecrets(item);
  };
  return (payload) => {
    if (secretFields.length === 0) return payload;
    const answer: unknown = JSON.parse(payload);
    if (answer === null || typeof answer !== 'object') return payload;
    withoutSecrets(answer);
    return JSON.stringify(answer);
  };
}

/**
 * Route hooks that make a POST retry-safe with the `Idempotency-Key` header, through a
 * store shared by every instance (`app.services.idempotency`). Spread into the route's options:
 * `{ ...hooks, schema: { headers: idempotencyHeaders, ... } }`.
 *
 * - preHandler (after auth and validation): claims (scope, key) with one INSERT. If the
 *   key is taken: another fingerprint (method + path + canonical body) is 409
 *   IDEMPOTENCY_KEY_REUSED; a finished request is replayed (its status and body, header
 *   `Idempotent-Replayed: true`); one still running is waited for up to 5 s, then 409
 *   CONFLICT.
 * - onSend: stores the answer (any status below 500); on a 5xx the claim is dropped so
 *   a retry runs again.
 * - A dry run (`isDryRun`) stands aside: it neither claims nor replays a key.
 */
export function idempotencyHooks(
  store: IdempotencyStore,
  scopeOf: (request: FastifyRequest) => IdempotencyScope,
  options: {
    /**
     * Fields of a JSON answer, or of the records in its lists, holding a secret shown once (a
     * manage token): the stored copy, and so a replay, has them null. A secret is never kept
     * in clear.
     */
    secretFields?: readonly string[];
  } = {},
) {
  const storedAnswer = answerWithoutSecrets(options.secretFields ?? []);
  const claims = new WeakMap<FastifyRequest, number>();
  const claim = keyClaimer(store, {
    reused: 'This Idempotency-Key was already used with another request; use a new key',
    inProgress: 'A request with this Idempotency-Key is in progress; retry later',
  });

  async function preHandler(request: FastifyRequest, reply: FastifyReply) {
    const key = keyOf(request);
    if (key === undefined) return;
    const { scope, userId } = scopeOf(request);
    const outcome = await claim({ scope, key, userId, fingerprint: requestFingerprint(request) });
    if ('replay' in outcome)
      return reply
        .code(outcome.replay.statusCode)
        .header('idempotent-replayed', 'true')
        .type('application/json; charset=utf-8')
        .send(outcome.replay.responseBody);
    claims.set(request, outcome.claimed);
  }

  async function onSend(request: FastifyRequest, reply: FastifyReply, payload: unknown) {
    const id = claims.get(request);
    if (id === undefined) return payload;
    claims.delete(request);
    try {
      if (reply.statusCode >= 500 || typeof payload !== 'string') await store.release(id);
      else await store.complete(id, reply.statusCode, storedAnswer(payload), new Date().toISOString());
    } catch (err) {
      // The answer still goes out; the claim goes stale and is given up after STALE_CLAIM_MS.
      request.log.error({ err }, 'could not store the idempotent answer');
    }
    return payload;
  }

  return { preHandler, onSend };
}
