import type { Config } from '../../config.js';
import type { OrganisationsService } from '../organisations/service.js';
import type { MailRepo } from './repo.js';
import type { Branding, Mail, MailableEvent, MailKind } from './schemas.js';
import { type MailBody, subjectOf } from './templates.js';

export const HOUSE_COLOUR = '#2563eb';

/** What the mail planner reads and names mails with (service.ts hands it over). */
export interface MailPlanDeps {
  repo: MailRepo;
  organisations: Pick<OrganisationsService, 'organisationById'>;
  config: Pick<Config, 'frontendUrl' | 'encryptionKey'>;
  /** A read kept for the drain's page (organisations, types): `read` once a key. */
  lookup: <T>(key: string, read: () => Promise<T>) => Promise<T>;
  /** The sender's address: a booking's organiser when its organisation has no email. */
  senderAddress: string;
  /** The host of calendar UIDs. */
  uidHost: string;
}

/** How the organisation's mails look and whom they come from; null when it is gone. */
export async function brandingOf(
  { organisations, lookup }: MailPlanDeps,
  organisationId: number,
): Promise<Branding | null> {
  const organisation = await lookup(`organisation:${organisationId}`, () =>
    organisations.organisationById(organisationId),
  );
  if (!organisation) return null;
  const color = organisation.color ?? HOUSE_COLOUR;
  return {
    name: organisation.name,
    email: organisation.email,
    address: organisation.address,
    logoUrl: organisation.logoUrl,
    // `#rgb` as `#rrggbb`: the only forms the organisation's colour may take.
    color: /^#[0-9a-f]{3}$/i.test(color) ? `#${[...color.slice(1)].map((c) => c + c).join('')}` : color,
    timezone: organisation.timezone,
    defaultLocale: organisation.defaultLocale,
  };
}

const keyOf = (eventId: string, kind: MailKind, to: string) => `${eventId}/${kind}/${to}`;

/** The mail `event` sends `to`, in the organisation's name; its calendar is attached later. */
export function mailOf(event: MailableEvent, to: string, branding: Branding, body: MailBody): Mail {
  return {
    key: keyOf(event.id, body.template, to),
    kind: body.template,
    eventId: event.id,
    organisationId: event.organisationId,
    to,
    fromName: branding.name,
    replyTo: branding.email,
    subject: subjectOf(body),
    body,
    calendar: null,
  };
}
