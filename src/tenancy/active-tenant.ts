import { type SelectQueryBuilder, sql } from 'kysely';
import type { Database } from '../db/types.js';
import type { Actor } from '../lib/actor.js';
import type { OrganisationRole } from '../modules/organisations/tables.js';
import type { SchedulePolicy } from '../scheduling/schemas.js';
import type { Tenant } from './gate.js';

/** The columns `joinActiveTenant` adds, null when the person has no active organisation. */
export interface ActiveTenantColumns {
  tenantOrganisationId: number | null;
  tenantRole: OrganisationRole | null;
  tenantTimezone: string | null;
  tenantSchedulePolicy: string | null;
  tenantDefaultCurrency: string | null;
  tenantRequireTwoFactor: boolean | number | null;
  /** The person's own two-factor flag, beside the organisation's requirement it answers. */
  tenantMemberHasTwoFactor: boolean | number | null;
}

/**
 * Joins a query that reads `users` with the person's active organisation: their membership
 * of it and the organisation, when it is not archived (left joins: a person without one
 * still comes back). The one home of that join: the credential reads of the auth guard take
 * the tenant along (one statement a request instead of two), and the tenant gate reads it
 * alone when no guard did.
 */
export function joinActiveTenant<TB extends keyof Database, O>(
  query: SelectQueryBuilder<Database, TB | 'users', O>,
): SelectQueryBuilder<Database, TB | 'users', O & ActiveTenantColumns> {
  // Built untyped: Kysely cannot follow a join through a generic table set. The columns are typed above.
  const untyped = query as unknown as SelectQueryBuilder<Database, 'users', O>;
  return untyped
    .leftJoin('organisationMemberships as activeMembership', (join) =>
      join
        .onRef('activeMembership.userId', '=', 'users.id')
        .onRef('activeMembership.organisationId', '=', 'users.activeOrganisationId'),
    )
    .leftJoin('organisations as activeOrganisation', (join) =>
      join
        .onRef('activeOrganisation.id', '=', 'activeMembership.organisationId')
        // A literal: the joined query's parameters stay its own.
        .on('activeOrganisation.isActive', '=', sql.lit(true)),
    )
    .select([
      'activeOrganisation.id as tenantOrganisationId',
      'activeMembership.role as tenantRole',
      'activeOrganisation.timezone as tenantTimezone',
      'activeOrganisation.schedulePolicy as tenantSchedulePolicy',
      'activeOrganisation.defaultCurrency as tenantDefaultCurrency',
      'activeOrganisation.requireTwoFactor as tenantRequireTwoFactor',
      'users.twoFactorEnabled as tenantMemberHasTwoFactor',
    ]) as unknown as SelectQueryBuilder<Database, TB | 'users', O & ActiveTenantColumns>;
}

/** The tenant in a row `joinActiveTenant` read; null when the person has no active organisation. */
export function tenantOfRow(row: ActiveTenantColumns): Tenant | null {
  if (row.tenantOrganisationId === null || row.tenantRole === null) return null;
  return {
    organisationId: row.tenantOrganisationId,
    role: row.tenantRole,
    timezone: row.tenantTimezone!,
    schedulePolicy: row.tenantSchedulePolicy
      ? (JSON.parse(row.tenantSchedulePolicy) as SchedulePolicy)
      : null,
    defaultCurrency: row.tenantDefaultCurrency!,
    requireTwoFactor: Boolean(row.tenantRequireTwoFactor),
    memberHasTwoFactor: Boolean(row.tenantMemberHasTwoFactor),
  };
}

/**
 * Tenants read with the credential of a request, by the request's Actor: the gate asks here
 * before it reads. Keyed by the Actor object, which lives as long as its request, so nothing
 * outlives the request that read it.
 */
const readWithCredential = new WeakMap<Actor, Tenant | null>();

/** Records the tenant the guard read with `actor`'s credential, in this request. */
export function rememberActiveTenant(actor: Actor, tenant: Tenant | null): void {
  readWithCredential.set(actor, tenant);
}

/** The tenant read with `actor`'s credential in this request; undefined when none was. */
export function activeTenantReadWith(actor: Actor): Tenant | null | undefined {
  return readWithCredential.get(actor);
}
