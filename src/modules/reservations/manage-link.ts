import { decryptSecret, encryptSecret, randomToken, sha256 } from '../../lib/crypto.js';

/**
 * A customer's manage link as stored (DECISIONS.md "Pages people live in"): the SHA-256 of
 * its token, which finds it, and the token sealed with ENCRYPTION_KEY, read back only where
 * a customer mail is sent. `sealed` is null on rows stored before it was kept: their mails
 * carry no link.
 */
export interface StoredManageLink {
  hash: string;
  sealed: string | null;
}

/**
 * What the seal is bound to: the hash stored beside it. A sealed token copied onto another
 * row (another hash) does not open there; a waitlist entry's offer, which carries the entry's
 * hash, does.
 */
const sealContext = (hash: string) => `manage-link:${hash}`;

/** A new manage link: the token (shown once or mailed, never stored) and what is stored of it. */
export function newManageLink(key: Buffer): { token: string; hash: string; sealed: string } {
  const token = randomToken();
  const hash = sha256(token);
  return { token, hash, sealed: encryptSecret(key, token, sealContext(hash)) };
}

/** The token of a stored link; null when none was sealed, or it does not open with this key and hash. */
export function unsealManageToken(key: Buffer, link: StoredManageLink): string | null {
  if (!link.sealed) return null;
  try {
    const token = decryptSecret(key, link.sealed, sealContext(link.hash));
    return sha256(token) === link.hash ? token : null;
  } catch {
    return null;
  }
}

/** Where a customer manages what a token names (the frontend's manage page). */
export const manageUrlOf = (frontendUrl: string, token: string) => `${frontendUrl}/manage/${token}`;

/** A reservation's or waitlist entry's columns of `link` (none: both null). */
export const storedManageLink = (link: StoredManageLink | null) => ({
  manageTokenHash: link?.hash ?? null,
  manageTokenSealed: link?.sealed ?? null,
});
