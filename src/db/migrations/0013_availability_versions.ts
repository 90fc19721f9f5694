import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../database.js';

/**
 * A version per resource type, raised by triggers on every write that can change the
 * type's availability answers: reservations (their type column and their lane's type,
 * and the lane's parent's type), resources (old and new type, and the parent's), the
 * type itself, and the organisation's zone and schedule (every type of it). Triggers,
 * not application code, so that every writer invalidates: other modules, the privacy
 * jobs, direct SQL, other instances. Versions only rise (rows are never deleted), so a
 * type id reused by SQLite never meets an old version.
 *
 * PostgreSQL: constraint triggers deferred to commit, so the version row is locked only
 * for the commit's last instant (a booking's autocommit insert, or a long transaction,
 * never holds it while doing other work) and becomes visible with the change itself.
 */

/** The type ids a changed row concerns, as the SQL of one `select ... as t` per id. */
const SOURCES = {
  // A reservation's own type column, and the current type of its lane and of the lane's parent.
  reservations: (row: string) => [
    `select ${row}.resource_type_id as t`,
    `select resource_type_id as t from resources where id = ${row}.resource_id`,
    `select p.resource_type_id as t from resources r join resources p on p.id = r.parent_resource_id where r.id = ${row}.resource_id`,
  ],
  // A resource's type, and its parent's (a lane's answers are its parent's type's).
  resources: (row: string) => [
    `select ${row}.resource_type_id as t`,
    `select resource_type_id as t from resources where id = ${row}.parent_resource_id`,
  ],
  resource_types: (row: string) => [`select ${row}.id as t`],
  organisations: (row: string) => [`select id as t from resource_types where organisation_id = ${row}.id`],
} as const;
type Source = keyof typeof SOURCES;

/** Only changes of what availability reads raise a version (an erased customer name does not). */
const UPDATE_COLUMNS: Partial<Record<Source, string[]>> = {
  reservations: ['resource_id', 'resource_type_id', 'status', 'start_time', 'end_time'],
  organisations: ['timezone', 'schedule_policy'],
};

/**
 * One upsert raising the version of every (distinct, non-null) type `types` (SQL selecting
 * a column `t`) names, in id order: as this migration made it, one row a type.
 */
export function raiseVersions(types: string): string {
  return `insert into availability_versions (resource_type_id, version)
    select t, 1 from (${types}) as types where t is not null order by t
    on conflict (resource_type_id) do update set version = availability_versions.version + 1`;
}

/**
 * PostgreSQL's trigger functions, one a source table, raising versions with `raise`
 * (migration 0044 replaces them with its sharded upsert).
 */
export function bumpFunctions(raise: (types: string) => string): string[] {
  const bump = (rows: string[]) => raise(rows.join(' union '));
  return (Object.keys(SOURCES) as Source[]).map((table) => {
    const of = SOURCES[table];
    const statements =
      table === 'organisations'
        ? [`if tg_op = 'UPDATE' then ${bump(of('new'))}; end if;`]
        : [
            `if tg_op <> 'INSERT' then ${bump(of('old'))}; end if;`,
            `if tg_op <> 'DELETE' then ${bump(of('new'))}; end if;`,
          ];
    // search_path pinned: writers with another search_path still find the table.
    return `create or replace function availability_bump_${table}() returns trigger language plpgsql
      set search_path from current as $$
      begin ${statements.join(' ')} return null; end $$`;
  });
}

export function availabilityVersions(dialect: Dialect) {
  // Null-safe inequality: SQLite's spelling, and PostgreSQL's.
  const differs = dialect === 'postgres' ? 'is distinct from' : 'is not';
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('availability_versions')
        .addColumn('resource_type_id', 'integer', (col) => col.primaryKey())
        .addColumn('version', 'bigint', (col) => col.notNull())
        .execute();
      if (dialect === 'postgres') {
        for (const create of bumpFunctions(raiseVersions)) await sql.raw(create).execute(db);
      }
      for (const table of Object.keys(SOURCES) as Source[]) {
        const of = SOURCES[table];
        const when = UPDATE_COLUMNS[table]?.map((col) => `old.${col} ${differs} new.${col}`).join(' or ');
        if (dialect === 'postgres') {
          const events = table === 'organisations' ? ['update'] : ['insert', 'update', 'delete'];
          for (const event of events) {
            const condition = event === 'update' && when ? `when (${when})` : '';
            await sql
              .raw(`create constraint trigger availability_${table}_${event}
                after ${event} on ${table} deferrable initially deferred
                for each row ${condition} execute function availability_bump_${table}()`)
              .execute(db);
          }
          continue;
        }
        const events =
          table === 'organisations'
            ? [['update', 'NEW']]
            : [
                ['insert', 'NEW'],
                ['update', 'OLD'],
                ['update', 'NEW'],
                ['delete', 'OLD'],
              ];
        for (const [event, row] of events) {
          const condition = event === 'update' && when ? `when ${when}` : '';
          await sql
            .raw(`create trigger availability_${table}_${event}_${row!.toLowerCase()}
              after ${event} on ${table} for each row ${condition}
              begin ${raiseVersions(of(row!).join(' union '))}; end`)
            .execute(db);
        }
      }
    },
  };
}
