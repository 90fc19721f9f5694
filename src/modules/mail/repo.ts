import type { Executor } from '../../db/database.js';
import { createInvitationsRepo } from './invitations-repo.js';
import { createLookupsRepo } from './lookups-repo.js';
import { createMessagesRepo } from './messages-repo.js';

export { type Claim, type ClaimInput, GROUP_ROWS, MAIL_CONSUMER } from './messages-repo.js';

/** The mail tables (position, claims, calendar invitations) and the lookups of what a mail shows. */
export function createMailRepo(db: Executor) {
  return { ...createMessagesRepo(db), ...createInvitationsRepo(db), ...createLookupsRepo(db) };
}

export type MailRepo = ReturnType<typeof createMailRepo>;
