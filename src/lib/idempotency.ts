import { createHash } from 'node:crypto';
import { conflict } from './errors.js';

/**
 * The one idempotency mechanism, shared by the REST `Idempotency-Key` header
 * (src/http/idempotency.ts) and the MCP `idempotencyKey` argument (src/mcp/idempotent-call.ts):
 * a key is claimed with one INSERT in a store every instance shares, bound to a fingerprint of
 * what it was used for, and answers its first result again.
 */

/** How long a key answers with its first result; older rows are ignored and purged. */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
/** A claim that never finished (its instance died) is given up after this long. */
const STALE_CLAIM_MS = 2 * 60 * 1000;
/** How long a second request with the same key waits for the first one to finish. */
const WAIT_MS = 5_000;
const POLL_MS = 25;
const PURGE_EVERY_MS = 60_000;

/** Who a key belongs to: keys of different scopes never meet. */
export interface IdempotencyScope {
  /** `user:<id>` (REST, signed in), `ip:<address>` (REST, public), `agent:<id>` (MCP). */
  scope: string;
  /** The person whose data the row is, for privacy (export and erasure); null on public routes. */
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
 * Where keys are kept, shared by every instance: the idempotency module implements it with
 * its table, and the wiring hands it to the REST hooks and the MCP runtime (neither knows a module).
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

/** SHA-256 (hex) of the lines that say what a key was used for. */
export const fingerprintOf = (...lines: string[]) =>
  createHash('sha256').update(lines.join('\n')).digest('hex');

/** A claim of (scope, key) for one use, named by its fingerprint. */
export interface KeyClaim extends IdempotencyScope {
  key: string;
  fingerprint: string;
}

/** What claiming a key came to: the row to complete, or the finished first answer to replay. */
export type ClaimOutcome = { claimed: number } | { replay: { statusCode: number; responseBody: string } };

/** How the refusals of a key name it to the caller (`Idempotency-Key`, `idempotencyKey`). */
export interface KeyWording {
  reused: string;
  inProgress: string;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const iso = (ms: number) => new Date(ms).toISOString();

/**
 * Claims keys of one store, purging expired rows at most once a minute. A key taken with
 * another fingerprint throws IDEMPOTENCY_KEY_REUSED; a finished use is replayed; one still
 * running is waited for up to 5 s, then CONFLICT.
 */
export function keyClaimer(store: IdempotencyStore, wording: KeyWording) {
  let lastPurge = 0;
  return async function claimKey(claim: KeyClaim): Promise<ClaimOutcome> {
    const started = Date.now();
    if (started - lastPurge > PURGE_EVERY_MS) {
      lastPurge = started;
      await store.purge(iso(started - IDEMPOTENCY_TTL_MS));
    }
    const { scope, key, fingerprint } = claim;
    for (;;) {
      const now = Date.now();
      await store.releaseExpired(scope, key, iso(now - IDEMPOTENCY_TTL_MS), iso(now - STALE_CLAIM_MS));
      const id = await store.claim({ ...claim, now: iso(now) });
      if (id !== null) return { claimed: id };
      const row = await store.find(scope, key);
      if (!row) continue; // released in between (the first request failed): claim again
      if (row.fingerprint !== fingerprint) throw conflict('IDEMPOTENCY_KEY_REUSED', wording.reused);
      if (row.statusCode !== null && row.responseBody !== null)
        return { replay: { statusCode: row.statusCode, responseBody: row.responseBody } };
      if (Date.now() - started >= WAIT_MS) throw conflict('CONFLICT', wording.inProgress);
      await sleep(POLL_MS);
    }
  };
}
