import type { Selectable } from 'kysely';
import { type Dialect, type Executor, precompiled } from '../../db/database.js';
import { keepsTimeAt } from '../../db/reservation-time.js';
import type { OrganisationRole, OrganisationsTable } from '../../db/tables/organisations.js';
import type { Plan } from '../../db/tables/users.js';
import type { SchedulePolicy } from '../../scheduling/schemas.js';
import { joinActiveTenant, tenantOfRow } from '../../tenancy/active-tenant.js';
import type { Tenant } from '../../tenancy/gate.js';
import type { Invitation, Member, MembershipOf, Organisation, ReceivedInvitation } from './schemas.js';

const organisationColumns = [
  'organisations.id',
  'organisations.name',
  'organisations.description',
  'organisations.address',
  'organisations.phone',
  'organisations.email',
  'organisations.slug',
  'organisations.logoUrl',
  'organisations.publicBookingHeadline',
  'organisations.publicBookingDescription',
  'organisations.schedulePolicy',
  'organisations.timezone',
  'organisations.defaultCurrency',
  'organisations.color',
  'organisations.isActive',
  'organisations.requireTwoFactor',
  'organisations.createdAt',
  'organisations.updatedAt',
] as const;

type OrganisationRow = Omit<Selectable<OrganisationsTable>, 'archivedAt'>;

export function toOrganisation(row: OrganisationRow): Organisation {
  const { schedulePolicy, isActive, requireTwoFactor, ...rest } = row;
  return {
    ...rest,
    ...(schedulePolicy ? { schedulePolicy: JSON.parse(schedulePolicy) as SchedulePolicy } : {}),
    isActive: Boolean(isActive),
    requireTwoFactor: Boolean(requireTwoFactor),
  };
}

/**
 * The tenant gate's read: the user's active organisation, their role in it and its
 * defaults, in one query. Compiled once: it runs on every tenant-scoped request.
 */
export function activeMembershipQuery(db: Executor) {
  const select = precompiled(() => joinActiveTenant(db.selectFrom('users')).where('users.id', '=', 0));
  return async (userId: number): Promise<Tenant | undefined> => {
    const [row] = await select(db, userId);
    return (row && tenantOfRow(row)) ?? undefined;
  };
}

function toMembership({
  role,
  activeOrganisationId,
  twoFactorEnabled,
  ...row
}: OrganisationRow & {
  role: OrganisationRole;
  activeOrganisationId: number | null;
  twoFactorEnabled: boolean | number;
}): MembershipOf {
  return {
    organisation: toOrganisation(row),
    role,
    isActiveOrganisation: activeOrganisationId === row.id,
    memberHasTwoFactor: Boolean(twoFactorEnabled),
  };
}

/** Column values of an organisation write, in the service's terms. */
export interface OrganisationValues {
  name?: string;
  description?: string | null;
  address?: string | null;
  phone?: string | null;
  email?: string | null;
  slug?: string | null;
  logoUrl?: string | null;
  publicBookingHeadline?: string | null;
  publicBookingDescription?: string | null;
  schedulePolicy?: SchedulePolicy | null;
  timezone?: string;
  defaultCurrency?: string;
  color?: string | null;
  requireTwoFactor?: boolean;
}

function toColumns(values: OrganisationValues) {
  const { schedulePolicy, ...rest } = values;
  return {
    ...rest,
    ...(schedulePolicy !== undefined
      ? { schedulePolicy: schedulePolicy === null ? null : JSON.stringify(schedulePolicy) }
      : {}),
  };
}

const memberColumns = [
  'users.id as userId',
  'users.name',
  'users.email',
  'organisationMemberships.role',
  'organisationMemberships.assignedById',
  'organisationMemberships.createdAt as joinedAt',
  'organisationMemberships.updatedAt',
] as const;

const toMember = (row: Omit<Member, 'status'>): Member => ({ ...row, status: 'active' });

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

/**
 * Kysely queries of organisations and memberships. `dialect` decides row locks:
 * PostgreSQL takes `select ... for update`; SQLite needs none because its one
 * connection runs one transaction at a time.
 */
