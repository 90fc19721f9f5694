import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../database.js';

/**
 * A version per organisation of its resources, raised by triggers on every insert,
 * update and delete of a resource (the old and the new organisation), so the resource
 * list's cached answers know when they went stale, whoever wrote: the service, the
 * privacy jobs, direct SQL, another instance. Versions only rise (rows are never
 * deleted). As with the availability versions (0013), PostgreSQL raises them in
 * constraint triggers deferred to commit: the version row is locked only for the
 * commit's last instant and becomes visible with the change itself.
 */
const bump = (row: 'old' | 'new') => `insert into resource_list_versions (organisation_id, version)
    values (${row}.organisation_id, 1)
    on conflict (organisation_id) do update set version = resource_list_versions.version + 1`;

export function resourceListVersions(dialect: Dialect) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('resource_list_versions')
        .addColumn('organisation_id', 'integer', (col) => col.primaryKey())
        .addColumn('version', 'bigint', (col) => col.notNull())
        .execute();
      if (dialect === 'postgres') {
        // search_path pinned: writers with another search_path still find the table.
        await sql
          .raw(`create function resource_list_bump() returns trigger language plpgsql
            set search_path from current as $$
            begin
              if tg_op <> 'INSERT' then ${bump('old')}; end if;
              if tg_op = 'INSERT' or (tg_op = 'UPDATE' and new.organisation_id <> old.organisation_id) then
                ${bump('new')};
              end if;
              return null;
            end $$`)
          .execute(db);
        for (const event of ['insert', 'update', 'delete']) {
          await sql
            .raw(`create constraint trigger resource_list_${event}
              after ${event} on resources deferrable initially deferred
              for each row execute function resource_list_bump()`)
            .execute(db);
        }
        return;
      }
      const triggers = [
        ['insert', 'new', ''],
        ['update', 'old', ''],
        ['update', 'new', 'when new.organisation_id <> old.organisation_id'],
        ['delete', 'old', ''],
      ] as const;
      for (const [event, row, condition] of triggers) {
        await sql
          .raw(`create trigger resource_list_${event}_${row} after ${event} on resources
            for each row ${condition} begin ${bump(row)}; end`)
          .execute(db);
      }
    },
  };
}
