import type { Executor } from '../../db/database.js';
import { accounts } from '../auth/ports.js';
import type { Member } from './schemas.js';
import type { OrganisationRole } from './tables.js';

const memberColumns = [
  'member.id as userId',
  'member.name',
  'member.email',
  'organisationMemberships.role',
  'organisationMemberships.assignedById',
  'organisationMemberships.createdAt as joinedAt',
  'organisationMemberships.updatedAt',
] as const;

const toMember = (row: Omit<Member, 'status'>): Member => ({ ...row, status: 'active' });

/** Who belongs to an organisation, with which role (`organisation_memberships`). */
export function createMembershipsRepo(db: Executor) {
  return {
    async isMember(organisationId: number, userId: number): Promise<boolean> {
      const row = await db
        .selectFrom('organisationMemberships')
        .select('id')
        .where('organisationId', '=', organisationId)
        .where('userId', '=', userId)
        .executeTakeFirst();
      return row !== undefined;
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

    async listMembers(organisationId: number): Promise<Member[]> {
      const rows = await db
        .selectFrom('organisationMemberships')
        .innerJoin(accounts(db).as('member'), 'member.id', 'organisationMemberships.userId')
        .select(memberColumns)
        .where('organisationMemberships.organisationId', '=', organisationId)
        .orderBy('organisationMemberships.createdAt')
        .orderBy('member.id')
        .execute();
      return rows.map(toMember);
    },

    async findMember(organisationId: number, userId: number): Promise<Member | undefined> {
      const row = await db
        .selectFrom('organisationMemberships')
        .innerJoin(accounts(db).as('member'), 'member.id', 'organisationMemberships.userId')
        .select(memberColumns)
        .where('organisationMemberships.organisationId', '=', organisationId)
        .where('organisationMemberships.userId', '=', userId)
        .executeTakeFirst();
      return row && toMember(row);
    },

    /** The member with this email, if any (the member list shows members' emails anyway). */
    findMemberByEmail(organisationId: number, email: string) {
      return db
        .selectFrom('organisationMemberships')
        .innerJoin(accounts(db).as('member'), 'member.id', 'organisationMemberships.userId')
        .select(['organisationMemberships.userId', 'organisationMemberships.role'])
        .where('organisationMemberships.organisationId', '=', organisationId)
        .where('member.email', '=', email)
        .executeTakeFirst();
    },
  };
}

export type MembershipsRepo = ReturnType<typeof createMembershipsRepo>;
