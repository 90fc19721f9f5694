import type { PlannedMail } from './plan-calendars.js';
import { brandingOf, type MailPlanDeps, mailOf } from './plan-context.js';
import { type MailableEvent, mailedInvitation, mailedWebhook } from './schemas.js';

/** The invitation to join an organisation, to its invitee; none once it was answered or withdrawn. */
export async function invitationMails(
  deps: MailPlanDeps,
  event: MailableEvent,
): Promise<PlannedMail[] | null> {
  const parsed = mailedInvitation.safeParse(event.data);
  if (!parsed.success) return null;
  const invitation = parsed.data;
  const branding = await brandingOf(deps, invitation.organisationId);
  // Accepted, declined or withdrawn before the mail went: nobody to tell.
  const invitee = await deps.repo.invitee(invitation.invitationId);
  if (!branding || !invitee) return [];
  const to = (invitation.email ?? invitee.email ?? invitee.accountEmail)?.toLowerCase();
  if (!to) return [];
  const input = {
    branding,
    invitation,
    inviterName: invitee.inviterName,
    acceptUrl: `${deps.config.frontendUrl}/app/invitations`,
  };
  return [
    { mail: mailOf(event, to, branding, { template: 'membership_invitation', input }), calendar: null },
  ];
}

/** A webhook the service turned off, told to each of the organisation's owners. */
export async function webhookDisabledMails(
  deps: MailPlanDeps,
  event: MailableEvent,
): Promise<PlannedMail[] | null> {
  const parsed = mailedWebhook.safeParse(event.data);
  if (!parsed.success || event.organisationId === null) return null;
  const branding = await brandingOf(deps, event.organisationId);
  if (!branding) return [];
  const input = {
    branding,
    webhook: parsed.data,
    manageUrl: `${deps.config.frontendUrl}/app/organisations/${event.organisationId}/webhooks/${parsed.data.id}`,
  };
  return (await deps.repo.ownerEmails(event.organisationId)).map((to) => ({
    mail: mailOf(event, to, branding, { template: 'webhook_disabled', input }),
    calendar: null,
  }));
}
