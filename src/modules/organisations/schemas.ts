import { z } from 'zod';
import { entityId, oneLine, positiveId } from '../../http/schemas.js';
import { LOCALES } from '../../i18n/locales.js';
import { zoneName } from '../../lib/time-zones.js';
import { schedulePolicy } from '../../scheduling/schemas.js';
import { email } from '../auth/schemas.js';
import { currencyCode } from '../payments/currencies.js';

export const organisationRole = z.enum(['OWNER', 'ADMIN', 'MANAGER', 'MEMBER']);
export type OrganisationRole = z.infer<typeof organisationRole>;

/** An optional text field; `null` or an empty string clears it. */
const text = (max: number) =>
  z
    .string()
    .trim()
    .max(max)
    .transform((value) => (value === '' ? null : value))
    .nullable()
    .optional();

export const slug = z
  .string()
  .max(63, 'must be at most 63 characters')
  .regex(
    /^[a-z0-9]+(-[a-z0-9]+)*$/,
    'must be kebab-case: lowercase letters and digits separated by single hyphens',
  );

export const timezone = z
  .string()
  .max(64)
  .refine((zone) => zoneName(zone) !== null, 'must be an IANA time zone name, e.g. Europe/Berlin')
  // As given, in the tz database's letter case: `europe/berlin` is `Europe/Berlin`, an alias stays itself.
  .transform((zone) => zoneName(zone)!);

