import type { Selectable } from 'kysely';
import { type Dialect, type Executor, precompiled } from '../../db/database.js';
import type { Locale } from '../../i18n/locales.js';
import type { SchedulePolicy } from '../../scheduling/schemas.js';
import { joinActiveTenant, tenantOfRow } from '../../tenancy/active-tenant.js';
import type { Tenant } from '../../tenancy/gate.js';
import { accountById, accounts } from '../auth/ports.js';
import type { MembershipOf, Organisation } from './schemas.js';
import type { OrganisationRole, OrganisationsTable } from './tables.js';

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
  'organisations.defaultLocale',
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
  const select = precompiled(() => joinActiveTenant(accountById(db, 0)));
  return async (userId: number): Promise<Tenant | undefined> => {
    const [row] = await select(db, userId);
    return (row && tenantOfRow(row)) ?? undefined;
  };
}

/** An organisation as one member sees it: `toMembership` reads these. */
const membershipColumns = [
  ...organisationColumns,
  'organisationMemberships.role',
  'member.activeOrganisationId',
  'member.twoFactorEnabled',
] as const;

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
  defaultLocale?: Locale;
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

/**
 * The organisations themselves, and one read as a member sees it (their role, whether it is
 * their active one). `dialect` decides row locks: PostgreSQL takes `select ... for update`;
 * SQLite needs none because its one connection runs one transaction at a time.
 */
export function createOrganisationsRepo(db: Executor, dialect: Dialect) {
  const lockRows = dialect === 'postgres';

  return {
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

    /** The organisation, archived or not. */
    async findById(organisationId: number): Promise<Organisation | undefined> {
      const row = await db
        .selectFrom('organisations')
        .select(organisationColumns)
        .where('id', '=', organisationId)
        .executeTakeFirst();
      return row && toOrganisation(row);
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
        .innerJoin(accounts(db).as('member'), 'member.id', 'organisationMemberships.userId')
        .select(membershipColumns)
        .where('organisations.id', '=', organisationId)
        .executeTakeFirst();
      return row && toMembership(row);
    },

    /** Every active organisation the user belongs to, with their role and active state: one query. */
    async listForUser(userId: number): Promise<MembershipOf[]> {
      const rows = await db
        .selectFrom('organisationMemberships')
        .innerJoin('organisations', 'organisations.id', 'organisationMemberships.organisationId')
        .innerJoin(accounts(db).as('member'), 'member.id', 'organisationMemberships.userId')
        .select(membershipColumns)
        .where('organisationMemberships.userId', '=', userId)
        .where('organisations.isActive', '=', true)
        .orderBy('organisations.name')
        .orderBy('organisations.id')
        .execute();
      return rows.map(toMembership);
    },
  };
}

export type OrganisationsRepo = ReturnType<typeof createOrganisationsRepo>;
