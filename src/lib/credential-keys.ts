import { randomToken, sha256 } from './crypto.js';

/** Characters of a key listings show after its kind prefix: enough to tell keys apart, too few to use. */
const SHOWN_CHARS = 6;
/** A key's last-used time is written at most this often, keeping writes off the hot path. */
const LAST_USED_RESOLUTION_MS = 60_000;

export interface IssuedKey {
  /** The credential itself: shown once, never stored. */
  key: string;
  /** What listings show, e.g. `ag_sk_Ab3dE9`. */
  prefix: string;
  keyHash: string;
}

/** A new static key of one kind (`rs_uk_` user keys, `ag_sk_` agent keys). */
export function issueKey(kind: string): IssuedKey {
  const key = `${kind}${randomToken()}`;
  return { key, prefix: key.slice(0, kind.length + SHOWN_CHARS), keyHash: sha256(key) };
}

/** Whether a key's (or its holder's) last-used time is old enough to be written again. */
export function lastUsedIsStale(lastUsedAt: string | null, nowMs: number = Date.now()): boolean {
  return !lastUsedAt || nowMs - Date.parse(lastUsedAt) > LAST_USED_RESOLUTION_MS;
}