export const colour = z
  .string()
  .regex(/^#([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/, 'must be a hex colour, #rgb or #rrggbb')
  .transform((value) => value.toLowerCase());

const profileFields = {
  description: text(2000),
  address: text(500),
  phone: text(50),
  email: z
    .string()
    .trim()
    .max(254)
    .pipe(z.email({ message: 'must be a valid email address' }))
    .transform((value) => value.toLowerCase())
    .nullable()
    .optional(),
  slug: slug.nullable().optional(),
  logoUrl: z
    .url({ protocol: /^https?$/, message: 'must be an absolute http(s) URL' })
    .max(2048)
    .nullable()
    .optional(),
  publicBookingHeadline: text(200),
  publicBookingDescription: text(2000),
  schedulePolicy: schedulePolicy.nullable().optional(),
  timezone: timezone.optional(),
  defaultLocale: z
    .enum(LOCALES, { message: `must be one of: ${LOCALES.join(', ')}` })
    .optional()
    .describe(
      'The language of the booking pages and customer mails when the customer chose none (default en)',
    ),
};

export const createOrganisationBody = z.strictObject({
  name: oneLine(z.string().trim().min(1, 'must not be empty').max(200)),
  ...profileFields,
});
export type CreateOrganisationInput = z.infer<typeof createOrganisationBody>;

export const updateOrganisationBody = z.strictObject({
  name: oneLine(z.string().trim().min(1, 'must not be empty').max(200)).optional(),
  ...profileFields,
  isActive: z.boolean().optional().describe('false archives (OWNER only); true restores an archived one'),
  requireTwoFactor: z
    .boolean()
    .optional()
    .describe('OWNER only; turning it on needs two-factor on your own account first'),
});
export type UpdateOrganisationInput = z.infer<typeof updateOrganisationBody>;

export const setActiveOrganisationBody = z.strictObject({
  organisationId: entityId,
});

export const updateBillingBody = z.strictObject({
  defaultCurrency: currencyCode.optional().describe('Three-letter code the payment provider supports'),
});
export type UpdateBillingInput = z.infer<typeof updateBillingBody>;

export const updateColourBody = z.strictObject({
  color: colour,
  cascadeToResourceTypes: z.boolean().optional().describe('Also give every resource type this colour'),
});
export type UpdateColourInput = z.infer<typeof updateColourBody>;

/**
 * Who an invitation is for: an account id or an email address, exactly one. The
 * answer is the same whether or not such an account exists.
 */
const invitee = {
  userId: entityId.optional(),
  email: email.optional().describe('Invite by email address instead of userId'),
};
type InviteeFields = { userId?: number | undefined; email?: string | undefined };
const exactlyOneInvitee = (body: InviteeFields) => (body.userId === undefined) !== (body.email === undefined);
const exactlyOneInviteeMessage = { message: 'give exactly one of userId and email' };

export const addMemberBody = z.strictObject(invitee).refine(exactlyOneInvitee, exactlyOneInviteeMessage);
export type AddMemberInput = z.infer<typeof addMemberBody>;

export const assignMemberBody = z
  .strictObject({
    ...invitee,
    role: organisationRole,
    assignedById: entityId
      .optional()
      .describe('Must be the caller; the inviter recorded is always the caller'),
  })
  .refine(exactlyOneInvitee, exactlyOneInviteeMessage);
export type AssignMemberInput = z.infer<typeof assignMemberBody>;

export const updateMemberRoleBody = z.strictObject({ role: organisationRole });

export const memberParams = z.strictObject({ id: positiveId, userId: positiveId });

export const invitationParams = z.strictObject({ id: positiveId, invitationId: positiveId });

export const organisation = z
  .object({
    id: z.number().int(),
    name: z.string(),
    description: z.string().nullable(),
    address: z.string().nullable(),
    phone: z.string().nullable(),
    email: z.string().nullable(),
    slug: z.string().nullable(),
    logoUrl: z.string().nullable(),
    publicBookingHeadline: z.string().nullable(),
    publicBookingDescription: z.string().nullable(),
    schedulePolicy: schedulePolicy.optional().describe('Present when configured'),
    timezone: z.string(),
    defaultLocale: z
      .enum(LOCALES)
      .describe('The language of the booking pages and customer mails when the customer chose none'),
    defaultCurrency: z.string(),
    color: z.string().nullable(),
    isActive: z.boolean(),
    requireTwoFactor: z
      .boolean()
      .describe('Its OWNER, ADMIN and MANAGER members need two-factor sign-in on for its staff routes'),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .describe('Organisation');
export type Organisation = z.infer<typeof organisation>;

/** The actor's membership of one organisation, with the organisation itself. */
export interface MembershipOf {
  organisation: Organisation;
  role: OrganisationRole;
  /** Whether it is the actor's active organisation. */
  isActiveOrganisation: boolean;
  /** Whether the actor has two-factor sign-in on (the organisation may require it). */
  memberHasTwoFactor: boolean;
}

/** A member who left or was removed (the organisations service's `onMemberRemoved` listeners get it). */
export interface MemberRemoval {
  organisationId: number;
  userId: number;
}

/** An organisation as seen by one member: every organisation route answers this shape. */
export const memberOrganisation = organisation
  .extend({
    role: organisationRole,
    isOwner: z.boolean(),
    isActiveOrganisation: z.boolean(),
  })
  .describe('Organisation with the caller’s membership');
export type MemberOrganisation = z.infer<typeof memberOrganisation>;

/** An active member, as the member list and the role change show them. */
export const member = z
  .object({
    userId: z.number().int(),
    name: z.string(),
    email: z.string(),
    role: organisationRole,
    status: z.literal('active'),
    assignedById: z.number().int().nullable(),
    joinedAt: z.string(),
    updatedAt: z.string(),
  })
  .describe('Organisation member');
export type Member = z.infer<typeof member>;

/**
 * An invitation as the organisation sees it: nothing about the person beyond the
 * userId the inviter gave (null for an email invitation), so it never tells whether
 * an account exists.
 */
export const invitation = z
  .object({
    invitationId: z
      .number()
      .int()
      .describe('Withdraw with DELETE /api/organisations/{id}/invitations/{invitationId}'),
    organisationId: z.number().int(),
    userId: z.number().int().nullable().describe('Null for an invitation by email'),
    role: organisationRole,
    status: z.literal('invited'),
    invitedAt: z.string(),
    expiresAt: z.string(),
  })
  .describe('Invitation to join the organisation');
export type Invitation = z.infer<typeof invitation>;

/** The member list: active members, then invitations not yet accepted (lapsed ones included). */
export const memberListEntry = z.discriminatedUnion('status', [member, invitation]);
export type MemberListEntry = z.infer<typeof memberListEntry>;

/** An invitation as the invited person sees it. */
export const receivedInvitation = z
  .object({
    organisationId: z.number().int(),
    organisationName: z.string(),
    role: organisationRole,
    invitedByName: z.string().nullable().describe('Null when the inviter’s account no longer exists'),
    invitedAt: z.string(),
    expiresAt: z.string(),
  })
  .describe('Invitation to you');
export type ReceivedInvitation = z.infer<typeof receivedInvitation>;

export const deletionPreview = z.object({
  organisationId: z.number().int(),
  members: z.number().int(),
  resourceTypes: z.number().int(),
  resources: z.number().int(),
  futureReservations: z.number().int(),
});
export type DeletionPreview = z.infer<typeof deletionPreview>;
