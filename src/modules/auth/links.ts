import type { Executor } from '../../db/database.js';
import { randomToken, sha256 } from '../../lib/crypto.js';
import { DomainError, invalidField } from '../../lib/errors.js';
import { isoAfterSeconds, nowIso } from '../../lib/time.js';
import { createLinkRepo, type StoredLink } from './link-repo.js';
import type { AccountLinkPurpose } from './tables.js';

/** How long each kind of link works (DECISIONS.md "Accounts"). */
const LIFETIME_SECONDS: Record<AccountLinkPurpose, number> = {
  verify_email: 24 * 60 * 60,
  change_email: 24 * 60 * 60,
  reset_password: 30 * 60,
};
/** A lapsed link is kept this long, so using it answers 410 (lapsed) rather than 400 (unknown). */
const KEPT_AFTER_LAPSE_MS = 7 * 24 * 60 * 60_000;

/** The page a link opens: the web app's verify page (an address, new or not) or its reset page. */
export function linkUrl(frontendUrl: string, purpose: AccountLinkPurpose, token: string): string {
  const page = purpose === 'reset_password' ? 'reset-password' : 'verify-email';
  return `${frontendUrl}/${page}/${token}`;
}

/**
 * A new link for `purpose`, proving `email`: 256 random bits, of which only the SHA-256 is
 * stored. Answers the token, to mail once; it supersedes the user's earlier links of the
 * same purpose ("only the newest works").
 */
export async function issueLink(
  executor: Executor,
  link: { userId: number; purpose: AccountLinkPurpose; email: string },
): Promise<string> {
  const links = createLinkRepo(executor);
  const token = randomToken();
  const now = Date.now();
  await links.purgeLapsed(link.userId, new Date(now - KEPT_AFTER_LAPSE_MS).toISOString());
  await links.insert({
    ...link,
    tokenHash: sha256(token),
    expiresAt: isoAfterSeconds(LIFETIME_SECONDS[link.purpose], now),
    now: new Date(now).toISOString(),
  });
  return token;
}

/**
 * Uses a link of one of `purposes`, once. A token this service never issued for them (or
 * altered) is 400 VALIDATION_FAILED on `token`; one used already, superseded by a newer
 * link, or past its life is 410 LINK_EXPIRED. Call it in the transaction of the change
 * it allows, so a change that fails leaves the link unused.
 */
export async function useLink(
  executor: Executor,
  token: string,
  purposes: readonly AccountLinkPurpose[],
): Promise<StoredLink> {
  const links = createLinkRepo(executor);
  const link = await links.findByHash(sha256(token));
  if (!link || !purposes.includes(link.purpose))
    throw invalidField('token', 'is not a link this service sent; check it was copied whole');
  const now = nowIso();
  const lapsed = () =>
    new DomainError('LINK_EXPIRED', 'This link was used already, replaced by a newer one, or has expired');
  if (link.usedAt !== null || link.superseded || link.expiresAt <= now) throw lapsed();
  if (!(await links.markUsed(link.id, now))) throw lapsed();
  return link;
}
