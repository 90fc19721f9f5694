import { type Migration, type MigrationProvider, Migrator } from 'kysely';
import { type Db, type Dialect, withoutStatementTimeout } from './database.js';
import { foundation } from './migrations/0001_foundation.js';
import { organisations } from './migrations/0002_organisations.js';
import { calendars } from './migrations/0003_calendars.js';
import { resources } from './migrations/0004_resources.js';
import { workspace } from './migrations/0005_workspace.js';
import { agents } from './migrations/0006_agents.js';
import { mcp } from './migrations/0007_mcp.js';
import { oauth } from './migrations/0008_oauth.js';
import { calendarSync } from './migrations/0009_calendar_sync.js';
import { privacy } from './migrations/0010_privacy.js';
import { idempotency } from './migrations/0011_idempotency.js';
import { bookingOverlap } from './migrations/0012_booking_overlap.js';
import { availabilityVersions } from './migrations/0013_availability_versions.js';
import { loweredBuffer } from './migrations/0014_lowered_buffer.js';
import { resourceListVersions } from './migrations/0015_resource_list_versions.js';
import { keptTimeFollowsRules } from './migrations/0016_kept_time_follows_rules.js';
import { membershipInvitations } from './migrations/0017_membership_invitations.js';
import { oauthClientExpiry } from './migrations/0018_oauth_client_expiry.js';
import { reservationHolds } from './migrations/0019_reservation_holds.js';
import { bookingRules } from './migrations/0020_booking_rules.js';
import { reservationPayments } from './migrations/0021_reservation_payments.js';
import { reservationManageTokens } from './migrations/0022_reservation_manage_tokens.js';
import { reservationSeries } from './migrations/0026_reservation_series.js';
import { busyTime } from './migrations/0027_busy_time.js';
import { agentPolicies } from './migrations/0028_agent_policies.js';
import { mcpSessionCapabilities } from './migrations/0036_mcp_session_capabilities.js';
import { seriesIndexPartial } from './migrations/0038_series_index_partial.js';
import { columnsFor } from './migrations/columns.js';

/**
 * Every migration, in order. Names sort in apply order; a landed migration is
 * never edited, a change is a new entry.
 */
function migrations(db: Db): Record<string, Migration> {
  const c = columnsFor(db.dialect);
  return {
    '0001_foundation': foundation(c),
    '0002_organisations': organisations(c),
    '0003_calendars': calendars(c),
    '0004_resources': resources(c),
    '0005_workspace': workspace(c),
    '0006_agents': agents(c),
    '0007_mcp': mcp(c),
    '0008_oauth': oauth(c),
    '0009_calendar_sync': calendarSync(c),
    '0010_privacy': privacy(c),
    '0011_idempotency': idempotency(c),
    '0012_booking_overlap': bookingOverlap(c, db.dialect),
    '0013_availability_versions': availabilityVersions(db.dialect),
    '0014_lowered_buffer': loweredBuffer(db.dialect),
    '0015_resource_list_versions': resourceListVersions(db.dialect),
    '0016_kept_time_follows_rules': keptTimeFollowsRules(db.dialect),
    '0017_membership_invitations': membershipInvitations(c),
    '0018_oauth_client_expiry': oauthClientExpiry(c),
    '0019_reservation_holds': reservationHolds(c, db.dialect),
    '0020_booking_rules': bookingRules(),
    '0021_reservation_payments': reservationPayments(c),
    '0022_reservation_manage_tokens': reservationManageTokens(),
    '0027_busy_time': busyTime(c, db.dialect),
    '0028_agent_policies': agentPolicies(c),
    '0026_reservation_series': reservationSeries(c),
    '0036_mcp_session_capabilities': mcpSessionCapabilities(c),
    '0038_series_index_partial': seriesIndexPartial(),
  };
}

/** A migration built for the database's dialect: how a module declares its own (src/module.ts). */
export type DialectMigration = (dialect: Dialect) => Migration;

/**
 * Applies every migration not yet applied: the landed list above, then `extra`, the
 * modules' own (the wiring passes them in; src/db knows no module). An extra name must
 * sort after the landed ones and be new.
 */
export async function migrateToLatest(
  db: Db,
  extra: Readonly<Record<string, DialectMigration>> = {},
): Promise<void> {
  const landed = migrations(db);
  const all = { ...landed };
  for (const [name, migration] of Object.entries(extra)) {
    if (Object.hasOwn(landed, name)) throw new Error(`Migration ${name} is already a landed migration`);
    all[name] = migration(db.dialect);
  }
  const provider: MigrationProvider = { getMigrations: async () => all };
  const { error, results } = await withoutStatementTimeout(db, (executor) =>
    // Kysely looks for its bookkeeping tables across every schema; pin it to ours.
    new Migrator({
      db: executor,
      provider,
      ...(db.schema ? { migrationTableSchema: db.schema } : {}),
    }).migrateToLatest(),
  );
  const failed = results?.find((r) => r.status === 'Error');
  if (error || failed) {
    const reason = error instanceof Error ? error.message : String(error ?? 'unknown error');
    throw new Error(`Migration ${failed?.migrationName ?? ''} failed: ${reason}`);
  }
}
