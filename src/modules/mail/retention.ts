import type { MailContext } from './context.js';

/** Claim rows live as long as the outbox keeps its events. */
const RETENTION_MS = 30 * 24 * 60 * 60_000;

/** Deletes the claims of mails older than the outbox keeps its events; answers how many went. */
export function purgeClaims({ repo }: MailContext): Promise<number> {
  return repo.purgeBefore(new Date(Date.now() - RETENTION_MS).toISOString());
}