export function createOrganisationRepo(db: Executor, dialect: Dialect) {
  const lockRows = dialect === 'postgres';

  return {
    /** The user's plan, email and active organisation, read under a row lock inside a transaction. */
    lockUser(
      userId: number,
    ): Promise<
      | { plan: Plan; email: string; emailVerified: boolean | number; activeOrganisationId: number | null }
      | undefined
    > {
      return db
        .selectFrom('users')
        .select(['plan', 'email', 'emailVerified', 'activeOrganisationId'])
        .where('id', '=', userId)
        .$if(lockRows, (qb) => qb.forUpdate())
        .executeTakeFirst();
    },

    /** The user's address and whether it is verified; undefined when there is no such user. */
    emailOf(userId: number): Promise<{ email: string; emailVerified: boolean | number } | undefined> {
      return db
        .selectFrom('users')
        .select(['email', 'emailVerified'])
        .where('id', '=', userId)
        .executeTakeFirst();
    },

    /** Serialises membership changes of one organisation (the last-OWNER rule). */
    async lockOrganisation(organisationId: number): Promise<void> {
      if (!lockRows) return;
      await db
        .selectFrom('organisations')
        .select('id')
        .where('id', '=', organisationId)
        .forUpdate()
        .execute();
    },

    async countOwnedActive(userId: number): Promise<number> {
      const row = await db
        .selectFrom('organisationMemberships')
        .innerJoin('organisations', 'organisations.id', 'organisationMemberships.organisationId')
        .select((eb) => eb.fn.countAll<number>().as('count'))
        .where('organisationMemberships.userId', '=', userId)
        .where('organisationMemberships.role', '=', 'OWNER')
        .where('organisations.isActive', '=', true)
        .executeTakeFirstOrThrow();
      return Number(row.count);
    },

    async insert(
      values: OrganisationValues & { name: string; timezone: string; defaultCurrency: string; now: string },
    ): Promise<Organisation> {
      const { now, name, timezone, defaultCurrency, ...rest } = values;
      const row = await db
        .insertInto('organisations')
        .values({
          ...toColumns(rest),
          name,
          timezone,
          defaultCurrency,
          isActive: true,
          createdAt: now,
          updatedAt: now,
        })
        .returning(organisationColumns)
        .executeTakeFirstOrThrow();
      return toOrganisation(row);
    },

    async update(id: number, values: OrganisationValues, now: string): Promise<Organisation | undefined> {
      const row = await db
        .updateTable('organisations')
        .set({ ...toColumns(values), updatedAt: now })
        .where('id', '=', id)
        .returning(organisationColumns)
        .executeTakeFirst();
      return row && toOrganisation(row);
    },

    async setActiveState(id: number, isActive: boolean, now: string): Promise<Organisation | undefined> {
      const row = await db
        .updateTable('organisations')
        .set({ isActive, archivedAt: isActive ? null : now, updatedAt: now })
        .where('id', '=', id)
        .returning(organisationColumns)
        .executeTakeFirst();
      return row && toOrganisation(row);
    },

    /**
     * The organisation with the user's role in it, archived or not, and whether it
     * is their active one (one query); undefined for a non-member.
     */
    async findForMember(organisationId: number, userId: number): Promise<MembershipOf | undefined> {
      const row = await db
        .selectFrom('organisations')
        .innerJoin('organisationMemberships', (join) =>
          join
            .onRef('organisationMemberships.organisationId', '=', 'organisations.id')
            .on('organisationMemberships.userId', '=', userId),
        )
        .innerJoin('users', 'users.id', 'organisationMemberships.userId')
        .select([
          ...organisationColumns,
          'organisationMemberships.role',
          'users.activeOrganisationId',
          'users.twoFactorEnabled',
        ])
        .where('organisations.id', '=', organisationId)
        .executeTakeFirst();
      return row && toMembership(row);
    },

    /** Every active organisation the user belongs to, with their role and active state: one query. */
    async listForUser(userId: number): Promise<MembershipOf[]> {
      const rows = await db
        .selectFrom('organisationMemberships')
        .innerJoin('organisations', 'organisations.id', 'organisationMemberships.organisationId')
        .innerJoin('users', 'users.id', 'organisationMemberships.userId')
        .select([
          ...organisationColumns,
          'organisationMemberships.role',
          'users.activeOrganisationId',
          'users.twoFactorEnabled',
        ])
        .where('organisationMemberships.userId', '=', userId)
        .where('organisations.isActive', '=', true)
        .orderBy('organisations.name')
        .orderBy('organisations.id')
        .execute();
      return rows.map(toMembership);
    },

    /**
     * The user's active organisation with their role and its defaults, only while
     * they are still a member and it is not archived: one indexed join.
     */
    async setActiveOrganisation(userId: number, organisationId: number, now: string): Promise<void> {
      await db
        .updateTable('users')
        .set({ activeOrganisationId: organisationId, updatedAt: now })
        .where('id', '=', userId)
        .execute();
    },

    /** Makes the organisation the user's active one when they have none; answers whether it did. */
    async setActiveIfNone(userId: number, organisationId: number, now: string): Promise<boolean> {
      const result = await db
        .updateTable('users')
        .set({ activeOrganisationId: organisationId, updatedAt: now })
        .where('id', '=', userId)
        .where('activeOrganisationId', 'is', null)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) === 1;
    },

    /** Clears the organisation as the active one of `userId`, or of every user when omitted. */
    async clearActiveOrganisation(organisationId: number, now: string, userId?: number): Promise<void> {
      await db
        .updateTable('users')
        .set({ activeOrganisationId: null, updatedAt: now })
        .where('activeOrganisationId', '=', organisationId)
        .$if(userId !== undefined, (qb) => qb.where('id', '=', userId!))
        .execute();
    },

    findMembership(organisationId: number, userId: number) {
      return db
        .selectFrom('organisationMemberships')
        .select(['id', 'role'])
        .where('organisationId', '=', organisationId)
        .where('userId', '=', userId)
        .executeTakeFirst();
    },

    async insertMembership(values: {
      organisationId: number;
      userId: number;
      role: OrganisationRole;
      assignedById: number | null;
      now: string;
    }): Promise<void> {
      const { now, ...rest } = values;
      await db
        .insertInto('organisationMemberships')
        .values({ ...rest, createdAt: now, updatedAt: now })
        .execute();
    },

    async updateMembershipRole(values: {
      organisationId: number;
      userId: number;
      role: OrganisationRole;
      assignedById: number;
      now: string;
    }): Promise<void> {
      await db
        .updateTable('organisationMemberships')
        .set({ role: values.role, assignedById: values.assignedById, updatedAt: values.now })
        .where('organisationId', '=', values.organisationId)
        .where('userId', '=', values.userId)
        .execute();
    },

    async deleteMembership(organisationId: number, userId: number): Promise<void> {
      await db
        .deleteFrom('organisationMemberships')
        .where('organisationId', '=', organisationId)
        .where('userId', '=', userId)
        .execute();
    },

    async countOwners(organisationId: number): Promise<number> {
      const row = await db
        .selectFrom('organisationMemberships')
        .select((eb) => eb.fn.countAll<number>().as('count'))
        .where('organisationId', '=', organisationId)
        .where('role', '=', 'OWNER')
        .executeTakeFirstOrThrow();
      return Number(row.count);
    },

    async countMembers(organisationId: number): Promise<number> {
      const row = await db
        .selectFrom('organisationMemberships')
        .select((eb) => eb.fn.countAll<number>().as('count'))
        .where('organisationId', '=', organisationId)
        .executeTakeFirstOrThrow();
      return Number(row.count);
    },

    async listMembers(organisationId: number): Promise<Member[]> {
      const rows = await db
        .selectFrom('organisationMemberships')
        .innerJoin('users', 'users.id', 'organisationMemberships.userId')
        .select(memberColumns)
        .where('organisationMemberships.organisationId', '=', organisationId)
        .orderBy('organisationMemberships.createdAt')
        .orderBy('users.id')
        .execute();
      return rows.map(toMember);
    },

    async findMember(organisationId: number, userId: number): Promise<Member | undefined> {
      const row = await db
        .selectFrom('organisationMemberships')
        .innerJoin('users', 'users.id', 'organisationMemberships.userId')
        .select(memberColumns)
        .where('organisationMemberships.organisationId', '=', organisationId)
        .where('organisationMemberships.userId', '=', userId)
        .executeTakeFirst();
      return row && toMember(row);
    },

    async isActiveOrganisation(organisationId: number): Promise<boolean> {
      const row = await db
        .selectFrom('organisations')
        .select('id')
        .where('id', '=', organisationId)
        .where('isActive', '=', true)
        .executeTakeFirst();
      return row !== undefined;
    },

    /** The member with this email, if any (the member list shows members' emails anyway). */
    findMemberByEmail(organisationId: number, email: string) {
      return db
        .selectFrom('organisationMemberships')
        .innerJoin('users', 'users.id', 'organisationMemberships.userId')
        .select(['organisationMemberships.userId', 'organisationMemberships.role'])
        .where('organisationMemberships.organisationId', '=', organisationId)
        .where('users.email', '=', email)
        .executeTakeFirst();
    },

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
        .leftJoin('users as inviter', 'inviter.id', 'organisationInvitations.invitedById')
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

export type OrganisationRepo = ReturnType<typeof createOrganisationRepo>;

/** Counts and writes that reach the catalogue's tables (resource types, resources, reservations). */
export function createOrganisationDependentsRepo(db: Executor) {
  const count = async (query: { executeTakeFirstOrThrow(): Promise<{ count: string | number | bigint }> }) =>
    Number((await query.executeTakeFirstOrThrow()).count);
  return {
    countResourceTypes(organisationId: number): Promise<number> {
      return count(
        db
          .selectFrom('resourceTypes')
          .select((eb) => eb.fn.countAll().as('count'))
          .where('organisationId', '=', organisationId),
      );
    },
    /** Bookable resources: capacity lanes are part of their parent, not counted apart. */
    countResources(organisationId: number): Promise<number> {
      return count(
        db
          .selectFrom('resources')
          .select((eb) => eb.fn.countAll().as('count'))
          .where('organisationId', '=', organisationId)
          .where('isCapacityChild', '=', false),
      );
    },
    countFutureReservations(organisationId: number, now: string): Promise<number> {
      return count(
        db
          .selectFrom('reservations')
          .select((eb) => eb.fn.countAll().as('count'))
          .where('organisationId', '=', organisationId)
          .where(keepsTimeAt(now))
          .where('endTime', '>', now),
      );
    },
    /** Gives every resource type of the organisation this colour; answers how many changed. */
    async recolourResourceTypes(organisationId: number, color: string, now: string): Promise<number> {
      const result = await db
        .updateTable('resourceTypes')
        .set({ color, updatedAt: now })
        .where('organisationId', '=', organisationId)
        .executeTakeFirst();
      return Number(result.numUpdatedRows);
    },
  };
}
