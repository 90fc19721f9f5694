import type { Executor } from '../../db/database.js';
import {
  changed,
  countOf,
  type DataSubject,
  exportSection,
  noPersonalData,
  type PrivacyDeclaration,
  personal,
} from '../../privacy/declaration.js';
import type { OrganisationRole } from './tables.js';

const held = (db: Executor, { userId, email }: DataSubject) => ({
  memberships: db.selectFrom('organisationMemberships').where('organisationMemberships.userId', '=', userId),
  // Other members' rows that name the person as who added them or set their role.
  assigned: db
    .selectFrom('organisationMemberships')
    .where('organisationMemberships.assignedById', '=', userId)
    .where('organisationMemberships.userId', '!=', userId),
  // Invitations of the person, by their account or by their email.
  invitations: db
    .selectFrom('organisationInvitations')
    .where((eb) =>
      eb.or([
        eb('organisationInvitations.userId', '=', userId),
        eb('organisationInvitations.email', '=', email),
      ]),
    ),
  // Invitations the person sent: what they did, never the invited person's identity.
  invited: db.selectFrom('organisationInvitations').where('organisationInvitations.invitedById', '=', userId),
});

const RANK: Record<OrganisationRole, number> = { OWNER: 0, ADMIN: 1, MANAGER: 2, MEMBER: 3 };

/**
 * Memberships and invitations. The organisations themselves are the tenants' records, not a person's.
 * Erasure never strands an organisation: where the person was its last OWNER, the
 * member with the highest role (the longest-standing among equals) becomes OWNER;
 * an organisation left with no member at all is archived, and its contact details
 * (email, phone, address: a one-person business's are that person's) are cleared.
 */
export const organisationsPrivacy: PrivacyDeclaration = {
  module: 'organisations',
  tables: {
    organisations: noPersonalData(
      "The organisation's own profile, managed by its owners; erasure archives one its last member leaves and clears its contact details",
    ),
    organisation_memberships: personal(
      'memberships',
      'deleted; "assigned by" links to the person are cleared; a last OWNER is succeeded',
    ),
    organisation_invitations: personal(
      'memberships',
      'invitations of the person (by account or email) deleted; "invited by" links to the person cleared',
    ),
  },
  categories: [
    {
      id: 'memberships',
      label:
        'Organisation memberships and roles, invitations to you, and the roles you assigned or invited others to',
      purpose: 'Deciding what you may do in each organisation',
      retention:
        'While you are a member; an invitation until it is accepted, declined or withdrawn; until your account is erased',
    },
  ],
  async holdings(db, subject) {
    const q = held(db, subject);
    return {
      organisation_memberships: (await countOf(q.memberships)) + (await countOf(q.assigned)),
      organisation_invitations: (await countOf(q.invitations)) + (await countOf(q.invited)),
    };
  },
  exports: [
    exportSection({
      name: 'organisationMemberships',
      table: 'organisation_memberships',
      key: ['organisationMemberships.id'],
      rows: (db, s) =>
        held(db, s)
          .memberships.innerJoin(
            'organisations',
            'organisations.id',
            'organisationMemberships.organisationId',
          )
          .select([
            'organisationMemberships.id',
            'organisationMemberships.organisationId',
            'organisations.name as organisationName',
            'organisationMemberships.role',
            'organisationMemberships.createdAt',
            'organisationMemberships.updatedAt',
          ]),
    }),
    exportSection({
      name: 'organisationRolesYouAssigned',
      table: 'organisation_memberships',
      key: ['organisationMemberships.id'],
      // Only what the person did: never the other member's identity.
      rows: (db, s) =>
        held(db, s).assigned.select([
          'organisationMemberships.id',
          'organisationMemberships.organisationId',
          'organisationMemberships.role',
          'organisationMemberships.updatedAt',
        ]),
    }),
    exportSection({
      name: 'organisationInvitations',
      table: 'organisation_invitations',
      key: ['organisationInvitations.id'],
      rows: (db, s) =>
        held(db, s)
          .invitations.innerJoin(
            'organisations',
            'organisations.id',
            'organisationInvitations.organisationId',
          )
          .select([
            'organisationInvitations.id',
            'organisationInvitations.organisationId',
            'organisations.name as organisationName',
            'organisationInvitations.email',
            'organisationInvitations.role',
            'organisationInvitations.invitedAt',
            'organisationInvitations.expiresAt',
          ]),
    }),
    exportSection({
      name: 'organisationInvitationsYouSent',
      table: 'organisation_invitations',
      key: ['organisationInvitations.id'],
      // Only what the person did: never the invited person's id or email.
      rows: (db, s) =>
        held(db, s).invited.select([
          'organisationInvitations.id',
          'organisationInvitations.organisationId',
          'organisationInvitations.role',
          'organisationInvitations.invitedAt',
          'organisationInvitations.expiresAt',
        ]),
    }),
  ],
  async erase(trx, { userId, email }, now) {
    const mine = await trx
      .selectFrom('organisationMemberships')
      .select(['organisationId', 'role'])
      .where('userId', '=', userId)
      .execute();
    let archived = 0;
    let succeeded = 0;
    for (const { organisationId, role } of mine) {
      const others = await trx
        .selectFrom('organisationMemberships')
        .select(['id', 'role', 'createdAt'])
        .where('organisationId', '=', organisationId)
        .where('userId', '!=', userId)
        .orderBy('id')
        .execute();
      if (others.length === 0) {
        await trx
          .updateTable('organisations')
          .set({ isActive: false, archivedAt: now, email: null, phone: null, address: null, updatedAt: now })
          .where('id', '=', organisationId)
          .execute();
        archived += 1;
      } else if (role === 'OWNER' && !others.some((m) => m.role === 'OWNER')) {
        const heir = [...others].sort((a, b) => RANK[a.role] - RANK[b.role] || a.id - b.id)[0]!;
        await trx
          .updateTable('organisationMemberships')
          .set({ role: 'OWNER', assignedById: null, updatedAt: now })
          .where('id', '=', heir.id)
          .execute();
        succeeded += 1;
      }
    }
    const deleted = await trx
      .deleteFrom('organisationMemberships')
      .where('userId', '=', userId)
      .executeTakeFirst();
    const unlinked = await trx
      .updateTable('organisationMemberships')
      .set({ assignedById: null })
      .where('assignedById', '=', userId)
      .executeTakeFirst();
    const invitations = await trx
      .deleteFrom('organisationInvitations')
      .where((eb) => eb.or([eb('userId', '=', userId), eb('email', '=', email)]))
      .executeTakeFirst();
    const uninvited = await trx
      .updateTable('organisationInvitations')
      .set({ invitedById: null })
      .where('invitedById', '=', userId)
      .executeTakeFirst();
    return {
      organisation_memberships: changed(deleted) + changed(unlinked) + succeeded,
      organisation_invitations: changed(invitations) + changed(uninvited),
      organisations: archived,
    };
  },
};
