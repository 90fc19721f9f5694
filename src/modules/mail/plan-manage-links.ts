import type { Config } from '../../config.js';
import { manageUrlOf, unsealManageToken } from '../reservations/manage-link.js';
import type { MailRepo } from './repo.js';
import type { Mail } from './schemas.js';
import type { MailBody } from './templates.js';

/** The reservation whose manage link a mail carries; null for a mail about no booking. */
const manageTargetOf = (body: MailBody): number | null =>
  'reservation' in body.input ? body.input.reservation.id : null;

/**
 * `mails` with their manage links, unsealed now, as they are sent: the plain token is in
 * the message and nowhere else (not in the claim, the outbox or a log). A reservation
 * stored without a sealed token (before migration 0057) gets no link.
 */
export async function withManageLinks(
  { repo, config }: { repo: MailRepo; config: Pick<Config, 'frontendUrl' | 'encryptionKey'> },
  mails: readonly Mail[],
): Promise<Mail[]> {
  const targets = mails.map((m) => manageTargetOf(m.body));
  const ids = targets.filter((id): id is number => id !== null);
  if (ids.length === 0) return [...mails];
  const links = await repo.manageLinks(ids);
  return mails.map((m, i) => {
    const link = links.get(targets[i]!);
    const token = link && unsealManageToken(config.encryptionKey, link);
    if (!token) return m;
    const input = { ...m.body.input, manageUrl: manageUrlOf(config.frontendUrl, token) };
    return { ...m, body: { ...m.body, input } as MailBody };
  });
}
