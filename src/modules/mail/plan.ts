import { reservationMails, waitlistOfferMails } from './booking-mails.js';
import { invitationMails, webhookDisabledMails } from './organisation-mails.js';
import { type PlannedMail, withCalendars } from './plan-calendars.js';
import type { MailPlanDeps } from './plan-context.js';
import { withManageLinks } from './plan-manage-links.js';
import type { Mail, MailableEvent } from './schemas.js';

/**
 * What each event mails, to whom (DECISIONS.md "Email" and "Pages people live in"): one
 * customer mail per outcome of a booking. A free booking sends its confirmation; a paid one
 * its "complete your payment" once its checkout exists, then its confirmation; a waitlist
 * offer its offer. A hold sends nothing of its own (its customer is on the page), nor does
 * its move, release or lapse; a cancellation or expiry goes to a customer who was told of
 * the booking. Every customer mail carries the manage link, unsealed only as it is sent.
 */
export interface MailPlanner {
  /** What to send for an event, to whom, its calendar not yet counted: null when the event sends no mail. */
  planFor(event: MailableEvent): Promise<PlannedMail[] | null>;
  /** Each planned mail with its calendar counted; null for one that does not go (plan-calendars.ts). */
  withCalendars(planned: readonly PlannedMail[]): Promise<Array<Mail | null>>;
  /** The mails with their manage links, unsealed as they are sent (plan-manage-links.ts). */
  withManageLinks(mails: readonly Mail[]): Promise<Mail[]>;
}

export function createMailPlanner(deps: MailPlanDeps): MailPlanner {
  return {
    async planFor(event) {
      if (event.type.startsWith('reservation.')) return reservationMails(deps, event);
      if (event.type === 'waitlist.offered') return waitlistOfferMails(deps, event);
      if (event.type === 'membership.invited') return invitationMails(deps, event);
      if (event.type === 'webhook.disabled') return webhookDisabledMails(deps, event);
      return null;
    },
    withCalendars: (planned) => withCalendars(deps.repo, planned),
    withManageLinks: (mails) => withManageLinks(deps, mails),
  };
}
