import type { ColumnType } from 'kysely';

/**
 * The version of a resource type's availability answers, raised by triggers on every
 * write that can change them (migration 0013): the sum of the type's rows, one on SQLite,
 * one a `shard` on PostgreSQL (migration 0044; writers only, never read). No row means
 * version 0. A bigint, which PostgreSQL reads back as text: compared, never counted with.
 */
export interface AvailabilityVersionsTable {
  resourceTypeId: number;
  version: ColumnType<string | number, number, never>;
}

/** The tables this module owns (declared into Database by its module.ts). */
export interface AvailabilityTables {
  availabilityVersions: AvailabilityVersionsTable;
}
