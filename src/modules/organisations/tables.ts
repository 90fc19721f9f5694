import type { ColumnType } from 'kysely';
import type { Bool, Id, JsonText, Timestamp } from '../../db/column-types.js';
import type { Locale } from '../../i18n/locales.js';

export type OrganisationRole = 'OWNER' | 'ADMIN' | 'MANAGER' | 'MEMBER';

export interface OrganisationsTable {
  id: Id;
  name: string;
  description: string | null;
  address: string | null;
  phone: string | null;
  email: string | null;
  /** Public booking slug, kebab-case, unique across all organisations (archived ones included). */
  slug: string | null;
  logoUrl: string | null;
  publicBookingHeadline: string | null;
  publicBookingDescription: string | null;
  /** The Schedule object as JSON; null when the organisation has no scheduling defaults. */
  schedulePolicy: JsonText | null;
  /** IANA time zone name. */
  timezone: string;
  /** The language of its booking pages and customer mails when the customer chose none: one of LOCALES. */
  defaultLocale: ColumnType<Locale, Locale | undefined, Locale>;
  /** Lowercase ISO 4217 code. */
  defaultCurrency: string;
  color: string | null;
  /** False once archived; archived organisations are never hard-deleted. */
  isActive: Bool;
  /** Its OWNER, ADMIN and MANAGER members need two-factor sign-in on for its staff routes. */
  requireTwoFactor: ColumnType<boolean | number, boolean | undefined, boolean>;
  archivedAt: Timestamp | null;
  createdAt: Timestamp;
  updatedAt: Timestamp;
}

export interface OrganisationMembershipsTable {
  id: Id;
  organisationId: number;
  userId: number;
  role: OrganisationRole;
  /** Who added the member or last set their role; null for the creator. */
  assignedById: number | null;
  createdAt: Timestamp;
  updatedAt: Timestamp;
}

/**
 * An invitation to join an organisation, until the invited person accepts it (then
 * it becomes a membership) or declines it, or it is withdrawn. Names its person by
 * `userId` or by `email`, never both; `userId` may name no account at all.
 */
export interface OrganisationInvitationsTable {
  id: Id;
  organisationId: number;
  userId: number | null;
  /** Lowercase. */
  email: string | null;
  role: OrganisationRole;
  /** Who sent (or last renewed) it; null once that person's account is erased. */
  invitedById: number | null;
  invitedAt: Timestamp;
  expiresAt: Timestamp;
}

/** The tables this module owns (declared into Database by its module.ts). */
export interface OrganisationTables {
  organisations: OrganisationsTable;
  organisationMemberships: OrganisationMembershipsTable;
  organisationInvitations: OrganisationInvitationsTable;
}
