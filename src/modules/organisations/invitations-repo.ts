import type { Executor } from '../../db/database.js';
import { accounts } from '../auth/ports.js';
import type { Invitation, ReceivedInvitation } from './schemas.js';
import type { OrganisationRole } from './tables.js';

/** Who an invitation is for: an account id or an email address. */
export type Invitee = { userId: number } | { email: string };
/**
 * A person who may hold invitations: by their account, and by their email once they proved
 * it is theirs (null until then: an invitation by email reaches only a verified address).
 */
export interface Person {
  userId: number;
  email: string | null;
}

/** An invitation with who sent it (the membership it becomes records them). */
export type StoredInvitation = Invitation & { invitedById: number | null };

interface InvitationValues {
  organisationId: number;
  role: OrganisationRole;
  invitedById: number;
  invitedAt: string;
  expiresAt: string;
}

const invitationColumns = [
  'id',
  'organisationId',
  'userId',
  'role',
  'invitedById',
  'invitedAt',
  'expiresAt',
] as const;

function toInvitation(row: {
  id: number;
  organisationId: number;
  userId: number | null;
  role: OrganisationRole;
  invitedById: number | null;
  invitedAt: string;
  expiresAt: string;
}): StoredInvitation {
  const { id, ...rest } = row;
  return { invitationId: id, ...rest, status: 'invited' };
}

/** Invitations to join an organisation, by account or by email (`organisation_invitations`). */
export function createInvitationsRepo(db: Executor) {
  return {
    /** The organisation's invitation of this user id or email. */
    findInvitation(organisationId: number, invitee: Invitee) {
      return db
        .selectFrom('organisationInvitations')
        .select(invitationColumns)
        .where('organisationId', '=', organisationId)
        .$call((qb) =>
          'userId' in invitee
            ? qb.where('userId', '=', invitee.userId)
            : qb.where('email', '=', invitee.email),
        )
        .executeTakeFirst()
        .then((row) => row && toInvitation(row));
    },

    findInvitationById(organisationId: number, invitationId: number) {
      return db
        .selectFrom('organisationInvitations')
        .select(invitationColumns)
        .where('organisationId', '=', organisationId)
        .where('id', '=', invitationId)
        .executeTakeFirst()
        .then((row) => row && toInvitation(row));
    },

    async insertInvitation(values: InvitationValues & Invitee): Promise<StoredInvitation> {
      const row = await db
        .insertInto('organisationInvitations')
        .values({ userId: null, email: null, ...values })
        .returning(invitationColumns)
        .executeTakeFirstOrThrow();
      return toInvitation(row);
    },

    /** Renews an invitation: the new role, inviter and lifetime. */
    async renewInvitation(id: number, values: InvitationValues): Promise<StoredInvitation> {
      const { organisationId: _, ...changes } = values;
      const row = await db
        .updateTable('organisationInvitations')
        .set(changes)
        .where('id', '=', id)
        .returning(invitationColumns)
        .executeTakeFirstOrThrow();
      return toInvitation(row);
    },

    async deleteInvitation(id: number): Promise<void> {
      await db.deleteFrom('organisationInvitations').where('id', '=', id).execute();
    },

    /** The organisation's open and lapsed invitations, oldest first. */
    async listInvitations(organisationId: number): Promise<StoredInvitation[]> {
      const rows = await db
        .selectFrom('organisationInvitations')
        .select(invitationColumns)
        .where('organisationId', '=', organisationId)
        .orderBy('invitedAt')
        .orderBy('id')
        .execute();
      return rows.map(toInvitation);
    },

    /**
     * The invitations of one organisation that reach a person, by their account or
     * their email (both can exist), newest first.
     */
    async invitationsOf(organisationId: number, person: Person): Promise<StoredInvitation[]> {
      const rows = await db
        .selectFrom('organisationInvitations')
        .select(invitationColumns)
        .where('organisationId', '=', organisationId)
        .where((eb) =>
          eb.or([
            eb('userId', '=', person.userId),
            ...(person.email === null ? [] : [eb('email', '=', person.email)]),
          ]),
        )
        .orderBy('invitedAt', 'desc')
        .orderBy('id', 'desc')
        .execute();
      return rows.map(toInvitation);
    },

    async deleteInvitationsOf(organisationId: number, person: Person): Promise<number> {
      const result = await db
        .deleteFrom('organisationInvitations')
        .where('organisationId', '=', organisationId)
        .where((eb) =>
          eb.or([
            eb('userId', '=', person.userId),
            ...(person.email === null ? [] : [eb('email', '=', person.email)]),
          ]),
        )
        .executeTakeFirst();
      return Number(result.numDeletedRows);
    },

    /**
     * The person's invitations still open at `now`, to active organisations they do not
     * belong to yet, newest first (one organisation may appear twice: by account and by email).
     */
    listReceivedInvitations(person: Person, now: string): Promise<ReceivedInvitation[]> {
      return db
        .selectFrom('organisationInvitations')
        .innerJoin('organisations', 'organisations.id', 'organisationInvitations.organisationId')
        .leftJoin(accounts(db).as('inviter'), 'inviter.id', 'organisationInvitations.invitedById')
        .select([
          'organisationInvitations.organisationId',
          'organisations.name as organisationName',
          'organisationInvitations.role',
          'inviter.name as invitedByName',
          'organisationInvitations.invitedAt',
          'organisationInvitations.expiresAt',
        ])
        .where((eb) =>
          eb.or([
            eb('organisationInvitations.userId', '=', person.userId),
            ...(person.email === null ? [] : [eb('organisationInvitations.email', '=', person.email)]),
          ]),
        )
        .where('organisationInvitations.expiresAt', '>', now)
        .where('organisations.isActive', '=', true)
        .where((eb) =>
          eb.not(
            eb.exists(
              eb
                .selectFrom('organisationMemberships')
                .select('organisationMemberships.id')
                .whereRef(
                  'organisationMemberships.organisationId',
                  '=',
                  'organisationInvitations.organisationId',
                )
                .where('organisationMemberships.userId', '=', person.userId),
            ),
          ),
        )
        .orderBy('organisationInvitations.invitedAt', 'desc')
        .orderBy('organisationInvitations.id', 'desc')
        .execute();
    },
  };
}

export type InvitationsRepo = ReturnType<typeof createInvitationsRepo>;
