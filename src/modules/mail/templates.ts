import {
  BOOKING_TEMPLATES,
  type BookingMailInput,
  type BookingTemplate,
  type Template,
} from './booking-templates.js';
import { formatInstant } from './formats.js';
import { layout, type Rendered } from './layout.js';
import type { Branding, MailedInvitation, MailedWebhook } from './schemas.js';

/**
 * The mails' words, as templates over the facts the service gathered (layout.ts frames
 * them). Pure: the service gathers the records, this only renders them. The customer's
 * booking mails are in their language (booking-templates.ts); the staff mails here are in
 * English.
 */

export type { BookingMailInput, BookingTemplate } from './booking-templates.js';
export { formatInstant, formatMoney, formatSpan } from './formats.js';

export interface InvitationMailInput {
  branding: Branding;
  invitation: MailedInvitation;
  inviterName: string | null;
  /** Where the invited person signs in and accepts. */
  acceptUrl: string;
}

export interface WebhookDisabledMailInput {
  branding: Branding;
  webhook: MailedWebhook;
  /** Where owners see the endpoint's delivery log and turn it on again. */
  manageUrl: string;
}

/** What a mail says, as facts: its subject is written where the mail is claimed, its text and
 * HTML on the SMTP sender's thread (`renderMail`), off the request thread. */
export type MailBody =
  | { template: BookingTemplate; input: BookingMailInput }
  | { template: 'membership_invitation'; input: InvitationMailInput }
  | { template: 'webhook_disabled'; input: WebhookDisabledMailInput };

/** The facts a template renders. */
type InputOf<K extends MailBody['template']> = K extends BookingTemplate
  ? BookingMailInput
  : K extends 'membership_invitation'
    ? InvitationMailInput
    : WebhookDisabledMailInput;

const TEMPLATES: { [K in MailBody['template']]: Template<InputOf<K>> } = {
  ...BOOKING_TEMPLATES,
  membership_invitation: {
    subject: ({ branding, inviterName }) =>
      inviterName
        ? `${inviterName} invited you to join ${branding.name}`
        : `You are invited to join ${branding.name}`,
    content({ branding, invitation, inviterName, acceptUrl }) {
      const role = invitation.role.toLowerCase();
      return {
        heading: `Join ${branding.name}`,
        paragraphs: [
          'Hello,',
          `${inviterName ?? 'Someone'} invited you to join ${branding.name} as ${/^[aeiou]/.test(role) ? 'an' : 'a'} ${role}.`,
          `Sign in with this email address and accept the invitation before ${formatInstant(invitation.expiresAt, branding.timezone)}. If you did not expect it, ignore this message.`,
        ],
        details: [],
        action: { label: 'See the invitation', url: acceptUrl },
      };
    },
  },
  webhook_disabled: {
    subject: ({ branding }) => `${branding.name}: a webhook endpoint was disabled`,
    content: ({ branding, webhook, manageUrl }) => ({
      heading: 'Webhook endpoint disabled',
      paragraphs: [
        'Hello,',
        `Deliveries to a webhook endpoint of ${branding.name} have failed for 3 days, so it was disabled on ${formatInstant(webhook.disabledAt, branding.timezone)}. Its pending deliveries were marked failed.`,
        'Fix the receiver, set the endpoint active again, and retry the failed deliveries from its delivery log.',
      ],
      details: [
        ['Endpoint', webhook.url],
        ...(webhook.description ? [['Description', webhook.description] as [string, string]] : []),
      ],
      action: { label: 'See the endpoint', url: manageUrl },
    }),
  },
};

/** The template of a body, typed by its input. */
const templateOf = (body: MailBody) => TEMPLATES[body.template] as Template<MailBody['input']>;

/** A mail's subject: all the drain needs of its words to claim it. */
export function subjectOf(body: MailBody): string {
  return templateOf(body).subject(body.input);
}

/** A mail's words in full, plain text and HTML. */
export function renderMail(body: MailBody): Rendered {
  const template = templateOf(body);
  return layout(body.input.branding, {
    subject: template.subject(body.input),
    ...template.content(body.input),
  });
}
