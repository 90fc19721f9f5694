import { type Kysely, type Migration, sql } from 'kysely';
import type { Dialect } from '../../../db/database.js';
import { bumpFunctions } from '../../../db/migrations/0013_availability_versions.js';
import { busyBumpFunction } from '../../../db/migrations/0027_busy_time.js';

/** Rows a type's version is spread over on PostgreSQL. */
export const VERSION_SHARDS = 16;

/**
 * PostgreSQL: a type's availability version spread over `VERSION_SHARDS` rows, each
 * connection raising its own (`pg_backend_pid()`), the version being their sum.
 *
 * 0013's triggers raise one row a type at commit, and that row stays locked until the
 * commit is on disk: every booking of a type waited for the one before it to finish its
 * flush, so a type took at most one booking per flush (a few hundred microseconds, more
 * when the disk is busy), whatever the cores could do. Rows of their own let commits on
 * different connections flush together.
 *
 * The sum still labels what a reader can see: each committed change adds one to it, and a
 * later snapshot sees every commit an earlier one saw, so a reader finding the sum it
 * cached under has seen exactly the changes that answer had. SQLite has one writer at a
 * time: it keeps one row a type, and no shard column.
 */
export function versionShards(dialect: Dialect): Migration {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      if (dialect !== 'postgres') return;
      await sql`alter table availability_versions add column shard smallint not null default 0`.execute(db);
      await sql`alter table availability_versions drop constraint availability_versions_pkey`.execute(db);
      await sql`alter table availability_versions add primary key (resource_type_id, shard)`.execute(db);
      const raise = (types: string) => `insert into availability_versions (resource_type_id, shard, version)
        select t, pg_backend_pid() % ${VERSION_SHARDS}, 1 from (${types}) as types where t is not null order by t
        on conflict (resource_type_id, shard) do update set version = availability_versions.version + 1`;
      for (const create of [...bumpFunctions(raise), busyBumpFunction(raise)])
        await sql.raw(create).execute(db);
    },
  };
}
