import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { conflict, validationFailed } from '../lib/errors.js';

/** How long a key answers with its first result; older rows are ignored and purged. */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
/** A claim that never finished (its instance died) is given up after this long. */
const STALE_CLAIM_MS = 2 * 60 * 1000;
/** How long a second request with the same key waits for the first one to finish. */
const WAIT_MS = 5_000;
const POLL_MS = 25;
const PURGE_EVERY_MS = 60_000;

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

/** Who a key belongs to: keys of different scopes never meet. */
export interface IdempotencyScope {
  scope: string;
  /** The signed-in caller, for privacy (export and erasure); null on public routes. */
  userId: number | null;
}

/** What a stored key answers to a request that claims it. */
export interface StoredKey {
  id: number;
  fingerprint: string;
  statusCode: number | null;
  responseBody: string | null;
  createdAt: string;
}

/**
 * Where keys are kept, shared by every instance: the idempotency module implements it
 * with its table and the routes hand it to `idempotencyHooks` (src/http knows no module).
 */
export interface IdempotencyStore {
  /**
   * Claims (scope, key) with one INSERT; exactly one of two concurrent claims wins.
   * Answers the new row's id, or null when the key is taken.
   */
  claim(input: {
    scope: string;
    key: string;
    userId: number | null;
    fingerprint: string;
    now: string;
  }): Promise<number | null>;
  find(scope: string, key: string): Promise<StoredKey | undefined>;
  /** Frees (scope, key) when its row is expired, or a claim that never finished is stale. */
  releaseExpired(scope: string, key: string, expiredBefore: string, staleBefore: string): Promise<void>;
  /** Stores the answer of a claimed key. */
  complete(id: number, statusCode: number, responseBody: string, now: string): Promise<void>;
  /** Drops a claim whose request failed (5xx), so a retry runs again. */
  release(id: number): Promise<void>;
  /** Deletes every row older than `before`; answers how many. */
  purge(before: string): Promise<number>;
}

/**
 * Whether a request is a dry run (`dryRunQuery` parsed `?dryRun=true`): it writes nothing,
 * so it claims, waits for and replays no key, and its answer is not stored.
 */
export const isDryRun = (request: FastifyRequest) =>
  (request.query as { dryRun?: unknown } | undefined)?.dryRun === true;

/** JSON with object keys sorted at every level, so equal bodies give equal text. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const iso = (ms: number) => new Date(ms).toISOString();

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
function fingerprintOf(request: FastifyRequest): string {
  const path = request.url.split('?')[0] ?? request.url;
  return createHash('sha256')
    .update(`${request.method}\n${path}\n${canonicalJson(request.body)}`)
    .digest('hex');
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
 * Claims (scope, key) for this request, waiting up to WAIT_MS for a running one with the key.
 * Answers the claim's id, or null when a finished request's answer was replayed on `reply`.
 */
async function claimOrReplay(
  store: IdempotencyStore,
  claim: { scope: string; key: string; userId: number | null; fingerprint: string },
  reply: FastifyReply,
  started: number,
): Promise<number | null> {
  const { scope, key, fingerprint } = claim;
  for (;;) {
    const now = Date.now();
    await store.releaseExpired(scope, key, iso(now - IDEMPOTENCY_TTL_MS), iso(now - STALE_CLAIM_MS));
    const id = await store.claim({ ...claim, now: iso(now) });
    if (id !== null) return id;
    const row = await store.find(scope, key);
    if (!row) continue; // released in between (the first request failed): claim again
    if (row.fingerprint !== fingerprint)
      throw conflict(
        'IDEMPOTENCY_KEY_REUSED',
        'This Idempotency-Key was already used with another request; use a new key',
      );
    if (row.statusCode !== null && row.responseBody !== null) {
      reply
        .code(row.statusCode)
        .header('idempotent-replayed', 'true')
        .type('application/json; charset=utf-8')
        .send(row.responseBody);
      return null;
    }
    if (Date.now() - started >= WAIT_MS)
      throw conflict('CONFLICT', 'A request with this Idempotency-Key is in progress; retry later');
    await sleep(POLL_MS);
  }
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
  let lastPurge = 0;

  async function preHandler(request: FastifyRequest, reply: FastifyReply) {
    const key = keyOf(request);
    if (key === undefined) return;
    const { scope, userId } = scopeOf(request);
    const fingerprint = fingerprintOf(request);

    const started = Date.now();
    if (started - lastPurge > PURGE_EVERY_MS) {
      lastPurge = started;
      await store.purge(iso(started - IDEMPOTENCY_TTL_MS));
    }
    const id = await claimOrReplay(store, { scope, key, userId, fingerprint }, reply, started);
    if (id === null) return reply;
    claims.set(request, id);
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
